import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { type TestServer, api, post, readCookie, setCookieHeader, startTestServer } from './start-test-server.js';

// REFRESH_COOKIE_PATH=/ (issue 25): for apps that render on the server, whose page requests must carry
// the refresh cookie so a render can refresh. With Path=/ the cookie can take the __Host- prefix,
// which no other host (a sibling subdomain over HTTPS included) can set.

const HOST_NAME = '__Host-refreshToken';

describe('REFRESH_COOKIE_PATH=/ (apps that render on the server)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { REFRESH_COOKIE_PATH: '/' } });
  });
  after(() => server.close());

  it('sets __Host-refreshToken with Path=/, Secure, HttpOnly, SameSite=Strict and no Domain', async () => {
    const response = await post(server, '/auth/login', { username: 'ada', password: 'lovelace' });

    const header = setCookieHeader(response, HOST_NAME) ?? '';
    assert.match(header, /^__Host-refreshToken=[A-Za-z0-9_-]{70}; /);
    assert.deepEqual(header.split('; ').slice(1).sort(), [
      'HttpOnly',
      'Max-Age=604800',
      'Path=/',
      'SameSite=Strict',
      'Secure',
    ]);
    assert.equal(setCookieHeader(response, '__Secure-refreshToken'), null);
  });

  it('rotates with that cookie, sets it again with Path=/, and refuses the __Secure- name', async () => {
    const login = await post(server, '/auth/login', { username: 'ada', password: 'lovelace' });
    const token = readCookie(login, HOST_NAME) ?? '';

    const refresh = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { Cookie: `${HOST_NAME}=${token}` },
    });
    assert.equal(refresh.status, 200);
    const rotated = readCookie(refresh, HOST_NAME) ?? '';
    assert.match(rotated, /^[A-Za-z0-9_-]{70}$/);
    assert.notEqual(rotated, token);
    assert.match(setCookieHeader(refresh, HOST_NAME) ?? '', /; Path=\/(;|$)/);

    const otherName = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { Cookie: `__Secure-refreshToken=${rotated}` },
    });
    assert.equal(otherName.status, 401);
  });

  it('ends the session on logout with the cookie alone (it now reaches /auth/logout) and clears it at Path=/', async () => {
    const login = await post(server, '/auth/login', { username: 'ada', password: 'lovelace' });
    const token = readCookie(login, HOST_NAME) ?? '';

    const logout = await fetch(`${server.url}/auth/logout`, {
      method: 'POST',
      headers: { Cookie: `${HOST_NAME}=${token}` },
    });

    assert.equal(logout.status, 204);
    assert.match(setCookieHeader(logout, HOST_NAME) ?? '', /^__Host-refreshToken=; Max-Age=0; Path=\/;/);
    const again = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { Cookie: `${HOST_NAME}=${token}` },
    });
    assert.equal(again.status, 401);
  });

  it('takes no notice of the cookie on API calls: they need the bearer token', async () => {
    const login = await post(server, '/auth/login', { username: 'ada', password: 'lovelace' });
    const token = readCookie(login, HOST_NAME) ?? '';

    const withCookieOnly = await fetch(`${server.url}/api/v1/users`, { headers: { Cookie: `${HOST_NAME}=${token}` } });
    assert.equal(withCookieOnly.status, 401);
    const { accessToken } = (await login.json()) as { accessToken: string };
    assert.equal((await api(server, 'GET', '/api/v1/users', accessToken)).status, 200);
  });

  it('uses the plain name with Path=/ when COOKIE_SECURE=false', async () => {
    const plain = await startTestServer({ env: { REFRESH_COOKIE_PATH: '/', COOKIE_SECURE: 'false' } });
    try {
      const response = await post(plain, '/auth/login', { username: 'ada', password: 'lovelace' });
      assert.match(setCookieHeader(response, 'refreshToken') ?? '', /^refreshToken=[A-Za-z0-9_-]{70}; .*Path=\/(;|$)/);
      assert.doesNotMatch(setCookieHeader(response, 'refreshToken') ?? '', /Secure/);
    } finally {
      await plain.close();
    }
  });
});
