import {
  HttpClient,
  HttpErrorResponse,
  HttpHeaders,
  type HttpInterceptorFn,
  HttpRequest,
  HttpResponse,
  provideHttpClient,
  withInterceptors,
} from '@angular/common/http';
import { TestBed } from '@angular/core/testing';
import { parseJwtClaims } from 'ngx-token-refresh';
import { firstValueFrom, tap, throwError } from 'rxjs';

import { demoBackendInterceptors } from './demo-backend-interceptors';
import { DemoServerState } from './demo-server-state';
import { inMemoryErrorAdapter } from './in-memory-error-adapter';
import { provideDemoBackend } from './provide-demo-backend';

const USERS = '/api/v1/users';
const V1 = 'application/vnd.showcase.v1+json';
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };
/** A whole second, so `iat` is exactly NOW_MS / 1000. */
const NOW_MS = 1_750_000_000_000;

// The backend driven through HttpClient exactly as the showcase wires it: the demo interceptors in
// withInterceptors, then provideDemoBackend() after provideHttpClient.
describe('DemoBackend', () => {
  afterEach(() => jest.restoreAllMocks());

  describe('POST /auth/login', () => {
    it('answers 200 { accessToken } for a demo account, and keeps the refresh token out of the body', async () => {
      const { send, state } = setup();
      const response = await send('POST', '/auth/login', { body: { username: 'ada', password: 'lovelace' } });

      expect(response).toBeInstanceOf(HttpResponse);
      expect(response.status).toBe(200);
      expect(Object.keys(bodyOf(response) as object)).toEqual(['accessToken']);
      expect(state.currentRefreshToken()).toEqual({ value: expect.any(String), username: 'ada' });
    });

    it('issues a JWT-shaped access token: sub, role, iat and exp in seconds, jti the serial', async () => {
      const { send, state } = setup();
      state.tokenLifetimeSeconds.set(45);
      jest.spyOn(Date, 'now').mockReturnValue(NOW_MS);
      const first = await login(send, 'ada');
      const second = await login(send, 'alan');

      expect(first.split('.')).toHaveLength(3);
      expect(first).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(parseJwtClaims(first)).toEqual({
        sub: 'ada',
        role: 'admin',
        iat: NOW_MS / 1000,
        exp: NOW_MS / 1000 + 45,
        jti: '1',
      });
      expect(parseJwtClaims(second)).toMatchObject({ sub: 'alan', role: 'viewer', jti: '2' });
    });

    it('gives every login a new random refresh token', async () => {
      const { send, state } = setup();
      const random = jest.spyOn(crypto, 'getRandomValues');
      await login(send, 'ada');
      const first = state.currentRefreshToken()?.value;
      await login(send, 'ada');

      expect(random).toHaveBeenCalledTimes(2);
      expect(first).toMatch(/^[\w-]{43}\.\d+$/);
      expect(state.currentRefreshToken()?.value).not.toBe(first);
    });

    it.each([
      ['a wrong password', { username: 'ada', password: 'turing' }],
      ['an unknown user', { username: 'eve', password: 'lovelace' }],
      // As the reference server: a password with a control character or a lone surrogate is a wrong one.
      ['the password with a trailing NUL', { username: 'ada', password: 'lovelace\u0000' }],
      ['the password with a lone surrogate', { username: 'ada', password: 'lovelace\ud800' }],
    ])('answers 401 InvalidCredentials to %s, and starts no session', async (_case, body) => {
      const { send, state } = setup();
      const response = await send('POST', '/auth/login', { body });

      expectError(response, 401, 'InvalidCredentials');
      expect(state.currentRefreshToken()).toBeNull();
    });

    it('answers 400 InvalidRequest with a detail per missing field', async () => {
      const { send } = setup();
      const response = await send('POST', '/auth/login', { body: {} });

      expectError(response, 400, 'InvalidRequest', [
        { target: 'username', message: 'is required' },
        { target: 'password', message: 'is required' },
      ]);
    });

    it('answers 400 InvalidRequest when a field is no string, or there is no body at all', async () => {
      const { send } = setup();
      const wrongType = await send('POST', '/auth/login', { body: { username: 'ada', password: 123 } });
      const noBody = await send('POST', '/auth/login');

      expectError(wrongType, 400, 'InvalidRequest', [{ target: 'password', message: 'must be a string' }]);
      expectError(noBody, 400, 'InvalidRequest', [
        { target: 'username', message: 'is required' },
        { target: 'password', message: 'is required' },
      ]);
    });

    it('answers 405 with Allow: POST to another method', async () => {
      const { send } = setup();
      const response = await send('GET', '/auth/login');

      expectError(response, 405, 'MethodNotAllowed');
      expect(response.headers.get('Allow')).toBe('POST');
    });
  });

  describe('POST /auth/refresh', () => {
    it('answers 200 with a new access token, rotates the refresh token and counts the call', async () => {
      const { send, state } = setup();
      const loginToken = await login(send, 'ada');
      const before = state.currentRefreshToken()?.value;
      const response = await send('POST', '/auth/refresh');

      expect(response.status).toBe(200);
      const accessToken = (bodyOf(response) as { accessToken: string }).accessToken;
      expect(Object.keys(bodyOf(response) as object)).toEqual(['accessToken']);
      expect(parseJwtClaims(accessToken)).toMatchObject({ sub: 'ada', role: 'admin', jti: '2' });
      expect(accessToken).not.toBe(loginToken);
      expect(state.currentRefreshToken()).toEqual({ value: expect.any(String), username: 'ada' });
      expect(state.currentRefreshToken()?.value).not.toBe(before);
      expect(state.refreshCalls()).toBe(1);
    });

    it('checks a refresh token sent in the body instead, returns the rotated one, and refuses the old one', async () => {
      const { send, state } = setup();
      await login(send, 'ada');
      const original = state.currentRefreshToken()?.value;
      const first = await send('POST', '/auth/refresh', { body: { refreshToken: original } });
      const rotated = (bodyOf(first) as { refreshToken: string }).refreshToken;
      const reused = await send('POST', '/auth/refresh', { body: { refreshToken: original } });

      expect(first.status).toBe(200);
      expect(bodyOf(first)).toEqual({ accessToken: expect.any(String), refreshToken: rotated });
      expect(rotated).toBe(state.currentRefreshToken()?.value);
      expect(rotated).not.toBe(original);
      expectError(reused, 401, 'InvalidRefreshToken');
      expect(state.refreshCalls()).toBe(2);
    });

    it('answers 401 InvalidRefreshToken to a body token it never issued, even with a valid "cookie"', async () => {
      const { send } = setup();
      await login(send, 'ada');
      const response = await send('POST', '/auth/refresh', { body: { refreshToken: 'made-up' } });

      expectError(response, 401, 'InvalidRefreshToken');
    });

    it('answers 400 InvalidRequest when the body token is no string', async () => {
      const { send, state } = setup();
      await login(send, 'ada');
      const response = await send('POST', '/auth/refresh', { body: { refreshToken: 42 } });

      expectError(response, 400, 'InvalidRequest', [{ target: 'refreshToken', message: 'must be a string' }]);
      expect(state.refreshCalls()).toBe(1);
    });

    it('answers 401 InvalidRefreshToken after revokeRefreshToken, and still counts the call', async () => {
      const { send, state } = setup();
      await login(send, 'ada');
      state.revokeRefreshToken();
      const response = await send('POST', '/auth/refresh');

      expectError(response, 401, 'InvalidRefreshToken');
      expect(state.refreshCalls()).toBe(1);
    });

    it('answers 401 InvalidRefreshToken without any session', async () => {
      const { send, state } = setup();
      const response = await send('POST', '/auth/refresh');

      expectError(response, 401, 'InvalidRefreshToken');
      expect(state.refreshCalls()).toBe(1);
    });

    it('answers 401 InvalidRefreshToken once the refresh token has expired, rotation or not', async () => {
      const { send, state } = setup();
      const now = jest.spyOn(Date, 'now').mockReturnValue(NOW_MS);
      state.refreshTokenLifetimeSeconds.set(60);
      await login(send, 'ada');
      now.mockReturnValue(NOW_MS + 59_000);
      const rotated = await send('POST', '/auth/refresh');
      now.mockReturnValue(NOW_MS + 60_000);
      const expired = await send('POST', '/auth/refresh');

      expect(rotated.status).toBe(200);
      expectError(expired, 401, 'InvalidRefreshToken');
      expect(state.currentRefreshToken()).toBeNull();
    });
  });

  describe('POST /auth/logout', () => {
    it('answers 204 and revokes the refresh token, so a refresh then fails with 401', async () => {
      const { send, state } = setup();
      await login(send, 'ada');
      const logout = await send('POST', '/auth/logout');
      const refresh = await send('POST', '/auth/refresh');

      expect(logout.status).toBe(204);
      expect(state.currentRefreshToken()).toBeNull();
      expectError(refresh, 401, 'InvalidRefreshToken');
    });

    it('answers 204 without a session too: signing out never fails', async () => {
      const { send } = setup();
      const response = await send('POST', '/auth/logout');

      expect(response.status).toBe(204);
    });
  });

  describe('access token of a users call', () => {
    it('lets a call with a valid token through', async () => {
      const { send } = setup();
      const token = await login(send, 'ada');
      const response = await send('GET', `${USERS}/1`, { token });

      expect(response.status).toBe(200);
    });

    it('answers 401 Unauthorized with WWW-Authenticate when there is none', async () => {
      const { send } = setup();
      const response = await send('GET', USERS);

      expectUnauthorized(response, 'Unauthorized');
    });

    it.each([
      ['another scheme', 'Basic YWRhOmxvdmVsYWNl'],
      ['a Bearer without token', 'Bearer '],
      ['a token that is no JWT', 'Bearer not-a-jwt'],
      ['a JWT whose payload is no JSON', 'Bearer eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln'],
    ])('answers 401 InvalidToken with WWW-Authenticate to %s', async (_case, authorization) => {
      const { send } = setup();
      const response = await send('GET', USERS, { headers: { Authorization: authorization } });

      expectUnauthorized(response, 'InvalidToken');
    });

    it('answers 401 InvalidToken to a token whose signature is not the backend’s', async () => {
      const { send } = setup();
      const [header, payload] = (await login(send, 'ada')).split('.');
      const response = await send('GET', USERS, { token: `${header}.${payload}.Zm9yZ2Vk` });

      expectUnauthorized(response, 'InvalidToken');
    });

    it('answers 401 InvalidToken to a token with another header (alg: none)', async () => {
      const { send } = setup();
      const [, payload, signature] = (await login(send, 'ada')).split('.');
      const none = btoa(JSON.stringify({ alg: 'none', typ: 'JWT' })).replace(/=+$/, '');
      const response = await send('GET', USERS, { token: `${none}.${payload}.${signature}` });

      expectUnauthorized(response, 'InvalidToken');
    });

    it('answers 401 TokenExpired from the second the token expires', async () => {
      const { send, state } = setup();
      const now = jest.spyOn(Date, 'now').mockReturnValue(NOW_MS);
      state.tokenLifetimeSeconds.set(5);
      const token = await login(send, 'ada');
      now.mockReturnValue(NOW_MS + 4_999);
      const stillValid = await send('GET', `${USERS}/1`, { token });
      now.mockReturnValue(NOW_MS + 5_000);
      const expired = await send('GET', `${USERS}/1`, { token });

      expect(stillValid.status).toBe(200);
      expectUnauthorized(expired, 'TokenExpired');
    });

    it('answers 401 TokenExpired to every token issued before expireAccessTokensNow, not to later ones', async () => {
      const { send, state } = setup();
      const old = await login(send, 'ada');
      state.expireAccessTokensNow();
      const fresh = await login(send, 'ada');

      expectUnauthorized(await send('GET', USERS, { token: old }), 'TokenExpired');
      expect((await send('GET', USERS, { token: fresh })).status).toBe(200);
    });

    it('accepts the access token a refresh returns after expireAccessTokensNow', async () => {
      const { send, state } = setup();
      await login(send, 'ada');
      state.expireAccessTokensNow();
      const refresh = await send('POST', '/auth/refresh');
      const token = (bodyOf(refresh) as { accessToken: string }).accessToken;

      expect((await send('GET', USERS, { token })).status).toBe(200);
    });
  });

  describe('GET /api/v1/users (list)', () => {
    it('answers a plain array of the 42 seeded users in id order without page and pageSize', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', USERS, { token });
      const users = bodyOf(response) as { id: number; name: string; email: string }[];

      expect(response.status).toBe(200);
      expect(users.map((user) => user.id)).toEqual(range(1, 42));
      expect(users[0]).toEqual({ id: 1, name: 'Ada Lovelace', email: 'ada.lovelace@example.com' });
      expect(new Set(users.map((user) => user.email.toLowerCase())).size).toBe(42);
      expect(users.every((user) => /^\S+@\S+\.\S+$/.test(user.email) && user.name.trim() === user.name)).toBe(true);
    });

    it('answers the envelope { data, pagination } for page and pageSize', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', USERS, { token, params: { page: 2, pageSize: 10 } });

      expect(response.status).toBe(200);
      expect(ids(response)).toEqual(range(11, 20));
      expect(pagination(response)).toEqual({ currentPage: 2, pageSize: 10, totalPages: 5, totalItems: 42 });
    });

    it('uses pageSize 10 when only page is given, and page 1 when only pageSize is', async () => {
      const { send, token } = await setupSignedIn();
      const onlyPage = await send('GET', USERS, { token, params: { page: 3 } });
      const onlySize = await send('GET', USERS, { token, params: { pageSize: 7 } });

      expect(ids(onlyPage)).toEqual(range(21, 30));
      expect(pagination(onlyPage)).toEqual({ currentPage: 3, pageSize: 10, totalPages: 5, totalItems: 42 });
      expect(ids(onlySize)).toEqual(range(1, 7));
      expect(pagination(onlySize)).toEqual({ currentPage: 1, pageSize: 7, totalPages: 6, totalItems: 42 });
    });

    it('answers the short last page, and an empty page with the right pagination past the end', async () => {
      const { send, token } = await setupSignedIn();
      const last = await send('GET', USERS, { token, params: { page: 5, pageSize: 10 } });
      const past = await send('GET', USERS, { token, params: { page: 6, pageSize: 10 } });

      expect(ids(last)).toEqual([41, 42]);
      expect(ids(past)).toEqual([]);
      expect(pagination(past)).toEqual({ currentPage: 6, pageSize: 10, totalPages: 5, totalItems: 42 });
    });

    it('allows a pageSize of 100 and answers 400 InvalidRequest (target pageSize) to 101', async () => {
      const { send, token } = await setupSignedIn();
      const largest = await send('GET', USERS, { token, params: { page: 1, pageSize: 100 } });
      const tooLarge = await send('GET', USERS, { token, params: { pageSize: 101 } });

      expect(ids(largest)).toEqual(range(1, 42));
      expect(pagination(largest)).toEqual({ currentPage: 1, pageSize: 100, totalPages: 1, totalItems: 42 });
      expectError(tooLarge, 400, 'InvalidRequest', [{ target: 'pageSize', message: 'must be at most 100' }]);
    });

    it.each([
      ['page', '0'],
      ['page', '-1'],
      ['page', '1.5'],
      ['page', 'abc'],
      ['page', ''],
      ['page', '1e2'],
      ['pageSize', '0'],
      ['pageSize', '2.0'],
      ['pageSize', ' 5'],
    ])('answers 400 InvalidRequest with target %s to %p', async (name, value) => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', USERS, { token, params: { [name]: value } });

      expectError(response, 400, 'InvalidRequest', [{ target: name, message: 'must be a whole number from 1' }]);
    });

    it('answers 400 InvalidRequest to a page given twice', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', `${USERS}?page=1&page=2`, { token });

      expectError(response, 400, 'InvalidRequest', [{ target: 'page', message: 'must be given once' }]);
    });
  });

  describe('GET /api/v1/users/{id}', () => {
    it('answers 200 with the user', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', `${USERS}/3`, { token });

      expect(bodyOf(response)).toEqual({ id: 3, name: 'Grace Hopper', email: 'grace.hopper@example.com' });
    });

    it.each(['abc', '0', '1.5', '-2', '01'])('answers 400 InvalidRequest with target id to the id %p', async (id) => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', `${USERS}/${id}`, { token });

      expectError(response, 400, 'InvalidRequest', [{ target: 'id', message: 'must be a whole number from 1' }]);
    });

    it('answers 404 NotFound to an id nobody has', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', `${USERS}/99`, { token });

      expectError(response, 404, 'NotFound');
    });
  });

  describe('POST /api/v1/users (create)', () => {
    it('answers 201 with the created user and Location, trims the name, and lists it last', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('POST', USERS, {
        token,
        body: { name: '  Grace Brewster  ', email: 'gb@example.com' },
      });
      const all = await send('GET', USERS, { token });

      expect(response.status).toBe(201);
      expect(bodyOf(response)).toEqual({ id: 43, name: 'Grace Brewster', email: 'gb@example.com' });
      expect(response.headers.get('Location')).toBe(`${USERS}/43`);
      expect((bodyOf(all) as unknown[]).at(-1)).toEqual(bodyOf(response));
    });

    it('never gives a deleted user’s id to a new one', async () => {
      const { send, token } = await setupSignedIn();
      await send('DELETE', `${USERS}/42`, { token });
      const response = await send('POST', USERS, { token, body: { name: 'New', email: 'new@example.com' } });

      expect(bodyOf(response)).toMatchObject({ id: 43 });
    });

    it('answers 400 InvalidRequest with a detail for each missing field', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('POST', USERS, { token, body: {} });

      expectError(response, 400, 'InvalidRequest', [
        { target: 'name', message: 'is required' },
        { target: 'email', message: 'is required' },
      ]);
    });

    it.each([
      ['a name that is no string', { name: 7, email: 'ok@example.com' }, 'name', 'must be a string'],
      ['a blank name', { name: '   ', email: 'ok@example.com' }, 'name', 'must not be empty'],
      [
        'a name of 101 characters',
        { name: 'n'.repeat(101), email: 'ok@example.com' },
        'name',
        'must be at most 100 characters long',
      ],
      ['an e-mail that is no string', { name: 'Ok', email: ['a@b.co'] }, 'email', 'must be a string'],
      ['an e-mail without @', { name: 'Ok', email: 'ok.example.com' }, 'email', 'is not a well-formed e-mail address'],
      [
        'an e-mail without domain dot',
        { name: 'Ok', email: 'ok@example' },
        'email',
        'is not a well-formed e-mail address',
      ],
      [
        'an e-mail with a space',
        { name: 'Ok', email: 'o k@example.com' },
        'email',
        'is not a well-formed e-mail address',
      ],
      [
        'an e-mail of 255 characters',
        { name: 'Ok', email: longEmail(255) },
        'email',
        'must be at most 254 characters long',
      ],
      [
        'an e-mail with a Cyrillic look-alike among Latin letters',
        { name: 'Ok', email: '\u0430da.lovelace@example.com' },
        'email',
        'must not mix Latin, Greek and Cyrillic letters',
      ],
      ['an id', { id: 5, name: 'Ok', email: 'ok@example.com' }, 'id', 'is assigned by the server; leave it out'],
    ])('answers 400 InvalidRequest to %s', async (_case, body, target, message) => {
      const { send, token } = await setupSignedIn();
      const response = await send('POST', USERS, { token, body });

      expectError(response, 400, 'InvalidRequest', [{ target, message }]);
    });

    it('accepts a name of exactly 100 characters and an e-mail of exactly 254', async () => {
      const { send, token } = await setupSignedIn();
      const email = longEmail(254);
      const response = await send('POST', USERS, { token, body: { name: 'n'.repeat(100), email } });

      expect(email).toHaveLength(254);
      expect(response.status).toBe(201);
    });

    it('answers 400 InvalidRequest to a body that is no JSON object', async () => {
      const { send, token } = await setupSignedIn();
      const array = await send('POST', USERS, { token, body: [] });
      const text = await send('POST', USERS, {
        token,
        body: '{not json',
        headers: { 'Content-Type': 'application/json' },
      });

      expectError(array, 400, 'InvalidRequest', [{ target: '', message: 'The body must be a JSON object.' }]);
      expectError(text, 400, 'InvalidRequest', [{ target: '', message: 'is not valid JSON' }]);
    });

    it('answers 415 UnsupportedMediaType to a body that is not sent as JSON, as the reference server does', async () => {
      const { send, token } = await setupSignedIn();
      const text = await send('POST', USERS, { token, body: '{"name":"Ok","email":"ok@example.com"}' });
      const put = await send('PUT', `${USERS}/1`, {
        token,
        body: { name: 'Ok', email: 'ok@example.com' },
        headers: { 'Content-Type': 'text/plain' },
      });

      expectError(text, 415, 'UnsupportedMediaType');
      expectError(put, 415, 'UnsupportedMediaType');
      expect(bodyOf(await send('GET', `${USERS}/1`, { token }))).toMatchObject({ name: 'Ada Lovelace' });
    });

    it('answers 400 InvalidRequest to an unknown field, as the reference server words it', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('POST', USERS, { token, body: { name: 'Ok', email: 'ok@example.com', extra: 1 } });

      expectError(response, 400, 'InvalidRequest', [{ target: 'extra', message: 'is not a known field' }]);
      expect(((response as HttpErrorResponse).error as { error: { message: string } }).error.message).toBe(
        'The request is not valid: extra is not a known field.',
      );
      expect(bodyOf(await send('GET', USERS, { token }))).toHaveLength(42);
    });

    it('lists at most 10 problems of a body, and says how many more there were', async () => {
      const { send, token } = await setupSignedIn();
      const body = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`k${i}`, i]));
      const response = await send('POST', USERS, { token, body });

      const error = ((response as HttpErrorResponse).error as { error: { message: string; details: unknown[] } }).error;
      expect(error.details).toHaveLength(10);
      expect(error.details[0]).toEqual({ target: 'name', message: 'is required' });
      expect(error.message).toMatch(/; and 6 more problems\.$/);
    });

    it('answers 409 Conflict (target email) to an address already taken, whatever its case', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('POST', USERS, { token, body: { name: 'Ada 2', email: 'ADA.Lovelace@Example.com' } });

      expectError(response, 409, 'Conflict', [{ target: 'email', message: 'is already taken' }]);
    });
  });

  describe('Unicode in names and e-mail addresses (the contract’s rules, as on the reference server)', () => {
    it.each([
      ['NFC and NFD', 'jos\u00e9@example.com', 'jose\u0301@example.com'],
      ['NFD and NFC', 'jose\u0301@example.com', 'jos\u00e9@example.com'],
      ['ASCII and fullwidth letters', 'jose@example.com', '\uff4a\uff4f\uff53\uff45@example.com'],
      ['lower and upper case beyond ASCII', 'jos\u00e9@example.com', 'JOS\u00c9@EXAMPLE.COM'],
      ['a look-alike: Latin alpha ɑ, small capital ᴀ', 'ada.x@example.com', '\u0251d\u1d00.x@example.com'],
      ['a look-alike: Armenian օ, Cherokee Ꭺ', 'ooa@example.com', '\u0585o\u13aa@example.com'],
      ['a look-alike: wholly Cyrillic', 'coco@example.com', '\u0441\u043e\u0441\u043e@example.com'],
    ])('answers 409 Conflict to one address written two ways (%s)', async (_case, first, second) => {
      const { send, token } = await setupSignedIn();
      const created = await send('POST', USERS, { token, body: { name: 'José', email: first } });
      const again = await send('POST', USERS, { token, body: { name: 'José 2', email: second } });

      expect(created.status).toBe(201);
      expectError(again, 409, 'Conflict', [{ target: 'email', message: 'is already taken' }]);
    });

    it('stores a fullwidth address in compatibility form, and a decomposed name composed, keeping the case', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('POST', USERS, {
        token,
        body: { name: 'Jose\u0301 Garci\u0301a', email: '\uff2a\uff4f\uff53\uff45\uff20example.com' },
      });

      expect(bodyOf(response)).toMatchObject({ name: 'Jos\u00e9 Garc\u00eda', email: 'Jose@example.com' });
    });

    it.each([
      ['a zero-width space in a name', { name: 'Ada\u200bLovelace', email: 'ok@example.com' }, 'name', 'U+200B'],
      ['a right-to-left override in a name', { name: 'Ada \u202eecalevol', email: 'ok@example.com' }, 'name', 'U+202E'],
      ['a byte-order mark inside a name', { name: 'Ada\ufeffLovelace', email: 'ok@example.com' }, 'name', 'U+FEFF'],
      [
        'a zero-width joiner between spaces',
        { name: 'Ada \u200d Lovelace', email: 'ok@example.com' },
        'name',
        'U+200D',
      ],
      ['a zero-width space in an e-mail', { name: 'Ok', email: 'ada\u200b@example.com' }, 'email', 'U+200B'],
      ['a zero-width joiner in an e-mail', { name: 'Ok', email: 'a\u200db@example.com' }, 'email', 'U+200D'],
      ['a right-to-left override in an e-mail', { name: 'Ok', email: '\u202emoc.elpmaxe@ada' }, 'email', 'U+202E'],
    ])('answers 400 InvalidRequest to %s', async (_case, body, target, codePoint) => {
      const { send, token } = await setupSignedIn();
      const response = await send('POST', USERS, { token, body });

      expectError(response, 400, 'InvalidRequest', [
        { target, message: `must not contain invisible characters (${codePoint})` },
      ]);
    });

    it.each([
      [
        'a control character',
        { name: 'Ada\u0007', email: 'ok@example.com' },
        'name',
        'must not contain control characters',
      ],
      ['a lone surrogate', { name: 'Ada \ud800', email: 'ok@example.com' }, 'name', 'must be valid Unicode text'],
      [
        'an e-mail with NUL',
        { name: 'Ok', email: 'ok\u0000@example.com' },
        'email',
        'is not a well-formed e-mail address',
      ],
    ])('answers 400 InvalidRequest to %s, as the reference server does', async (_case, body, target, message) => {
      const { send, token } = await setupSignedIn();
      const response = await send('POST', USERS, { token, body });

      expectError(response, 400, 'InvalidRequest', [{ target, message }]);
    });

    it.each([
      ['an emoji sequence', '\u{1f469}\u200d\u{1f4bb} Ada'],
      ['a Persian word with a non-joiner', '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645'],
      ['a flag of a subdivision', '\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f} Ada'],
    ])('accepts the joiners writing needs: %s', async (_case, name) => {
      const { send, token } = await setupSignedIn();
      const response = await send('POST', USERS, { token, body: { name, email: 'ok@example.com' } });

      expect(bodyOf(response)).toMatchObject({ name });
    });
  });

  describe('PUT /api/v1/users/{id} (replace)', () => {
    it('answers 204, stores the fields, and is idempotent', async () => {
      const { send, token } = await setupSignedIn();
      const body = { id: 5, name: 'Edsger W. Dijkstra', email: 'ewd@example.com' };
      const first = await send('PUT', `${USERS}/5`, { token, body });
      const second = await send('PUT', `${USERS}/5`, { token, body });
      const stored = await send('GET', `${USERS}/5`, { token });

      expect([first.status, second.status]).toEqual([204, 204]);
      expect(bodyOf(first)).toBeNull();
      expect(bodyOf(stored)).toEqual(body);
    });

    it('accepts a body without id, and the user’s own e-mail in another case', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('PUT', `${USERS}/1`, {
        token,
        body: { name: 'Ada', email: 'ADA.LOVELACE@example.com' },
      });

      expect(response.status).toBe(204);
    });

    it('answers 404 NotFound to an unknown id, creating nothing', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('PUT', `${USERS}/99`, { token, body: { name: 'Nobody', email: 'no@example.com' } });

      expectError(response, 404, 'NotFound');
      expectError(await send('GET', `${USERS}/99`, { token }), 404, 'NotFound');
    });

    it('checks the body before the id exists, as the reference server does: 400 before 404', async () => {
      const { send, token } = await setupSignedIn();
      const put = await send('PUT', `${USERS}/99`, { token, body: { name: 'Nobody' } });
      const patch = await send('PATCH', `${USERS}/99`, { token, body: { name: '' }, headers: MERGE_PATCH });

      expectError(put, 400, 'InvalidRequest', [{ target: 'email', message: 'is required' }]);
      expectError(patch, 400, 'InvalidRequest', [{ target: 'name', message: 'must not be empty' }]);
    });

    it('answers 400 InvalidRequest (target id) when the body’s id is not the path’s', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('PUT', `${USERS}/5`, { token, body: { id: 6, name: 'X', email: 'x@example.com' } });

      expectError(response, 400, 'InvalidRequest', [{ target: 'id', message: 'must match the id in the path (5)' }]);
    });

    it('answers 400 InvalidRequest to a missing field: a replace needs them all', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('PUT', `${USERS}/5`, { token, body: { name: 'Only a name' } });

      expectError(response, 400, 'InvalidRequest', [{ target: 'email', message: 'is required' }]);
    });

    it('answers 409 Conflict to another user’s e-mail', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('PUT', `${USERS}/5`, {
        token,
        body: { name: 'X', email: 'grace.hopper@example.com' },
      });

      expectError(response, 409, 'Conflict', [{ target: 'email', message: 'is already taken' }]);
    });
  });

  describe('PATCH /api/v1/users/{id} (JSON Merge Patch)', () => {
    it('changes only the given fields and answers 200 with the updated user', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('PATCH', `${USERS}/2`, {
        token,
        body: { name: ' Alan M. Turing ' },
        headers: MERGE_PATCH,
      });

      expect(response.status).toBe(200);
      expect(bodyOf(response)).toEqual({ id: 2, name: 'Alan M. Turing', email: 'alan.turing@example.com' });
      expect(bodyOf(await send('GET', `${USERS}/2`, { token }))).toEqual(bodyOf(response));
    });

    it('answers 415 UnsupportedMediaType without Content-Type: application/merge-patch+json', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('PATCH', `${USERS}/2`, { token, body: { name: 'X' } });

      expectError(response, 415, 'UnsupportedMediaType');
    });

    it('answers 404 NotFound to an unknown id', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('PATCH', `${USERS}/99`, { token, body: { name: 'X' }, headers: MERGE_PATCH });

      expectError(response, 404, 'NotFound');
    });

    it('answers 400 InvalidRequest to null (removing a required field) and to an invalid value', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('PATCH', `${USERS}/2`, {
        token,
        body: { name: null, email: 'bad' },
        headers: MERGE_PATCH,
      });

      expectError(response, 400, 'InvalidRequest', [
        { target: 'name', message: 'is required and cannot be removed' },
        { target: 'email', message: 'is not a well-formed e-mail address' },
      ]);
    });

    it('answers 409 Conflict to another user’s e-mail', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('PATCH', `${USERS}/2`, {
        token,
        body: { email: 'Ada.Lovelace@example.com' },
        headers: MERGE_PATCH,
      });

      expectError(response, 409, 'Conflict', [{ target: 'email', message: 'is already taken' }]);
    });
  });

  describe('DELETE /api/v1/users/{id}', () => {
    it('answers 204, after which the user is gone (404) and deleting again is 404', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('DELETE', `${USERS}/7`, { token });

      expect(response.status).toBe(204);
      expectError(await send('GET', `${USERS}/7`, { token }), 404, 'NotFound');
      expectError(await send('DELETE', `${USERS}/7`, { token }), 404, 'NotFound');
      expect(ids(await send('GET', USERS, { token, params: { pageSize: 100 } }))).toHaveLength(41);
    });
  });

  describe('roles', () => {
    it.each([
      ['POST', USERS, { name: 'X', email: 'x@example.com' }],
      ['PUT', `${USERS}/1`, { name: 'X', email: 'x@example.com' }],
      ['PATCH', `${USERS}/1`, { name: 'X' }],
      ['DELETE', `${USERS}/1`, null],
    ])('answers 403 Forbidden to a viewer’s %s, and changes nothing', async (method, url, body) => {
      const { send, token } = await setupSignedIn('alan');
      const response = await send(method, url, { token, body, headers: MERGE_PATCH });

      expectError(response, 403, 'Forbidden');
      expect(response.headers.get('WWW-Authenticate')).toBe('Bearer error="insufficient_scope"');
      expect(bodyOf(await send('GET', `${USERS}/1`, { token }))).toMatchObject({ name: 'Ada Lovelace' });
      expect(ids(await send('GET', USERS, { token, params: { pageSize: 100 } }))).toHaveLength(42);
    });

    it('lets a viewer read', async () => {
      const { send, token } = await setupSignedIn('alan');

      expect((await send('GET', USERS, { token })).status).toBe(200);
      expect((await send('GET', `${USERS}/1`, { token })).status).toBe(200);
    });
  });

  describe('versioning', () => {
    it('answers 404 NotFound with the error body to an unknown version in the path', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', '/api/v2/users', { token });

      expectError(response, 404, 'NotFound');
      expect((response as HttpErrorResponse).error.error.message).toContain('v2');
    });

    it('serves /api/users with Accept: application/vnd.showcase.v1+json, and says so in Content-Type', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', '/api/users', { token, headers: { Accept: V1 }, params: { page: 1 } });

      expect(response.status).toBe(200);
      expect(ids(response)).toEqual(range(1, 10));
      expect(response.headers.get('Content-Type')).toBe(V1);
    });

    it('answers a create on /api/users with Location under /api/users', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('POST', '/api/users', {
        token,
        headers: { Accept: V1 },
        body: { name: 'Via Accept', email: 'accept@example.com' },
      });

      expect(response.status).toBe(201);
      expect(response.headers.get('Location')).toBe('/api/users/43');
    });

    it('finds v1 among several media ranges with parameters', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', '/api/users/1', {
        token,
        headers: { Accept: `application/json;q=0.5, ${V1.toUpperCase()};q=1` },
      });

      expect(response.status).toBe(200);
    });

    it.each([
      ['an unknown version', 'application/vnd.showcase.v2+json'],
      ['plain JSON', 'application/json'],
      ['anything', '*/*'],
      [
        'version 1 refused with q=0 (RFC 9110 §12.4.2), as the reference server reads it',
        `${V1};q=0, application/json`,
      ],
    ])('answers 406 NotAcceptable with the error body on /api/users to %s', async (_case, accept) => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', '/api/users', { token, headers: { Accept: accept } });

      expectError(response, 406, 'NotAcceptable');
    });

    it('answers 406 NotAcceptable on /api/users without Accept', async () => {
      const { send, token } = await setupSignedIn();
      const response = await send('GET', '/api/users', { token });

      expectError(response, 406, 'NotAcceptable');
    });
  });

  describe('routing', () => {
    it('answers 404 NotFound with the error body to an unknown route', async () => {
      const { send, token } = await setupSignedIn();

      expectError(await send('GET', '/api/v1/orders', { token }), 404, 'NotFound');
      expectError(await send('GET', `${USERS}/1/friends`, { token }), 404, 'NotFound');
      expectError(await send('GET', 'https://elsewhere.example/api/v1/users', { token }), 404, 'NotFound');
    });

    it.each([
      ['DELETE', USERS, 'GET, POST'],
      ['POST', `${USERS}/1`, 'GET, PUT, PATCH, DELETE'],
      ['HEAD', USERS, 'GET, POST'],
      ['OPTIONS', `${USERS}/1`, 'GET, PUT, PATCH, DELETE'],
      ['PURGE', USERS, 'GET, POST'],
    ])('answers 405 MethodNotAllowed with the error body and Allow to %s %s', async (method, url, allow) => {
      const { send, token } = await setupSignedIn();
      const response = await send(method, url, { token });

      expectError(response, 405, 'MethodNotAllowed');
      expect(response.headers.get('Allow')).toBe(allow);
    });

    it('never runs the in-memory library’s own commands (commands/resetdb)', async () => {
      const { send, token } = await setupSignedIn();
      await send('DELETE', `${USERS}/1`, { token });
      const reset = await send('POST', '/commands/resetdb', { token });

      expectError(reset, 404, 'NotFound');
      expectError(await send('GET', `${USERS}/1`, { token }), 404, 'NotFound');
    });

    it('treats a trailing slash as the same resource', async () => {
      const { send, token } = await setupSignedIn();

      expect((await send('GET', `${USERS}/`, { token })).status).toBe(200);
    });
  });

  describe('inMemoryErrorAdapter', () => {
    it('hands the interceptors before it a real HttpErrorResponse with status, body, headers and url', async () => {
      const seen: unknown[] = [];
      const spy: HttpInterceptorFn = (request, next) =>
        next(request).pipe(tap({ error: (error: unknown) => seen.push(error) }));
      const { send } = setup([spy]);
      await send('GET', USERS);

      const error = seen[0] as HttpErrorResponse;
      expect(error).toBeInstanceOf(HttpErrorResponse);
      expect(error.status).toBe(401);
      expect(error.statusText).toBe('Unauthorized');
      expect(error.url).toBe(USERS);
      expect(error.headers.get('WWW-Authenticate')).toBe('Bearer');
      expect(error.error).toEqual({ error: { code: 'Unauthorized', message: expect.any(String) } });
    });

    it('is needed: without it the mock fails with a plain object, no HttpErrorResponse', async () => {
      TestBed.configureTestingModule({ providers: [provideHttpClient(), provideDemoBackend()] });
      const error = await firstValueFrom(TestBed.inject(HttpClient).get(USERS)).catch((failure: unknown) => failure);

      expect(error).not.toBeInstanceOf(HttpErrorResponse);
      expect(error).toMatchObject({ status: 401, body: { error: { code: 'Unauthorized' } } });
    });

    it('passes an error that is already an HttpErrorResponse, or no HTTP failure, unchanged', async () => {
      const httpError = new HttpErrorResponse({ status: 502 });
      // A thrown Error keeps its stack even when it has a status; an object without one is no answer.
      const bug = Object.assign(new TypeError('bug'), { status: 500 });
      const stranger = { reason: 'not an answer' };
      const run = (error: unknown) =>
        firstValueFrom(inMemoryErrorAdapter(new HttpRequest('GET', USERS), () => throwError(() => error))).catch(
          (failure: unknown) => failure,
        );

      expect(await run(httpError)).toBe(httpError);
      expect(await run(bug)).toBe(bug);
      expect(await run(stranger)).toBe(stranger);
    });
  });
});

