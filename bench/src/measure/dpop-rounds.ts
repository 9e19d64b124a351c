import { HttpBackend, HttpClient } from '@angular/common/http';
import {
  DOCUMENT,
  type EnvironmentInjector,
  PLATFORM_ID,
  createEnvironmentInjector,
  createPlatformFactory,
  getPlatform,
  platformCore,
  provideZonelessChangeDetection,
  ɵINJECTOR_SCOPE as INJECTOR_SCOPE,
} from '@angular/core';
import type * as NgxTokenRefresh from 'ngx-token-refresh';

import { type DPoPContender, type DPoPContenderId, dpopContenders } from '../contenders/dpop';
import { API_URL } from '../contenders/urls';
import { DPoPBackend } from '../harness/dpop-backend';

// The DPoP suite's measurements, the same code in a Node worker (measure/dpop.ts) and in Chromium's page
// (bench/browser/): one application per contender, requests one at a time or several at once, timed with
// performance.now(). No API of only one of the two environments.

/** What is measured: a contender, or `sign`, the raw signature alone. */
export type DPoPSubjectId = DPoPContenderId | 'sign';

/** Requests sent at once in the rounds that measure throughput (a page that loads a few things at once). */
export const DPOP_PARALLEL = 10;

/** Calls of `crypto.subtle` for a number of requests. */
export interface CryptoCalls {
  readonly sign: number;
  readonly digest: number;
  readonly exportKey: number;
  /** generateKey, importKey, verify, ... */
  readonly other: number;
}

/** What a subject reports once it is set up, before the timed rounds. */
export interface DPoPSubjectReady {
  readonly subject: DPoPSubjectId;
  /** The `Authorization` header the backend received, the token shortened (null for `sign`). */
  readonly authorization: string | null;
  /** Problems found in two proofs of the first requests (empty: valid), or null without DPoP. */
  readonly proofProblems: readonly string[] | null;
  /** Length of a proof (the `DPoP` header), in characters. */
  readonly proofLength: number | null;
  /**
   * The key of a second application in the same page is the one the first stored (ngx-token-refresh:
   * IndexedDB); null when not looked at (every subject but ngx-token-refresh's DPoP).
   */
  readonly keyReloaded: boolean | null;
  /** `crypto.subtle` calls for CALLS_COUNTED requests with one token, then as many after a new token. */
  readonly calls: { readonly sameToken: CryptoCalls; readonly newToken: CryptoCalls } | null;
}

/** Requests whose `crypto.subtle` calls are counted, with one token and after a new one. */
export const CALLS_COUNTED = 100;

/** Bytes signed by `sign`: about a proof's signing input (header and claims, base64url). */
const SIGNING_INPUT_BYTES = 400;

const ES256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ES256_SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;

export interface DPoPSubject {
  readonly ready: DPoPSubjectReady;
  /** Sends requests for about `ms`, `parallel` at a time (each batch awaited), and says how many and how long. */
  round(parallel: number, ms: number): Promise<{ requests: number; ms: number }>;
  destroy(): void;
}

/**
 * Sets up `subject` with the compiled library `lib`, in a page whose `DOCUMENT` is `document` (the real
 * one in Chromium, a stub in Node): signs in, checks the first proofs, counts the `crypto.subtle` calls.
 */
