import { HttpClient, HttpErrorResponse, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { APP_ID, DOCUMENT, ErrorHandler, type Provider } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  ApiError,
  type BffSessionConfig,
  type BffSessionRef,
  bffSessionInterceptor,
  injectBffSession,
  provideBffSession,
} from 'ngx-token-refresh/client';

import { track } from '../../../src/lib/track.spec-helper';

// provideBffSession in one tab, against HttpTestingController standing in for the BFF's routes:
// GET /bff/session → 200 { user, expiresAt, idleExpiresAt } or 401 NoSession / SessionEnded;
// POST /bff/logout → 200 { endSessionUrl }; the proxied /api/** → 401 SessionEnded once it ended.

const ADA = { sub: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' };
const EXPIRES_AT = Date.UTC(2030, 0, 1);
const ADA_SESSION = { user: ADA, expiresAt: EXPIRES_AT, idleExpiresAt: EXPIRES_AT - 1000 };
const UNAUTHORIZED = { status: 401, statusText: 'Unauthorized' };
const END_SESSION_URL = 'https://id.example/session/end?id_token_hint=h&post_logout_redirect_uri=https%3A%2F%2Fapp';

function errorBody(code: string, message = 'No.') {
  return { error: { code, message } };
}

const ENDED = errorBody('SessionEnded', 'Your session ended.');

describe('provideBffSession', () => {
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    document.getElementById('ng-state')?.remove();
  });

  describe('the x-csrf header', () => {
    it('goes on calls to this site under basePath and apiPaths, and on no other call', () => {
      const { http, httpTesting } = setup({ apiPaths: ['/api', '/graphql/'] });
      const start = httpTesting.expectOne('/bff/session');
      expect(start.request.headers.get('x-csrf')).toBe('1');
      start.flush(ADA_SESSION);
      const urls: Record<string, string | null> = {
        '/api': '1',
        '/api/users?page=2': '1',
        '/graphql': '1',
        '/bff/logout': '1',
        'api/users': '1', // path-relative: resolved against the page, http://localhost/
        'http://localhost/api/users': '1', // this very origin, written out
        '/api/../api/users': '1',
        'https://other.example/api/users': null,
        'http://localhost:8080/api/users': null, // another port is another origin
        '//other.example/api/users': null, // protocol-relative: another origin
        '/\\other.example/api/users': null, // the browser reads /\ as //
        '/apiary': null,
        '/bffx/session': null,
        '/assets/i18n/en.json': null,
        '/static/../api/users': '1', // the path it really reaches
        '/api/../static/app.json': null,
      };
      for (const url of Object.keys(urls)) http.get(url).subscribe();

      const sent = Object.fromEntries(
        Object.keys(urls).map((url) => [url, httpTesting.expectOne(url).request.headers.get('x-csrf')]),
      );
      expect(sent).toEqual(urls);
      for (const url of Object.keys(urls)) httpTesting.match(url).forEach((call) => call.flush({}));
    });

    it('leaves the rest of the request as it was', () => {
      const { http, httpTesting } = setup();
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);
      http.post('/api/users', { name: 'Grace' }, { headers: { 'X-Trace': 't-1' } }).subscribe();

      const call = httpTesting.expectOne('/api/users');
      expect(call.request.body).toEqual({ name: 'Grace' });
      expect(call.request.headers.get('X-Trace')).toBe('t-1');
      expect(call.request.headers.has('Cookie')).toBe(false);
      call.flush({});
    });
  });

  describe('user and status', () => {
    it('are unknown until GET /bff/session answers, then hold its user', () => {
      const { session, httpTesting } = setup();
      expect(session.status()).toBe('unknown');
      expect(session.user()).toBeNull();

      httpTesting.expectOne({ method: 'GET', url: '/bff/session' }).flush(ADA_SESSION);

      expect(session.status()).toBe('signedIn');
      expect(session.user()).toEqual({ sub: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' });
    });

    it('are signed out when the BFF knows no session (401 NoSession)', () => {
      const { session, httpTesting } = setup();

      httpTesting.expectOne('/bff/session').flush(errorBody('NoSession'), UNAUTHORIZED);

      expect(session.status()).toBe('signedOut');
      expect(session.user()).toBeNull();
    });

    it('follow reload(): signed in after a sign-in elsewhere', async () => {
      const { session, httpTesting } = setup();
      httpTesting.expectOne('/bff/session').flush(errorBody('NoSession'), UNAUTHORIZED);

      const reloaded = session.reload();
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);
      await reloaded;

      expect(session.status()).toBe('signedIn');
      expect(session.user()?.sub).toBe('ada');
    });

    it('come from the page when it was rendered signed in on the server, and nothing is asked', () => {
      const script = document.createElement('script');
      script.id = 'ng-state';
      script.type = 'application/json';
      script.textContent = JSON.stringify({ 'ngx-token-refresh:bff-session': { user: ADA, expiresAt: EXPIRES_AT } });
      document.body.append(script);

      const { session } = setup({}, [{ provide: APP_ID, useValue: 'ng' }]);

      expect(session.status()).toBe('signedIn');
      expect(session.user()).toEqual(ADA);
    });
  });

  describe('an answer that is not a session', () => {
    it.each([
      ['a user without sub', { user: { name: 'Ada' } }],
      ['a sub that is no text', { user: { sub: 42 } }],
      ['no user', { expiresAt: EXPIRES_AT }],
      ['an array', [ADA]],
      ['an HTML page served with 200 (the app instead of the BFF)', '<!doctype html><html><body>app</body></html>'],
    ])('(%s) rejects reload() with InvalidResponse and changes nothing', async (_what, body) => {
      const { session, httpTesting } = setup();
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);

      const reloaded = session.reload();
      httpTesting.expectOne('/bff/session').flush(body);

      await expect(reloaded).rejects.toMatchObject({ status: 200, code: 'InvalidResponse' });
      await expect(reloaded).rejects.toBeInstanceOf(ApiError);
      expect(session.status()).toBe('signedIn');
      expect(session.user()?.sub).toBe('ada');
    });

    it('leaves the status unknown at start-up', () => {
      const { session, httpTesting } = setup({}, [{ provide: ErrorHandler, useValue: { handleError: jest.fn() } }]);

      httpTesting.expectOne('/bff/session').flush({ user: null });

      expect(session.status()).toBe('unknown');
    });

    it('rejects reload() with the status of an HTML error page, never its markup', async () => {
      const { session, httpTesting } = setup();
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);

      const reloaded = session.reload();
      httpTesting
        .expectOne('/bff/session')
        .flush('<html><body><h1>502 Bad Gateway</h1></body></html>', { status: 502, statusText: 'Bad Gateway' });

      const error = await reloaded.catch((caught: unknown) => caught);
      expect(error).toMatchObject({ status: 502, code: 'BadGateway' });
      expect((error as ApiError).message).not.toContain('<');
      expect(session.status()).toBe('signedIn');
    });

    it('rejects reload() with NetworkError when the BFF cannot be reached (status 0), and keeps the session', async () => {
      const { session, httpTesting } = setup();
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);

      const reloaded = session.reload();
      httpTesting.expectOne('/bff/session').error(new ProgressEvent('error'));

      await expect(reloaded).rejects.toMatchObject({ status: 0, code: 'NetworkError' });
      expect(session.status()).toBe('signedIn');
      expect(session.user()?.sub).toBe('ada');
    });
  });

  describe('the end of the session', () => {
    it('with 5 calls failing 401 SessionEnded: signed out, onSessionExpired once, each caller its own error', () => {
      const onSessionExpired = jest.fn();
      const { session, http, httpTesting } = setup({ onSessionExpired });
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);
      const calls = [1, 2, 3, 4, 5].map((id) => track(http.get(`/api/items/${id}`)));

      for (const id of [1, 2, 3, 4, 5]) httpTesting.expectOne(`/api/items/${id}`).flush(ENDED, UNAUTHORIZED);

      expect(onSessionExpired).toHaveBeenCalledTimes(1);
      const [error] = onSessionExpired.mock.calls[0] as [ApiError];
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 401, code: 'SessionEnded', message: 'Your session ended.' });
      expect(session.status()).toBe('signedOut');
      expect(session.user()).toBeNull();
      for (const call of calls) {
        expect(call.error).toBeInstanceOf(HttpErrorResponse);
        expect(call.error).toMatchObject({ status: 401, error: ENDED });
      }
    });

    it('is seen on basePath too: a reload() answered SessionEnded', async () => {
      const onSessionExpired = jest.fn();
      const { session, httpTesting } = setup({ onSessionExpired });
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);

      const reloaded = session.reload();
      httpTesting.expectOne('/bff/session').flush(ENDED, UNAUTHORIZED);
      await reloaded;

      expect(session.status()).toBe('signedOut');
      expect(onSessionExpired).toHaveBeenCalledTimes(1);
    });

    it('runs onSessionExpired again after a new sign-in ends (once per session)', async () => {
      const onSessionExpired = jest.fn();
      const { session, http, httpTesting } = setup({ onSessionExpired });
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);
      http.get('/api/a').subscribe({ error: () => undefined });
      httpTesting.expectOne('/api/a').flush(ENDED, UNAUTHORIZED);
      const reloaded = session.reload();
      httpTesting.expectOne('/bff/session').flush({ ...ADA_SESSION, expiresAt: EXPIRES_AT + 1 });
      await reloaded;

      http.get('/api/b').subscribe({ error: () => undefined });
      httpTesting.expectOne('/api/b').flush(ENDED, UNAUTHORIZED);

      expect(onSessionExpired).toHaveBeenCalledTimes(2);
    });

    it('is no expiry for a visitor who never signed in: NoSession everywhere, onSessionExpired never runs', () => {
      const onSessionExpired = jest.fn();
      const { session, http, httpTesting } = setup({ onSessionExpired });
      httpTesting.expectOne('/bff/session').flush(errorBody('NoSession'), UNAUTHORIZED);
      const call = track(http.get('/api/public-ish'));

      httpTesting.expectOne('/api/public-ish').flush(errorBody('NoSession'), UNAUTHORIZED);

      expect(call.error).toMatchObject({ status: 401 });
      expect(session.status()).toBe('signedOut');
      expect(onSessionExpired).not.toHaveBeenCalled();
    });

    it('is no expiry while the first answer is still awaited (status unknown): signed out, nothing run', () => {
      const onSessionExpired = jest.fn();
      const { session, http, httpTesting } = setup({ onSessionExpired });
      const start = httpTesting.expectOne('/bff/session');
      http.get('/api/early').subscribe({ error: () => undefined });

      httpTesting.expectOne('/api/early').flush(ENDED, UNAUTHORIZED);
      // Answered before that end: out of date, not taken.
      start.flush(ADA_SESSION);

      expect(session.status()).toBe('signedOut');
      expect(onSessionExpired).not.toHaveBeenCalled();
    });

    it('lets a 401 with another code pass untouched: the session stays', () => {
      const onSessionExpired = jest.fn();
      const { session, http, httpTesting } = setup({ onSessionExpired });
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);
      const bodies = [errorBody('Unauthorized'), 'Unauthorized', null, '<html>401</html>'];
      const calls = bodies.map((_, i) => track(http.get(`/api/mine/${i}`)));

      bodies.forEach((body, i) => httpTesting.expectOne(`/api/mine/${i}`).flush(body, UNAUTHORIZED));

      calls.forEach((call, i) => {
        expect(call.error).toBeInstanceOf(HttpErrorResponse);
        expect(call.error).toMatchObject({ status: 401, error: bodies[i] });
      });
      expect(session.status()).toBe('signedIn');
      expect(onSessionExpired).not.toHaveBeenCalled();
    });

    it('is not read from another origin, nor from statuses other than 401', () => {
      const onSessionExpired = jest.fn();
      const { session, http, httpTesting } = setup({ onSessionExpired });
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);
      http.get('https://other.example/api/x').subscribe({ error: () => undefined });
      http.get('/api/forbidden').subscribe({ error: () => undefined });

      httpTesting.expectOne('https://other.example/api/x').flush(ENDED, UNAUTHORIZED);
      httpTesting.expectOne('/api/forbidden').flush(ENDED, { status: 403, statusText: 'Forbidden' });

      expect(session.status()).toBe('signedIn');
      expect(onSessionExpired).not.toHaveBeenCalled();
    });

    it('reads the code from a body that came as text', () => {
      const onSessionExpired = jest.fn();
      const { http, httpTesting } = setup({ onSessionExpired });
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);
      http.get('/api/report', { responseType: 'text' }).subscribe({ error: () => undefined });

      httpTesting.expectOne('/api/report').flush(JSON.stringify(ENDED), UNAUTHORIZED);

      expect(onSessionExpired).toHaveBeenCalledWith(expect.objectContaining({ code: 'SessionEnded' }));
    });

    it('reports a throwing onSessionExpired to the ErrorHandler and still fails the call with its own error', () => {
      const handleError = jest.fn();
      const { session, http, httpTesting } = setup(
        {
          onSessionExpired: () => {
            throw new Error('app bug');
          },
        },
        [{ provide: ErrorHandler, useValue: { handleError } }],
      );
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);
      const call = track(http.get('/api/x'));

      httpTesting.expectOne('/api/x').flush(ENDED, UNAUTHORIZED);

      expect(handleError).toHaveBeenCalledWith(new Error('app bug'));
      expect(call.error).toMatchObject({ status: 401, error: ENDED });
      expect(session.status()).toBe('signedOut');
    });
  });

  describe('signIn', () => {
    it('navigates to <basePath>/login with the returnUrl', () => {
      const { session, location, httpTesting } = setup({ basePath: '/auth/bff/' });
      httpTesting.expectOne('/auth/bff/session').flush(errorBody('NoSession'), UNAUTHORIZED);

      session.signIn('/account?tab=2#keys');

      expect(location.assign).toHaveBeenCalledWith('/auth/bff/login?returnUrl=%2Faccount%3Ftab%3D2%23keys');
    });

    it('comes back to the current page by default', () => {
      const { session, location, httpTesting } = setup();
      httpTesting.expectOne('/bff/session').flush(errorBody('NoSession'), UNAUTHORIZED);

      session.signIn();

      expect(location.assign).toHaveBeenCalledWith('/bff/login?returnUrl=%2Forders%3Fpage%3D3');
    });

    it.each(['//evil.example/', 'https://evil.example/', '/\\evil.example', 'account', '/\tevil'])(
      'refuses the returnUrl %j, which is not a path of this site, and goes nowhere',
      (returnUrl) => {
        const { session, location, httpTesting } = setup();
        httpTesting.expectOne('/bff/session').flush(errorBody('NoSession'), UNAUTHORIZED);

        expect(() => session.signIn(returnUrl)).toThrow(
          /ngx-token-refresh: signIn\(returnUrl\): returnUrl must be a path/,
        );
        expect(location.assign).not.toHaveBeenCalled();
      },
    );
  });

  describe('signOut', () => {
    it('posts the logout, signs this tab out, then goes to the endSessionUrl, and reports no expiry', async () => {
      const onSessionExpired = jest.fn();
      const { session, location, httpTesting } = setup({ onSessionExpired });
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);

      const done = session.signOut();
      const logout = httpTesting.expectOne({ method: 'POST', url: '/bff/logout' });
      expect(logout.request.headers.get('x-csrf')).toBe('1');
      logout.flush({ endSessionUrl: END_SESSION_URL });
      await done;

      expect(session.status()).toBe('signedOut');
      expect(session.user()).toBeNull();
      expect(location.assign).toHaveBeenCalledWith(END_SESSION_URL);
      expect(onSessionExpired).not.toHaveBeenCalled();
    });

    it('keeps the session and goes nowhere when the BFF could not sign out', async () => {
      const { session, location, httpTesting } = setup();
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);

      const done = session.signOut();
      httpTesting.expectOne('/bff/logout').flush(errorBody('ProviderUnavailable'), { status: 503, statusText: 'No' });

      await expect(done).rejects.toMatchObject({ status: 503, code: 'ProviderUnavailable' });
      await expect(done).rejects.toBeInstanceOf(ApiError);
      expect(session.status()).toBe('signedIn');
      expect(location.assign).not.toHaveBeenCalled();
    });

    it('signs out without an onSessionExpired when the session had already ended on the server', async () => {
      const onSessionExpired = jest.fn();
      const { session, location, httpTesting } = setup({ onSessionExpired });
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);

      const done = session.signOut();
      httpTesting.expectOne('/bff/logout').flush(ENDED, UNAUTHORIZED);
      await done;

      expect(session.status()).toBe('signedOut');
      expect(onSessionExpired).not.toHaveBeenCalled();
      expect(location.assign).not.toHaveBeenCalled();
    });

    it.each([
      ['a javascript: URL', { endSessionUrl: 'javascript:alert(1)' }],
      ['no endSessionUrl (a provider without one)', { endSessionUrl: null }],
      ['no body', null],
    ])('signs out and goes nowhere with %s', async (_what, body) => {
      const { session, location, httpTesting } = setup();
      httpTesting.expectOne('/bff/session').flush(ADA_SESSION);

      const done = session.signOut();
      httpTesting.expectOne('/bff/logout').flush(body);
      await done;

      expect(session.status()).toBe('signedOut');
      expect(location.assign).not.toHaveBeenCalled();
    });
  });

  describe('misuse', () => {
    it('names provideBffSession when it is missing', () => {
      TestBed.configureTestingModule({
        providers: [provideHttpClient(withInterceptors([bffSessionInterceptor])), provideHttpClientTesting()],
      });
      const http = TestBed.inject(HttpClient);

      expect(() => TestBed.runInInjectionContext(() => injectBffSession())).toThrow(
        'ngx-token-refresh: injectBffSession() needs provideBffSession() in the application providers',
      );
      expect(track(http.get('/api/x')).error).toEqual(
        new Error('ngx-token-refresh: bffSessionInterceptor needs provideBffSession() in the application providers'),
      );
    });

    it('says through the ErrorHandler when the interceptor is missing (the BFF refuses calls without x-csrf)', () => {
      const handleError = jest.fn();
      TestBed.configureTestingModule({
        providers: [
          provideHttpClient(),
          provideHttpClientTesting(),
          provideBffSession(),
          { provide: ErrorHandler, useValue: { handleError } },
        ],
      });
      const httpTesting = TestBed.inject(HttpTestingController);

      httpTesting.expectOne('/bff/session').flush(errorBody('CsrfRefused'), { status: 403, statusText: 'Forbidden' });

      expect(handleError).toHaveBeenCalledTimes(1);
      expect(String(handleError.mock.calls[0]?.[0])).toMatch(
        /provideBffSession: bffSessionInterceptor did not see GET \/bff\/session: add it to provideHttpClient\(withInterceptors\(\[bffSessionInterceptor\]\)\)/,
      );
    });

    it('says through the ErrorHandler when /bff/session answers with something else (the BFF not mounted)', () => {
      const handleError = jest.fn();
      const { httpTesting } = setup({}, [{ provide: ErrorHandler, useValue: { handleError } }]);

      httpTesting.expectOne('/bff/session').flush('<!doctype html><html><body>app</body></html>');

      expect(handleError).toHaveBeenCalledTimes(1);
      expect(String(handleError.mock.calls[0]?.[0])).toMatch(
        /GET \/bff\/session answered something that is not a session \(often the app's index.html\): is the BFF mounted at basePath \/bff/,
      );
    });
  });
});