interface SendOptions {
  readonly body?: unknown;
  readonly token?: string;
  readonly headers?: Record<string, string>;
  readonly params?: Record<string, string | number>;
}
type Send = (method: string, url: string, options?: SendOptions) => Promise<HttpResponse<unknown> | HttpErrorResponse>;

/** The showcase's wiring, with `before` in front of the demo interceptors and no latency. */
function setup(before: HttpInterceptorFn[] = []) {
  TestBed.configureTestingModule({
    providers: [provideHttpClient(withInterceptors([...before, ...demoBackendInterceptors])), provideDemoBackend()],
  });
  const state = TestBed.inject(DemoServerState);
  state.latencyMs.set(0);
  const http = TestBed.inject(HttpClient);
  const send: Send = (method, url, { body = null, token, headers = {}, params } = {}) => {
    const allHeaders = new HttpHeaders(token ? { ...headers, Authorization: `Bearer ${token}` } : headers);
    const request = http.request(method, url, { body, headers: allHeaders, params, observe: 'response' });
    return firstValueFrom(request).catch((error: unknown) => {
      if (error instanceof HttpErrorResponse) return error;
      throw error;
    });
  };
  return { send, state };
}

async function setupSignedIn(username: 'ada' | 'alan' = 'ada') {
  const context = setup();
  return { ...context, token: await login(context.send, username) };
}

