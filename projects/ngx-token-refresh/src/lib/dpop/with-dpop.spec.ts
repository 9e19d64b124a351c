import {
  HttpBackend,
  HttpContext,
  HttpClient,
  HttpErrorResponse,
  HttpHeaders,
  HttpResponse,
  provideHttpClient,
  withInterceptors,
} from '@angular/common/http';
import { PLATFORM_ID, inject } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  DPOP_PROOF,
  type TokenRefreshEvent,
  SKIP_TOKEN_REFRESH,
  TokenRefreshError,
  injectDPoPKeyPair,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
  type TokenRefreshFeature,
  withDPoP,
  withProactiveRefresh,
  withServerSession,
} from 'ngx-token-refresh';
import { createTestJwt } from 'ngx-token-refresh/testing';
import { firstValueFrom } from 'rxjs';

import { ScriptedServer, athOf, claimsOf, useNodeWebCrypto, verify } from './dpop-proof.spec-helper';

// withDPoP with WebCrypto (Node's, which jsdom lacks) against a scripted server. jsdom has no
// IndexedDB either, so the key lives in the application's memory here; IndexedDB and several tabs are
// proven in Chromium.

const API = 'https://api.example.com/v1/items';
const TOKEN_URL = 'https://api.example.com/token';

const unauthorized = (headers: Record<string, string> = {}) =>
  new HttpErrorResponse({ status: 401, headers: new HttpHeaders(headers), url: API });

function setup(platform = 'browser', ...features: TokenRefreshFeature[]) {
  const server = new ScriptedServer();
  const failures: unknown[] = [];
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      { provide: HttpBackend, useValue: server.backend },
      { provide: PLATFORM_ID, useValue: platform },
      provideTokenRefresh(
        {
          refreshApiCall: () => inject(HttpClient).post(TOKEN_URL, 'grant_type=refresh_token', { observe: 'response' }),
          extractToken: (response) => (response.body as { access_token: string }).access_token,
          onRefreshFailure: (error) => failures.push(error),
          allowedOrigins: ['https://api.example.com'],
        },
        withDPoP(),
        ...features,
      ),
    ],
  });
  const state = TestBed.runInInjectionContext(() => injectTokenRefresh());
  const events: TokenRefreshEvent['type'][] = [];
  state.events.subscribe((event) => events.push(event.type));
  const http = TestBed.inject(HttpClient);
  const get = (url = API) => firstValueFrom(http.get(url));
  return { server, state, http, get, failures, events };
}