describe('provideBffSession options', () => {
  it.each<[string, BffSessionConfig]>([
    ['basePath', { basePath: 'bff' }],
    ['basePath', { basePath: '/' }],
    ['basePath', { basePath: 'https://bff.example/bff' }],
    ['apiPaths', { apiPaths: ['/api', '//api.example/'] }],
    ['apiPaths', { apiPaths: '/api' as unknown as string[] }],
    ['onSessionExpired', { onSessionExpired: 'navigate' as unknown as () => void }],
    ['channelName', { channelName: '' }],
    ['serverUrl', { serverUrl: 'http://app.example' }],
    ['serverUrl', { serverUrl: 'http://127.0.0.1:4000/app' }],
    ['serverUrl', { serverUrl: 'localhost:4000' }],
  ])('refuses a bad %s at once, naming it', (option, config) => {
    expect(() => provideBffSession(config)).toThrow(
      new RegExp(`^ngx-token-refresh: ${option} .*\\(check the options of provideBffSession\\)$`),
    );
  });

  it('accepts a serverUrl on a loopback host or https', () => {
    expect(() => provideBffSession({ serverUrl: 'http://127.0.0.1:4000' })).not.toThrow();
    expect(() => provideBffSession({ serverUrl: 'https://app.internal/' })).not.toThrow();
  });
});

