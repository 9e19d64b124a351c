import {
  HttpClient,
  type HttpInterceptorFn,
  type HttpResponse,
  provideHttpClient,
  withInterceptors,
} from '@angular/common/http';
import {
  DOCUMENT,
  type EnvironmentInjector,
  type EnvironmentProviders,
  Injectable,
  type Provider,
  inject,
} from '@angular/core';
import { type KeyPair, generateKeyPair, generateProof } from 'dpop';
import type * as NgxTokenRefresh from 'ngx-token-refresh';
import { from, switchMap } from 'rxjs';

import { REFRESH_URL } from './urls';

// The DPoP suite's contenders. This file runs in Node (the bench's workers) and in Chromium (the page of
// bench/browser/), so it takes the compiled library as an argument and uses no API of only one of them.

export const DPOP_CONTENDER_IDS = ['ntr-bearer', 'ntr-dpop', 'dpop-package'] as const;

export type DPoPContenderId = (typeof DPOP_CONTENDER_IDS)[number];

export interface DPoPContender {
  readonly id: DPoPContenderId;
  /** The scheme of the `Authorization` header it sends. */
  readonly scheme: 'Bearer' | 'DPoP';
  /** The application's providers, `provideHttpClient(...)` included. */
  providers(): (Provider | EnvironmentProviders)[];
  /** Signs the application in with `token` (or hands it a new one), the way its users would. */
  login(injector: EnvironmentInjector, token: string): void;
}

/** Where the hand-written interceptor keeps the access token: in memory, in a root service. */
@Injectable({ providedIn: 'root' })
export class DPoPSession {
  token: string | null = null;
}

/**
 * The hand-written interceptor's key pair: P-256, the private key not extractable, made once per
 * application (a team would also keep it in IndexedDB, which is not a cost per request).
 */
@Injectable({ providedIn: 'root' })
export class DPoPKeyPair {
  readonly pair: Promise<KeyPair> = generateKeyPair('ES256');
}

/**
 * DPoP without ngx-token-refresh, as a team would write it with panva's `dpop` package (its README's
 * `generateProof(keyPair, htu, htm, nonce, accessToken)`): one proof per request, for the URL without
 * query and fragment. No nonce handling (ngx-token-refresh's transport keeps the server's nonces, reads
 * `DPoP-Nonce` on every answer and answers `use_dpop_nonce` challenges: that is in its figures).
 */
export const dpopPackageInterceptor: HttpInterceptorFn = (request, next) => {
  const token = inject(DPoPSession).token;
  if (token === null) return next(request);
  const url = new URL(request.url, inject(DOCUMENT).baseURI);
  const proof = inject(DPoPKeyPair).pair.then((pair) =>
    generateProof(pair, `${url.origin}${url.pathname}`, request.method, undefined, token),
  );
  return from(proof).pipe(
    switchMap((dpop) => next(request.clone({ setHeaders: { Authorization: `DPoP ${token}`, DPoP: dpop } }))),
  );
};

/** The DPoP suite's contenders, with `lib` the compiled ngx-token-refresh (its FESM, as applications get it). */
export function dpopContenders(lib: typeof NgxTokenRefresh): Readonly<Record<DPoPContenderId, DPoPContender>> {
  const options: NgxTokenRefresh.TokenRefreshOptions = {
    refreshApiCall: () => inject(HttpClient).post(REFRESH_URL, null, { observe: 'response' }),
    extractToken: (response: HttpResponse<unknown>) => (response.body as { accessToken: string }).accessToken,
    attachToken: true,
  };
  const setToken = (injector: EnvironmentInjector, token: string) =>
    lib.injectTokenRefresh({ injector }).setToken(token);
  return {
    'ntr-bearer': {
      id: 'ntr-bearer',
      scheme: 'Bearer',
      providers: () => [
        provideHttpClient(withInterceptors([lib.tokenRefreshInterceptor])),
        lib.provideTokenRefresh(options),
      ],
      login: setToken,
    },
    'ntr-dpop': {
      id: 'ntr-dpop',
      scheme: 'DPoP',
      providers: () => [
        provideHttpClient(withInterceptors([lib.tokenRefreshInterceptor])),
        lib.provideTokenRefresh(options, lib.withDPoP()),
      ],
      login: setToken,
    },
    'dpop-package': {
      id: 'dpop-package',
      scheme: 'DPoP',
      providers: () => [provideHttpClient(withInterceptors([dpopPackageInterceptor]))],
      login: (injector, token) => void (injector.get(DPoPSession).token = token),
    },
  };
}

/** Names in the tables. */
export const DPOP_LABELS: Readonly<Record<DPoPContenderId | 'sign', string>> = {
  'ntr-bearer': 'ngx-token-refresh, Bearer (the baseline)',
  'ntr-dpop': 'ngx-token-refresh + `withDPoP()`',
  'dpop-package': '`dpop` 2 (panva) `generateProof`, hand-written interceptor',
  sign: '`crypto.subtle.sign` ES256 alone (the floor)',
};

/** How each is wired, for the tables (bench/src/contenders/dpop.ts). */
export const DPOP_WIRING: Readonly<Record<DPoPContenderId | 'sign', string>> = {
  'ntr-bearer':
    '`provideTokenRefresh({ refreshApiCall, extractToken, attachToken: true })` + `tokenRefreshInterceptor`',
  'ntr-dpop':
    '`provideTokenRefresh(options, withDPoP())` + `tokenRefreshInterceptor`: key in IndexedDB (in Node: in memory, there is none), one signature per request, `ath` cached per token',
  'dpop-package':
    "`withInterceptors([dpopPackageInterceptor])`: `from(generateProof(keyPair, htu, request.method, undefined, token))` + `switchMap(next)`; key pair from `generateKeyPair('ES256')`, made once",
  sign: "`await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, bytes)` in a loop, on bytes the size of a proof's signing input: the floor of any DPoP client",
};
