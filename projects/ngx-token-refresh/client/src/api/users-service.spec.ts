import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, type TestRequest, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import {
  ApiError,
  type ApiErrorDetail,
  type User,
  type UsersApiConfig,
  UsersService,
  provideUsersApi,
} from 'ngx-token-refresh/client';
import type { Observable } from 'rxjs';

import { track } from '../../../src/lib/track.spec-helper';

const ADA: User = { id: 7, name: 'Ada Lovelace', email: 'ada@example.com' };
const GRACE: User = { id: 8, name: 'Grace Hopper', email: 'grace@example.com' };
const ONE_PAGE = { currentPage: 1, pageSize: 20, totalPages: 1, totalItems: 2 };

describe.each<{ mode: string; config?: UsersApiConfig; usersUrl: string; accept: string | null }>([
  { mode: 'path versioning (the default)', usersUrl: '/api/v1/users', accept: null },
  {
    mode: "'accept' versioning",
    config: { versioning: 'accept', vendor: 'example', version: 2 },
    usersUrl: '/api/users',
    accept: 'application/vnd.example.v2+json',
  },
])('UsersService with $mode', ({ config, usersUrl, accept }) => {
  afterEach(() => TestBed.inject(HttpTestingController).verify());

  describe('list', () => {
    it('GETs the collection without page or pageSize when none is given', () => {
      const { users, httpTesting } = setup(config);
      users.list().subscribe();

      const req = httpTesting.expectOne({ method: 'GET', url: usersUrl });
      expect(req.request.params.keys()).toEqual([]);
      expect(req.request.headers.get('Accept')).toBe(accept);
      req.flush([]);
    });

    it('sends page and pageSize when both are given', () => {
      const { users, httpTesting } = setup(config);
      users.list({ page: 2, pageSize: 20 }).subscribe();

      const req = httpTesting.expectOne({ method: 'GET', url: `${usersUrl}?page=2&pageSize=20` });
      expect(req.request.headers.get('Accept')).toBe(accept);
      req.flush([]);
    });

    it('sends only page when only page is given', () => {
      const { users, httpTesting } = setup(config);
      users.list({ page: 3 }).subscribe();

      httpTesting.expectOne({ method: 'GET', url: `${usersUrl}?page=3` }).flush([]);
    });

    it('sends only pageSize when only pageSize is given', () => {
      const { users, httpTesting } = setup(config);
      users.list({ pageSize: 50 }).subscribe();

      httpTesting.expectOne({ method: 'GET', url: `${usersUrl}?pageSize=50` }).flush([]);
    });

    it('gives a plain array as one page holding every user', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.list());

      httpTesting.expectOne(usersUrl).flush([ADA, GRACE]);

      expect(result.value).toEqual({
        data: [ADA, GRACE],
        pagination: { currentPage: 1, pageSize: 2, totalPages: 1, totalItems: 2 },
      });
    });

    it('passes a page envelope through', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.list({ page: 2, pageSize: 1 }));
      const envelope = { data: [GRACE], pagination: { currentPage: 2, pageSize: 1, totalPages: 2, totalItems: 2 } };

      httpTesting.expectOne(`${usersUrl}?page=2&pageSize=1`).flush(envelope);

      expect(result.value).toEqual(envelope);
      expect(result.settled).toBe(1);
    });
  });

  describe('get', () => {
    it('GETs /users/{id} and emits the user', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.get(7));

      const req = httpTesting.expectOne({ method: 'GET', url: `${usersUrl}/7` });
      expect(req.request.headers.get('Accept')).toBe(accept);
      req.flush(ADA);

      expect(result.value).toEqual(ADA);
      expect(result.settled).toBe(1);
    });
  });

  describe('create', () => {
    it('POSTs the new user and emits the user the server created (201)', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.create({ name: ADA.name, email: ADA.email }));

      const req = httpTesting.expectOne({ method: 'POST', url: usersUrl });
      expect(req.request.body).toStrictEqual({ name: ADA.name, email: ADA.email });
      expect(req.request.headers.get('Accept')).toBe(accept);
      req.flush(ADA, created(`${usersUrl}/7`));

      expect(result.value).toEqual(ADA);
    });
  });

  describe('createWithLocation', () => {
    it('POSTs the new user and emits the created user with its Location', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.createWithLocation({ name: ADA.name, email: ADA.email }));

      const req = httpTesting.expectOne({ method: 'POST', url: usersUrl });
      expect(req.request.body).toStrictEqual({ name: ADA.name, email: ADA.email });
      expect(req.request.headers.get('Accept')).toBe(accept);
      req.flush(ADA, created(`${usersUrl}/7`));

      expect(result.value).toEqual({ value: ADA, location: `${usersUrl}/7` });
    });

    it('gives the location null when the response has no Location header', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.createWithLocation({ name: ADA.name, email: ADA.email }));

      httpTesting.expectOne(usersUrl).flush(ADA, { status: 201, statusText: 'Created' });

      expect(result.value).toEqual({ value: ADA, location: null });
    });
  });

  describe('replace', () => {
    it('PUTs the full user to /users/{id} and completes on 204', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.replace(7, { name: 'Ada King', email: ADA.email }));

      const req = httpTesting.expectOne({ method: 'PUT', url: `${usersUrl}/7` });
      expect(req.request.body).toStrictEqual({ id: 7, name: 'Ada King', email: ADA.email });
      expect(req.request.headers.get('Accept')).toBe(accept);
      req.flush(null, { status: 204, statusText: 'No Content' });

      expect(result.value).toBeUndefined();
      expect(result.error).toBeUndefined();
      expect(result.settled).toBe(1);
    });
  });

  describe('patch', () => {
    it('PATCHes only the given fields as a JSON merge patch, leaving out undefined ones', () => {
      const { users, httpTesting } = setup(config);
      users.patch(7, { name: 'Ada King', email: undefined }).subscribe();

      const req = httpTesting.expectOne({ method: 'PATCH', url: `${usersUrl}/7` });
      expect(req.request.body).toStrictEqual({ name: 'Ada King' });
      expect(req.request.headers.get('Content-Type')).toBe('application/merge-patch+json');
      expect(req.request.headers.get('Accept')).toBe(accept);
      req.flush({ ...ADA, name: 'Ada King' });
    });

    it('emits the user the server sends back', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.patch(7, { name: 'Ada King' }));

      httpTesting.expectOne(`${usersUrl}/7`).flush({ ...ADA, name: 'Ada King' });

      expect(result.value).toEqual({ ...ADA, name: 'Ada King' });
    });

    it('emits null on 204', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.patch(7, { name: 'Ada King' }));

      httpTesting.expectOne(`${usersUrl}/7`).flush(null, { status: 204, statusText: 'No Content' });

      expect(result.value).toBeNull();
      expect(result.settled).toBe(1);
    });

    it('emits null on 200 without a body', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.patch(7, { name: 'Ada King' }));

      httpTesting.expectOne(`${usersUrl}/7`).flush(null, { status: 200, statusText: 'OK' });

      expect(result.value).toBeNull();
      expect(result.error).toBeUndefined();
    });
  });

  describe('delete', () => {
    it('DELETEs /users/{id} and completes on 204', () => {
      const { users, httpTesting } = setup(config);
      const result = track(users.delete(7));

      const req = httpTesting.expectOne({ method: 'DELETE', url: `${usersUrl}/7` });
      expect(req.request.headers.get('Accept')).toBe(accept);
      req.flush(null, { status: 204, statusText: 'No Content' });

      expect(result.value).toBeUndefined();
      expect(result.error).toBeUndefined();
      expect(result.settled).toBe(1);
    });
  });
});