/** The page's location, whose navigations are recorded instead of made (jsdom cannot navigate). */
interface RecordedLocation {
  readonly href: string;
  readonly pathname: string;
  readonly search: string;
  readonly hash: string;
  readonly assign: jest.Mock;
}

/**
 * The app as the README sets it up, on /orders?page=3: provideHttpClient with the interceptor, then
 * HttpTestingController, then provideBffSession. The document is jsdom's, except for its location.
 */
function setup(
  config: BffSessionConfig = {},
  providers: Provider[] = [],
): { session: BffSessionRef; http: HttpClient; httpTesting: HttpTestingController; location: RecordedLocation } {
  const location: RecordedLocation = {
    href: 'http://localhost/orders?page=3',
    pathname: '/orders',
    search: '?page=3',
    hash: '',
    assign: jest.fn(),
  };
  const page = new Proxy(document, {
    get: (target, key) => {
      if (key === 'location') return location;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([bffSessionInterceptor])),
      provideHttpClientTesting(),
      provideBffSession(config),
      { provide: DOCUMENT, useValue: page },
      ...providers,
    ],
  });
  const httpTesting = TestBed.inject(HttpTestingController);
  return {
    session: TestBed.runInInjectionContext(() => injectBffSession()),
    http: TestBed.inject(HttpClient),
    httpTesting,
    location,
  };
}
