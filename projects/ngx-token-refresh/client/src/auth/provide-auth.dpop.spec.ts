import {
  HttpBackend,
  HttpErrorResponse,
  HttpHeaders,
  HttpResponse,
  provideHttpClient,
  withInterceptors,
} from '@angular/common/http';
import { PLATFORM_ID } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { tokenRefreshInterceptor, withDPoP, withNoCrossTabSync } from 'ngx-token-refresh';
import { ApiError, AuthClient, UsersService, provideAuth } from 'ngx-token-refresh/client';
import { firstValueFrom } from 'rxjs';

import {
  ScriptedServer,
  athOf,
  claimsOf,
  useNodeWebCrypto,
  verify,
} from '../../../src/lib/dpop/dpop-proof.spec-helper';

// provideAuth with withDPoP(): the sign-in binds the session to the browser's key, so it must carry a
// proof; the sign-out carries the DPoP token with its proof. Against a scripted server that answers
// as the reference server does with DPOP=required.

const ORIGIN = `${location.protocol}//${location.host}`;

function setup(platform = 'browser', dpop = true) {
  const server = new ScriptedServer();
  server.answer = (request) => {
    if (request.url === '/auth/login' || request.url === '/auth/refresh') {
      return new HttpResponse({ status: 200, body: { accessToken: `token-${server.requests.length}` } });
    }
    return new HttpResponse({ status: request.url === '/auth/logout' ? 204 : 200, body: [] });
  };
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      { provide: HttpBackend, useValue: server.backend },
      { provide: PLATFORM_ID, useValue: platform },
      provideAuth({ baseUrl: '/auth' }, withNoCrossTabSync(), ...(dpop ? [withDPoP()] : [])),
    ],
  });
  return { server, auth: TestBed.inject(AuthClient), users: TestBed.inject(UsersService) };
}

const signIn = (auth: AuthClient) =>
  firstValueFrom(auth.login({ username: 'ada', password: 'secret' }), { defaultValue: undefined });

describe('provideAuth with withDPoP()', () => {
  useNodeWebCrypto();
  afterEach(() => sessionStorage.clear());

  it('signs in with a proof for the login call (no token, no ath), then calls the API with that key', async () => {
    const { server, auth, users } = setup();
    await signIn(auth);
    const [login] = server.to('/auth/login');
    expect(login!.headers.has('Authorization')).toBe(false);
    const proof = await verify(login!.headers.get('DPoP'));
    expect(proof.claims).toEqual({
      jti: expect.any(String),
      htm: 'POST',
      htu: `${ORIGIN}/auth/login`,
      iat: expect.any(Number),
    });
    expect(login!.body).toEqual({ username: 'ada', password: 'secret' });

    await firstValueFrom(users.list());
    const call = server.requests.at(-1)!;
    expect(call.headers.get('Authorization')).toBe(`DPoP ${auth.accessToken()}`);
    const callProof = await verify(call.headers.get('DPoP'));
    expect(callProof.claims.ath).toBe(athOf(auth.accessToken()!));
    expect(callProof.header.jwk).toEqual(proof.header.jwk);
  });

  it("answers the login's nonce challenge once, with the server's nonce, and signs in", async () => {
    const { server, auth } = setup();
    const answer = server.answer;
    server.answer = (request) =>
      request.url === '/auth/login' && claimsOf(request).nonce !== 'n-1'
        ? new HttpErrorResponse({
            status: 400,
            error: { error: { code: 'use_dpop_nonce', message: 'Use the nonce.' } },
            headers: new HttpHeaders({ 'DPoP-Nonce': 'n-1' }),
            url: request.url,
          })
        : answer(request);
    await signIn(auth);
    const logins = server.to('/auth/login');
    expect(logins.map((request) => claimsOf(request).nonce)).toEqual([undefined, 'n-1']);
    expect(new Set(logins.map((request) => claimsOf(request).jti)).size).toBe(2);
    expect(auth.isAuthenticated()).toBe(true);
  });

  it('signs out with the DPoP token and a proof with its ath, after clearing the session', async () => {
    const { server, auth } = setup();
    await signIn(auth);
    const token = auth.accessToken()!;
    await firstValueFrom(auth.logout(), { defaultValue: undefined });
    expect(auth.isAuthenticated()).toBe(false);
    const [logout] = server.to('/auth/logout');
    expect(logout!.headers.get('Authorization')).toBe(`DPoP ${token}`);
    const { claims } = await verify(logout!.headers.get('DPoP'));
    expect(claims).toMatchObject({ htm: 'POST', htu: `${ORIGIN}/auth/logout`, ath: athOf(token) });
  });

  it('refreshes with a proof without ath (the refresh cookie is bound to the key)', async () => {
    const { server, auth } = setup();
    expect(await firstValueFrom(auth.restoreSession())).toBe(true);
    const [refresh] = server.to('/auth/refresh');
    expect(refresh!.headers.has('Authorization')).toBe(false);
    const { claims } = await verify(refresh!.headers.get('DPoP'));
    expect(claims.htu).toBe(`${ORIGIN}/auth/refresh`);
    expect(claims.ath).toBeUndefined();
  });

  it('on the server there is no key: the login fails with ApiError NoKey and nothing is sent', async () => {
    const { server, auth } = setup('server');
    const error = await signIn(auth).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, code: 'NoKey' });
    expect(server.requests).toEqual([]);
    expect(auth.isAuthenticated()).toBe(false);
  });

  it('without withDPoP(), the login carries no proof and the logout a Bearer token', async () => {
    const { server, auth } = setup('browser', false);
    await signIn(auth);
    const token = auth.accessToken()!;
    await firstValueFrom(auth.logout(), { defaultValue: undefined });
    const [login] = server.to('/auth/login');
    const [logout] = server.to('/auth/logout');
    expect(login!.headers.has('DPoP')).toBe(false);
    expect(login!.headers.has('Authorization')).toBe(false);
    expect(logout!.headers.get('Authorization')).toBe(`Bearer ${token}`);
    expect(logout!.headers.has('DPoP')).toBe(false);
  });
});