export async function startDPoPSubject(
  subject: DPoPSubjectId,
  lib: typeof NgxTokenRefresh,
  document: unknown,
): Promise<DPoPSubject> {
  if (subject === 'sign') return startSign();
  const contender = dpopContenders(lib)[subject];
  let keyReloaded: boolean | null = null;
  if (subject === 'ntr-dpop') {
    // An earlier application of the same page (a reload, another tab) made the key and stored it.
    const first = createApp(contender, document);
    await request(first.http);
    const thumbprint = await jwkThumbprint(first.backend.lastProof);
    first.destroy();
    const second = createApp(contender, document);
    await request(second.http);
    keyReloaded = thumbprint === (await jwkThumbprint(second.backend.lastProof));
    second.destroy();
  }
  const app = createApp(contender, document);
  const { http, backend } = app;
  const htu = new URL(API_URL, (document as { baseURI: string }).baseURI).href;
  // The first request makes (or loads) the key; the next two must carry two different valid proofs.
  await request(http);
  await request(http);
  const firstProof = backend.lastProof;
  await request(http);
  const proofProblems =
    contender.scheme === 'DPoP'
      ? [
          ...(await checkProof(firstProof, htu, backend.token)),
          ...(await checkProof(backend.lastProof, htu, backend.token)),
          ...(firstProof === backend.lastProof ? ['two requests carried the same proof'] : []),
        ]
      : null;
  const proofLength = backend.lastProof?.length ?? null;
  const sameToken = await countCalls(() => requests(http, CALLS_COUNTED));
  contender.login(app.injector, backend.issueToken());
  const newToken = await countCalls(() => requests(http, CALLS_COUNTED));
  if (contender.scheme === 'DPoP') proofProblems?.push(...(await checkProof(backend.lastProof, htu, backend.token)));
  if (backend.rejected > 0) throw new Error(`bench: ${subject}: ${backend.rejected} requests were refused`);
  return {
    ready: {
      subject,
      authorization: backend.lastAuthorization?.replace(/^(\w+) .*$/, '$1 <token>') ?? null,
      proofProblems,
      proofLength,
      keyReloaded,
      calls: { sameToken, newToken },
    },
    round: async (parallel, ms) => {
      const result = await round(() => request(http), parallel, ms);
      if (backend.rejected > 0) throw new Error(`bench: ${subject}: ${backend.rejected} requests were refused`);
      return result;
    },
    destroy: () => app.destroy(),
  };
}

/** The floor: one ES256 signature per "request", nothing else. */
async function startSign(): Promise<DPoPSubject> {
  const pair = (await crypto.subtle.generateKey(ES256, false, ['sign', 'verify'])) as { privateKey: CryptoKeyLike };
  const bytes = new TextEncoder().encode('x'.repeat(SIGNING_INPUT_BYTES));
  const sign = async () => void (await crypto.subtle.sign(ES256_SIGN, pair.privateKey as never, bytes));
  await sign();
  return {
    ready: {
      subject: 'sign',
      authorization: null,
      proofProblems: null,
      proofLength: null,
      keyReloaded: null,
      calls: null,
    },
    round: (parallel, ms) => round(sign, parallel, ms),
    destroy: () => undefined,
  };
}

/** A `CryptoKey` of either environment's typings. */
type CryptoKeyLike = object;

async function round(send: () => Promise<void>, parallel: number, ms: number) {
  let requests = 0;
  const start = performance.now();
  let now = start;
  do {
    if (parallel === 1) await send();
    else await Promise.all(Array.from({ length: parallel }, send));
    requests += parallel;
    now = performance.now();
  } while (now - start < ms);
  return { requests, ms: now - start };
}

interface App {
  readonly http: HttpClient;
  readonly injector: EnvironmentInjector;
  readonly backend: DPoPBackend;
  destroy(): void;
}

const platform = () => getPlatform() ?? createPlatformFactory(platformCore, 'bench-dpop', [])();

/** An application's root injector as `bootstrapApplication` makes it, in a browser, on the fake backend. */
function createApp(contender: DPoPContender, document: unknown): App {
  const backend = new DPoPBackend(contender.scheme);
  const injector = createEnvironmentInjector(
    [
      { provide: INJECTOR_SCOPE, useValue: 'root' },
      provideZonelessChangeDetection(),
      // withDPoP() signs in a browser only.
      { provide: PLATFORM_ID, useValue: 'browser' },
      { provide: DOCUMENT, useValue: document },
      ...contender.providers(),
      { provide: HttpBackend, useValue: backend },
    ],
    platform().injector as EnvironmentInjector,
    contender.id,
  );
  contender.login(injector, backend.issueToken());
  return { http: injector.get(HttpClient), injector, backend, destroy: () => injector.destroy() };
}