describe('UsersService', () => {
  afterEach(() => TestBed.inject(HttpTestingController).verify());

  const CALLS: [name: string, call: (users: UsersService) => Observable<unknown>, url: string][] = [
    ['list', (users) => users.list(), '/api/v1/users'],
    ['get', (users) => users.get(7), '/api/v1/users/7'],
    ['create', (users) => users.create({ name: ADA.name, email: ADA.email }), '/api/v1/users'],
    ['createWithLocation', (users) => users.createWithLocation({ name: ADA.name, email: ADA.email }), '/api/v1/users'],
    ['replace', (users) => users.replace(7, { name: ADA.name, email: ADA.email }), '/api/v1/users/7'],
    ['patch', (users) => users.patch(7, { name: ADA.name }), '/api/v1/users/7'],
    ['delete', (users) => users.delete(7), '/api/v1/users/7'],
  ];

  it.each(CALLS)('%s sends nothing until subscribed', (_, call) => {
    const { users, httpTesting } = setup();

    call(users);

    httpTesting.expectNone(() => true);
  });

  describe('error responses', () => {
    const DETAILS: ApiErrorDetail[] = [{ target: 'email', message: 'is not an e-mail address' }];
    const ERRORS: [name: string, answer: (req: TestRequest) => void, expected: Partial<ApiError>][] = [
      [
        '400 with details',
        (req) => req.flush(errorBody('InvalidRequest', 'The user is not valid.', DETAILS), status(400, 'Bad Request')),
        { status: 400, code: 'InvalidRequest', message: 'The user is not valid.', details: DETAILS },
      ],
      [
        '401',
        (req) => req.flush(errorBody('Unauthorized', 'Sign in first.'), status(401, 'Unauthorized')),
        { status: 401, code: 'Unauthorized', message: 'Sign in first.', details: [] },
      ],
      [
        '404',
        (req) => req.flush(errorBody('NotFound', 'No such user.'), status(404, 'Not Found')),
        { status: 404, code: 'NotFound', message: 'No such user.', details: [] },
      ],
      [
        '409',
        (req) =>
          req.flush(
            errorBody('Conflict', 'That e-mail is taken.', [{ target: 'email', message: 'is taken' }]),
            status(409, 'Conflict'),
          ),
        { status: 409, code: 'Conflict', details: [{ target: 'email', message: 'is taken' }] },
      ],
      [
        '500',
        (req) => req.flush(errorBody('InternalError', 'Something broke.'), status(500, 'Internal Server Error')),
        { status: 500, code: 'InternalError', message: 'Something broke.', details: [] },
      ],
      ['status 0', (req) => req.error(new ProgressEvent('error')), { status: 0, code: 'NetworkError', details: [] }],
      [
        "a proxy's HTML page",
        (req) => req.flush('<html><body><h1>502 Bad Gateway</h1></body></html>', status(502, 'Bad Gateway')),
        { status: 502, code: 'BadGateway', details: [] },
      ],
    ];

    it.each(
      CALLS.flatMap(([name, call, url]) =>
        ERRORS.map(([error, answer, expected]) => [name, error, call, url, answer, expected] as const),
      ),
    )('%s turns %s into an ApiError', (_, __, call, url, answer, expected) => {
      const { users, httpTesting } = setup();
      const result = track(call(users));

      answer(httpTesting.expectOne(url));

      expect(result.error).toBeInstanceOf(ApiError);
      expect(result.error).toMatchObject(expected);
      expect((result.error as ApiError).message).not.toContain('<');
    });
  });

  describe('invalid arguments', () => {
    const ID_CALLS: [name: string, call: (users: UsersService, id: number) => Observable<unknown>][] = [
      ['get', (users, id) => users.get(id)],
      ['replace', (users, id) => users.replace(id, { name: ADA.name, email: ADA.email })],
      ['patch', (users, id) => users.patch(id, { name: ADA.name })],
      ['delete', (users, id) => users.delete(id)],
    ];
    const IDS: [label: string, id: number][] = [
      ['0', 0],
      ['-1', -1],
      ['1.5', 1.5],
      ['NaN', NaN],
      ["'1'", '1' as unknown as number],
    ];

    it.each(ID_CALLS.flatMap(([name, call]) => IDS.map(([label, id]) => [name, label, call, id] as const)))(
      '%s(%s) fails with InvalidArgument and sends nothing',
      (_, __, call, id) => {
        const { users, httpTesting } = setup();
        const result = track(call(users, id));

        httpTesting.expectNone(() => true);
        expect(result.error).toBeInstanceOf(ApiError);
        expect(result.error).toMatchObject({ status: 0, code: 'InvalidArgument', details: [] });
      },
    );

    it.each<[string, { page?: number; pageSize?: number }]>([
      ['page 0', { page: 0 }],
      ['pageSize 0', { pageSize: 0 }],
      ['page 1.5', { page: 1.5 }],
      ['page NaN', { page: NaN }],
      ['pageSize -1', { page: 1, pageSize: -1 }],
    ])('list with %s fails with InvalidArgument and sends nothing', (_, params) => {
      const { users, httpTesting } = setup();
      const result = track(users.list(params));

      httpTesting.expectNone(() => true);
      expect(result.error).toBeInstanceOf(ApiError);
      expect(result.error).toMatchObject({ status: 0, code: 'InvalidArgument', details: [] });
    });
  });

  describe('malformed success responses', () => {
    it.each<[string, object | string]>([
      ['{}', {}],
      ["'<html>'", '<html><body>Welcome</body></html>'],
      ['an array holding a user without e-mail', [ADA, { id: 9, name: 'Alan Turing' }]],
      ['an array holding null', [null]],
      ['an array holding a user whose id is a string', [{ ...ADA, id: '7' }]],
      ['an envelope without pagination', { data: [ADA] }],
      ['an envelope with incomplete pagination', { data: [ADA], pagination: { currentPage: 1 } }],
      ['an envelope whose data is not an array', { data: { 0: ADA }, pagination: ONE_PAGE }],
      ['an envelope whose data holds a non-user', { data: [ADA, { id: 9 }], pagination: ONE_PAGE }],
    ])('list fails with InvalidResponse for the body %s', (_, body) => {
      const { users, httpTesting } = setup();
      const result = track(users.list());

      httpTesting.expectOne('/api/v1/users').flush(body);

      expect(result.error).toBeInstanceOf(ApiError);
      expect(result.error).toMatchObject({ status: 200, code: 'InvalidResponse' });
    });

    it.each([
      [200, 'OK'],
      [204, 'No Content'],
    ])('get fails with InvalidResponse for a %s without a body', (code, text) => {
      const { users, httpTesting } = setup();
      const result = track(users.get(7));

      httpTesting.expectOne('/api/v1/users/7').flush(null, status(code, text));

      expect(result.error).toBeInstanceOf(ApiError);
      expect(result.error).toMatchObject({ status: code, code: 'InvalidResponse' });
    });

    it('create fails with InvalidResponse when the body is not a user', () => {
      const { users, httpTesting } = setup();
      const result = track(users.create({ name: ADA.name, email: ADA.email }));

      httpTesting.expectOne('/api/v1/users').flush({ ok: true }, created('/api/v1/users/7'));

      expect(result.error).toMatchObject({ status: 201, code: 'InvalidResponse' });
    });

    it('createWithLocation fails with InvalidResponse when the body is not a user', () => {
      const { users, httpTesting } = setup();
      const result = track(users.createWithLocation({ name: ADA.name, email: ADA.email }));

      httpTesting.expectOne('/api/v1/users').flush({ ok: true }, created('/api/v1/users/7'));

      expect(result.error).toBeInstanceOf(ApiError);
      expect(result.error).toMatchObject({ status: 201, code: 'InvalidResponse' });
    });

    it('patch fails with InvalidResponse when the body is not a user', () => {
      const { users, httpTesting } = setup();
      const result = track(users.patch(7, { name: 'Ada King' }));

      httpTesting.expectOne('/api/v1/users/7').flush({ updated: true });

      expect(result.error).toMatchObject({ status: 200, code: 'InvalidResponse' });
    });

    // What HttpXhrBackend (provideHttpClient's default) reports for a 2xx body that is not JSON, such
    // as a server's index.html fallback: an HttpErrorResponse with the 2xx status and the body
    // `{ error: SyntaxError, text }`.
    it('list fails with InvalidResponse for an HTML page that came with 200 where JSON was expected', () => {
      const { users, httpTesting } = setup();
      const result = track(users.list());
      const page = '<!DOCTYPE html>\n<html><head><title>My app</title></head><body></body></html>';

      httpTesting
        .expectOne('/api/v1/users')
        .error({ error: jsonSyntaxError(page), text: page } as unknown as ProgressEvent, status(200, 'OK'));

      expect(result.error).toBeInstanceOf(ApiError);
      expect(result.error).toMatchObject({ status: 200, code: 'InvalidResponse' });
      expect((result.error as ApiError).message).not.toContain('<');
    });

    // Reading the answer can fail with something other than the InvalidResponse it throws on purpose
    // (here a body that throws when read; in real life a bug): that too must reach the caller as an
    // ApiError, so the read has to happen inside the path that converts failures.
    it.each(CALLS.filter(([name]) => ['list', 'get', 'create', 'createWithLocation', 'patch'].includes(name)))(
      '%s turns an error thrown while reading the answer into an ApiError',
      (_, call, url) => {
        const { users, httpTesting } = setup();
        const result = track(call(users));
        const unreadable = new Proxy(
          {},
          {
            get: () => {
              throw new TypeError('unreadable');
            },
          },
        );

        httpTesting.expectOne(url).flush(unreadable);

        expect(result.error).toBeInstanceOf(ApiError);
        expect(result.error).toMatchObject({ code: 'UnknownError', cause: expect.any(TypeError) });
      },
    );
  });
});