async function login(send: Send, username: 'ada' | 'alan'): Promise<string> {
  const password = username === 'ada' ? 'lovelace' : 'turing';
  const response = await send('POST', '/auth/login', { body: { username, password } });
  return (response as HttpResponse<{ accessToken: string }>).body?.accessToken ?? '';
}

/** An error answer, as an HttpErrorResponse with the uniform body (`details` only when expected). */
function expectError(
  response: HttpResponse<unknown> | HttpErrorResponse,
  status: number,
  code: string,
  details?: { target: string; message: string }[],
) {
  expect(response).toBeInstanceOf(HttpErrorResponse);
  const error = response as HttpErrorResponse;
  expect({ status: error.status, body: error.error }).toEqual({
    status,
    body: { error: details ? { code, message: expect.any(String), details } : { code, message: expect.any(String) } },
  });
  expect((error.error as { error: { message: string } }).error.message.length).toBeGreaterThan(10);
}

/** A 401 with the challenge of RFC 6750 §3.1: no error code without a token, `invalid_token` for a bad one. */
function expectUnauthorized(response: HttpResponse<unknown> | HttpErrorResponse, code: string) {
  expectError(response, 401, code);
  expect(response.headers.get('WWW-Authenticate')).toBe(
    code === 'Unauthorized' ? 'Bearer' : 'Bearer error="invalid_token"',
  );
}

/** The body of a success (the test fails on an error answer). */
function bodyOf(response: HttpResponse<unknown> | HttpErrorResponse): unknown {
  expect(response).toBeInstanceOf(HttpResponse);
  return (response as HttpResponse<unknown>).body;
}

function ids(response: HttpResponse<unknown> | HttpErrorResponse): number[] {
  expect(response).toBeInstanceOf(HttpResponse);
  const body = (response as HttpResponse<unknown>).body;
  const users = (Array.isArray(body) ? body : (body as { data: { id: number }[] }).data) as { id: number }[];
  return users.map((user) => user.id);
}

function pagination(response: HttpResponse<unknown> | HttpErrorResponse): unknown {
  return ((response as HttpResponse<unknown>).body as { pagination: unknown }).pagination;
}

/** A well-formed address of `length` characters (254 or 255): labels stay within 63 characters. */
function longEmail(length: number): string {
  return `${'a'.repeat(64)}@${'b'.repeat(61 + length - 254)}.${'c'.repeat(61)}.${'d'.repeat(61)}.com`;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}