function request(http: HttpClient): Promise<void> {
  return new Promise((resolve, reject) => http.get(API_URL).subscribe({ complete: resolve, error: reject }));
}

async function requests(http: HttpClient, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await request(http);
}

/** Counts the calls of `crypto.subtle`'s methods while `body` runs. */
async function countCalls(body: () => Promise<void>): Promise<CryptoCalls> {
  const subtle = crypto.subtle as unknown as Record<string, (...args: unknown[]) => unknown>;
  const counts: Record<string, number> = {};
  const names = ['sign', 'verify', 'digest', 'exportKey', 'importKey', 'generateKey', 'deriveBits', 'encrypt'];
  for (const name of names) {
    const original = subtle[name];
    subtle[name] = function (this: unknown, ...args: unknown[]) {
      counts[name] = (counts[name] ?? 0) + 1;
      return original.apply(this, args);
    };
  }
  try {
    await body();
  } finally {
    // The own properties go, the prototype's methods are back.
    for (const name of names) delete subtle[name];
  }
  const count = (name: string) => counts[name] ?? 0;
  return {
    sign: count('sign'),
    digest: count('digest'),
    exportKey: count('exportKey'),
    other: names.filter((n) => !['sign', 'digest', 'exportKey'].includes(n)).reduce((sum, n) => sum + count(n), 0),
  };
}

/**
 * What a resource server checks in a proof (RFC 9449 §4.3): `typ`, `alg`, a public P-256 `jwk`, the
 * signature, `htm`, `htu`, a recent `iat`, a `jti`, and `ath` for `token`. Returns the problems found.
 */
async function checkProof(proof: string | null, htu: string, token: string): Promise<string[]> {
  if (proof === null) return ['no proof'];
  const [header, payload, signature] = proof.split('.');
  if (!header || !payload || !signature) return ['not a compact JWS'];
  const h = JSON.parse(decode(header)) as { typ?: string; alg?: string; jwk?: Record<string, string> };
  const p = JSON.parse(decode(payload)) as Record<string, unknown>;
  const problems: string[] = [];
  if (h.typ !== 'dpop+jwt') problems.push(`typ ${h.typ}`);
  if (h.alg !== 'ES256') problems.push(`alg ${h.alg}`);
  if (h.jwk?.['kty'] !== 'EC' || h.jwk['crv'] !== 'P-256' || 'd' in h.jwk) problems.push('jwk not a public P-256 key');
  if (p['htm'] !== 'GET') problems.push(`htm ${String(p['htm'])}`);
  if (p['htu'] !== htu) problems.push(`htu ${String(p['htu'])}, not ${htu}`);
  if (typeof p['iat'] !== 'number' || Math.abs(p['iat'] - Date.now() / 1000) > 60) problems.push('iat not now');
  if (typeof p['jti'] !== 'string' || p['jti'].length < 16) problems.push('no jti');
  if (p['ath'] !== (await sha256(token))) problems.push('ath is not the hash of the token sent');
  if (h.jwk) {
    const { kty, crv, x, y } = h.jwk;
    const key = await crypto.subtle.importKey('jwk', { kty, crv, x, y }, ES256, false, ['verify']);
    const valid = await crypto.subtle.verify(
      ES256_SIGN,
      key,
      bytesOf(signature),
      new TextEncoder().encode(`${header}.${payload}`),
    );
    if (!valid) problems.push('signature does not verify');
  }
  return problems;
}

/** RFC 7638 thumbprint of a proof's key. */
async function jwkThumbprint(proof: string | null): Promise<string | null> {
  if (proof === null) return null;
  const { jwk } = JSON.parse(decode(proof.split('.')[0])) as { jwk: Record<string, string> };
  return sha256(JSON.stringify({ crv: jwk['crv'], kty: jwk['kty'], x: jwk['x'], y: jwk['y'] }));
}

async function sha256(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...hash))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function bytesOf(base64url: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(base64url.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
}

function decode(base64url: string): string {
  return new TextDecoder().decode(bytesOf(base64url));
}