describe('provideUsersApi', () => {
  describe('in use', () => {
    afterEach(() => TestBed.inject(HttpTestingController).verify());

    it.each<[string, UsersApiConfig, string]>([
      ['a base URL with a trailing slash', { baseUrl: '/api/' }, '/api/v1/users/7'],
      ['an absolute base URL', { baseUrl: 'https://api.example.com' }, 'https://api.example.com/v1/users/7'],
      [
        'an absolute base URL with a trailing slash and accept versioning',
        { baseUrl: 'https://api.example.com/', versioning: 'accept', vendor: 'example' },
        'https://api.example.com/users/7',
      ],
      ['another version', { version: 3 }, '/api/v3/users/7'],
    ])('calls the right URL for %s', (_, config, url) => {
      const { users, httpTesting } = setup(config);
      users.get(7).subscribe();

      httpTesting.expectOne(url).flush(ADA);
    });

    it('sends the version of accept versioning in the media type', () => {
      const { users, httpTesting } = setup({ versioning: 'accept', vendor: 'acme.corp', version: 3 });
      users.get(7).subscribe();

      const req = httpTesting.expectOne('/api/users/7');
      expect(req.request.headers.get('Accept')).toBe('application/vnd.acme.corp.v3+json');
      req.flush(ADA);
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['version 0', { version: 0 }, /version must be a whole number from 1, got 0/],
    ['version 1.5', { version: 1.5 }, /version must be a whole number from 1, got 1.5/],
    ["'accept' versioning without a vendor", { versioning: 'accept' }, /'accept' needs a vendor/],
    ['a vendor with spaces', { versioning: 'accept', vendor: 'my company' }, /needs a vendor .*"my company"/],
    ['an unknown versioning', { versioning: 'header', vendor: 'example' }, /versioning must be 'path' or 'accept'/],
    ['a baseUrl that is not a string', { baseUrl: 42 }, /baseUrl must be a string/],
  ])('throws a clear error naming the package for %s', (_, config, message) => {
    const provide = () => provideUsersApi(config as UsersApiConfig);
    expect(provide).toThrow(/^ngx-token-refresh: /);
    expect(provide).toThrow(message);
  });
});

function setup(config?: UsersApiConfig) {
  TestBed.configureTestingModule({
    providers: [provideHttpClient(), provideHttpClientTesting(), ...(config ? [provideUsersApi(config)] : [])],
  });
  return { users: TestBed.inject(UsersService), httpTesting: TestBed.inject(HttpTestingController) };
}

function status(code: number, text: string) {
  return { status: code, statusText: text };
}

function created(location: string) {
  return { status: 201, statusText: 'Created', headers: { Location: location } };
}

/** The uniform error body of the contract. */
function errorBody(code: string, message: string, details?: ApiErrorDetail[]) {
  return { error: { code, message, ...(details ? { details } : {}) } };
}

/** The SyntaxError JSON.parse throws for this text. */
function jsonSyntaxError(text: string): SyntaxError {
  try {
    JSON.parse(text);
  } catch (error) {
    return error as SyntaxError;
  }
  throw new Error(`${text} is valid JSON`);
}