describe('withDPoP', () => {
  useNodeWebCrypto();

  it('sends the token as DPoP with a proof signed for the request: htm, htu without query and fragment, iat, jti, ath', async () => {
    const { server, state, get } = setup();
    state.setToken('access-1');
    const before = Math.floor(Date.now() / 1000);
    await get(`${API}?page=2#top`);
    const [request] = server.requests;
    expect(request!.headers.get('Authorization')).toBe('DPoP access-1');
    const { header, claims } = await verify(request!.headers.get('DPoP'));
    expect(header.typ).toBe('dpop+jwt');
    expect(header.alg).toBe('ES256');
    expect(Object.keys(header.jwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);
    expect(claims).toEqual({
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      htm: 'GET',
      htu: API,
      iat: expect.any(Number),
      ath: athOf('access-1'),
    });
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('signs every request anew with one key: a fresh jti each time, the same public key', async () => {
    const { server, state, http } = setup();
    state.setToken('access-1');
    await Promise.all([
      firstValueFrom(http.get(API)),
      firstValueFrom(http.post(API, {})),
      firstValueFrom(http.get(API)),
    ]);
    const proofs = await Promise.all(server.requests.map((request) => verify(request.headers.get('DPoP'))));
    expect(new Set(proofs.map((proof) => proof.claims.jti)).size).toBe(3);
    expect(new Set(proofs.map((proof) => JSON.stringify(proof.header.jwk))).size).toBe(1);
    // Signatures finish in any order, so the requests may leave in any order.
    expect(proofs.map((proof) => proof.claims.htm).sort()).toEqual(['GET', 'GET', 'POST']);
  });

  it('signs the refresh request with a proof without ath and without the access token', async () => {
    const { server, state, get } = setup();
    state.setToken('expired');
    server.answer = (request) =>
      request.url === TOKEN_URL
        ? new HttpResponse({ status: 200, body: { access_token: 'access-2' } })
        : request.headers.get('Authorization') === 'DPoP access-2'
          ? new HttpResponse({ status: 200, body: {} })
          : unauthorized();
    await get();
    const [refresh] = server.to(TOKEN_URL);
    expect(refresh!.headers.has('Authorization')).toBe(false);
    const { claims } = await verify(refresh!.headers.get('DPoP'));
    expect(claims.htm).toBe('POST');
    expect(claims.htu).toBe(TOKEN_URL);
    expect(claims.ath).toBeUndefined();
    const repeat = server.to(API).at(-1)!;
    expect((await verify(repeat.headers.get('DPoP'))).claims.ath).toBe(athOf('access-2'));
  });

  describe('nonces', () => {
    it("puts the nonce of any answer into the next proofs for that origin, and no other origin's", async () => {
      const { server, state, get } = setup();
      state.setToken('access-1');
      server.answer = (request) =>
        new HttpResponse({
          status: 200,
          body: {},
          headers: request.url.startsWith(API) ? new HttpHeaders({ 'DPoP-Nonce': 'n-1' }) : undefined,
          url: request.url,
        });
      await get();
      await get();
      // The app's own origin (a relative URL) gave none.
      await get('/local');
      const proofs = await Promise.all(server.requests.map((request) => verify(request.headers.get('DPoP'))));
      expect(proofs.map((proof) => proof.claims.nonce)).toEqual([undefined, 'n-1', undefined]);
      expect(proofs[2]!.claims.htu).toBe('http://localhost/local');
    });

    it('answers a 401 use_dpop_nonce challenge by sending the request once more with the nonce: no refresh', async () => {
      const { server, state, get, events } = setup();
      state.setToken('access-1');
      server.answer = (request) =>
        claimsOf(request).nonce === 'n-2'
          ? new HttpResponse({ status: 200, body: { ok: true } })
          : unauthorized({
              'WWW-Authenticate':
                'Bearer realm="x", DPoP realm="api", error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", algs="ES256"',
              'DPoP-Nonce': 'n-2',
            });
      await expect(get()).resolves.toEqual({ ok: true });
      expect(server.to(API)).toHaveLength(2);
      expect(server.to(TOKEN_URL)).toHaveLength(0);
      expect(events).not.toContain('refreshStarted');
    });

    it.each([
      [
        'RFC 6749 §5.2',
        { error: 'use_dpop_nonce', error_description: 'Authorization server requires nonce in DPoP proof' },
      ],
      ['the reference server', { error: { code: 'use_dpop_nonce', message: 'Send the proof again with the nonce.' } }],
    ])(
      "answers the token endpoint's 400 use_dpop_nonce (%s) by sending the refresh once more with the nonce",
      async (_shape, challenge) => {
        const { server, state, get, failures } = setup();
        state.setToken('expired');
        server.answer = (request) => {
          if (request.url !== TOKEN_URL) {
            return request.headers.get('Authorization') === 'DPoP access-2'
              ? new HttpResponse({ status: 200, body: {} })
              : unauthorized();
          }
          return claimsOf(request).nonce === 'n-3'
            ? new HttpResponse({ status: 200, body: { access_token: 'access-2' } })
            : new HttpErrorResponse({
                status: 400,
                error: JSON.stringify(challenge),
                headers: new HttpHeaders({ 'DPoP-Nonce': 'n-3' }),
                url: TOKEN_URL,
              });
        };
        await get();
        expect(server.to(TOKEN_URL)).toHaveLength(2);
        expect(failures).toEqual([]);
        expect(state.token()).toBe('access-2');
      },
    );

    it('answers a challenge once: a second one in a row reaches the caller (no loop)', async () => {
      const { server, state, get } = setup();
      state.setToken('access-1');
      let nonce = 0;
      server.answer = (request) =>
        request.url === TOKEN_URL
          ? new HttpResponse({ status: 200, body: { access_token: 'access-2' } })
          : unauthorized({ 'WWW-Authenticate': 'DPoP error="use_dpop_nonce"', 'DPoP-Nonce': `n-${++nonce}` });
      await expect(get()).rejects.toMatchObject({ status: 401 });
      // Two tries with a nonce challenge each, a refresh for the 401 that remained, two more tries.
      expect(server.to(API)).toHaveLength(4);
      expect(server.to(TOKEN_URL)).toHaveLength(1);
    });

    it('a refresh and a nonce challenge at the same moment both end well', async () => {
      const { server, state, http } = setup();
      state.setToken('access-1');
      server.answer = (request) => {
        if (request.url === TOKEN_URL) return new HttpResponse({ status: 200, body: { access_token: 'access-2' } });
        if (request.url.endsWith('/nonce') && claimsOf(request).nonce !== 'n-1') {
          return unauthorized({ 'WWW-Authenticate': 'DPoP error="use_dpop_nonce"', 'DPoP-Nonce': 'n-1' });
        }
        return request.headers.get('Authorization') === 'DPoP access-2' || request.url.endsWith('/nonce')
          ? new HttpResponse({ status: 200, body: request.url })
          : unauthorized({ 'WWW-Authenticate': 'DPoP error="invalid_token"' });
      };
      const results = await Promise.all([
        firstValueFrom(http.get(`${API}/nonce`)),
        firstValueFrom(http.get(`${API}/expired`)),
      ]);
      expect(results).toEqual([`${API}/nonce`, `${API}/expired`]);
      expect(server.to(TOKEN_URL)).toHaveLength(1);
    });
  });

  it('with withProactiveRefresh(), refreshes ahead of expiry with a proof without ath, and no call meets a 401', async () => {
    const realTimeout = globalThis.setTimeout;
    jest.useFakeTimers();
    try {
      const { server, state, get, events } = setup('browser', withProactiveRefresh());
      const issue = () => {
        const iat = Math.floor(Date.now() / 1000);
        return createTestJwt({ iat, exp: iat + 60 });
      };
      let current = issue();
      server.answer = (request) => {
        if (request.url === TOKEN_URL)
          return new HttpResponse({ status: 200, body: { access_token: (current = issue()) } });
        return request.headers.get('Authorization') === `DPoP ${current}`
          ? new HttpResponse({ status: 200, body: {} })
          : unauthorized();
      };
      state.setToken(current);
      const first = current;
      await jest.advanceTimersByTimeAsync(59_000);
      // The proof is signed by WebCrypto, off the fake clock: let it finish.
      for (let turn = 0; turn < 200 && state.token() === first; turn++)
        await new Promise((resolve) => realTimeout(resolve, 5));

      expect(state.token()).not.toBe(first);
      const [refresh] = server.to(TOKEN_URL);
      expect(refresh!.headers.has('Authorization')).toBe(false);
      expect((await verify(refresh!.headers.get('DPoP'))).claims.ath).toBeUndefined();
      await get();
      const call = server.to(API).at(-1)!;
      expect((await verify(call.headers.get('DPoP'))).claims.ath).toBe(athOf(current));
      expect(server.to(TOKEN_URL)).toHaveLength(1);
      expect(events).not.toContain('requestQueued');
    } finally {
      jest.useRealTimers();
    }
  });

  it('lets a request with SKIP_TOKEN_REFRESH by untouched (no token, no proof), unless DPOP_PROOF asks for a proof', async () => {
    const { server, state, http } = setup();
    state.setToken('access-1');
    const skip = new HttpContext().set(SKIP_TOKEN_REFRESH, true);
    await firstValueFrom(http.get(API, { context: skip }));
    expect(server.requests[0]!.headers.has('DPoP')).toBe(false);
    expect(server.requests[0]!.headers.has('Authorization')).toBe(false);

    // A sign-in of the app's own: a proof without a token; its nonce challenge answered once.
    server.answer = (request) =>
      claimsOf(request).nonce === 'n-1'
        ? new HttpResponse({ status: 200, body: {} })
        : new HttpErrorResponse({
            status: 400,
            error: { error: 'use_dpop_nonce' },
            headers: new HttpHeaders({ 'DPoP-Nonce': 'n-1' }),
            url: request.url,
          });
    await firstValueFrom(http.post(TOKEN_URL, 'x', { context: skip.set(DPOP_PROOF, true) }));
    const [first, repeat] = server.to(TOKEN_URL);
    expect(repeat!.headers.has('Authorization')).toBe(false);
    const { claims } = await verify(repeat!.headers.get('DPoP'));
    expect(claims).toMatchObject({ htm: 'POST', htu: TOKEN_URL, nonce: 'n-1' });
    expect(claims.ath).toBeUndefined();
    expect(claimsOf(first!).nonce).toBeUndefined();
  });

  it('signs a request with DPOP_PROOF sent while there is no token, even without SKIP_TOKEN_REFRESH', async () => {
    const { server, http } = setup();
    await firstValueFrom(http.post(API, {}, { context: new HttpContext().set(DPOP_PROOF, true) }));
    await firstValueFrom(http.get(API));
    const [asked, plain] = server.requests;
    expect(asked!.headers.has('Authorization')).toBe(false);
    expect((await verify(asked!.headers.get('DPoP'))).claims).toMatchObject({ htm: 'POST', htu: API });
    expect(plain!.headers.has('DPoP')).toBe(false);
  });

  it('injectDPoPKeyPair gives the pair the proofs are signed with', async () => {
    const { server, state, get } = setup();
    const pair = await TestBed.runInInjectionContext(() => injectDPoPKeyPair());
    expect(pair.privateKey.extractable).toBe(false);
    state.setToken('access-1');
    await get();
    const { header } = await verify(server.requests[0]!.headers.get('DPoP'));
    const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
    expect(header.jwk).toEqual({ crv, kty, x, y });
  });

  it('on the server, a request that would carry the token and a refresh fail with NoKey, once, and nothing is sent', async () => {
    const { server, state, get, failures } = setup('server');
    state.setToken('access-1');
    await expect(get()).rejects.toMatchObject({ code: 'NoKey' });
    expect(server.requests).toEqual([]);
    await expect(firstValueFrom(state.refresh())).rejects.toBeInstanceOf(TokenRefreshError);
    expect(failures).toHaveLength(1);
    expect(server.requests).toEqual([]);
  });

  it('rejects a wrong name, and withServerSession() alongside, in dev mode', () => {
    expect(() => withDPoP({ name: '' })).toThrow(/name must be a non-empty string/);
    expect(() =>
      provideTokenRefresh({ refreshApiCall: () => [], extractToken: () => '' }, withDPoP(), withServerSession()),
    ).toThrow(/withDPoP\(\) and withServerSession\(\)/);
    TestBed.configureTestingModule({ providers: [] });
    expect(() => TestBed.runInInjectionContext(() => injectDPoPKeyPair())).toThrow(/needs withDPoP\(\)/);
  });
});
