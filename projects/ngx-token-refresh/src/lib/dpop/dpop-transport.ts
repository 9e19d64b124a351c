import {
  HttpContext,
  HttpContextToken,
  HttpErrorResponse,
  type HttpEvent,
  type HttpHandlerFn,
  HttpHeaderResponse,
  type HttpHeaders,
  type HttpRequest,
  HttpResponse,
} from '@angular/common/http';
import { type Observable, catchError, concatMap, defer, from, map, of, switchMap, tap, throwError } from 'rxjs';

import type { GatePlugin } from '../core/gate-plugin';
import { parseJwtClaims } from '../jwt/parse-jwt-claims';
import { type DPoPKey, base64url, sha256 } from './dpop-key';
import type { DPoPKeys } from './dpop-keys';
import { DPOP_PROOF } from './dpop-proof';

/** On a request the gate lets by: sign it, with this token (`null`: a proof alone). */
const SIGN = new HttpContextToken<{ readonly token: string | null } | null>(() => null);

/**
 * Sends requests with DPoP (RFC 9449): the token as `Authorization: DPoP <token>`, and in the `DPoP`
 * header a proof signed for that one request with the origin's key (`htm`, `htu`, `iat`, a fresh
 * `jti`, `ath` with a token, and the server's nonce once it gave one). The refresh request gets a proof
 * without `ath`.
 *
 * - Nonces: the `DPoP-Nonce` of every answer (success or error) is kept per origin and goes into every
 *   later proof for that origin. A `use_dpop_nonce` challenge (401 from a resource server, 400 from a
 *   token endpoint) that brings a nonce is answered here: the request is signed again and sent once
 *   more. No token refresh, and other requests are not held for it.
 * - Cached: the key, its header and thumbprint, and the hash of the current token. Never a proof.
 */
export class DPoPTransport implements GatePlugin {
  readonly #keys: DPoPKeys;
  readonly #baseHref: () => string | undefined;
  /** The last nonce each origin gave. */
  readonly #nonces = new Map<string, string>();
  /** `ath` of the last token signed for: one hash per token, not per request. */
  #ath: { readonly token: string; readonly value: Promise<string> } | null = null;
  /** The last token whose key was looked at: once per token, not per request. */
  #checked: { readonly token: string; readonly key: Promise<DPoPKey> } | null = null;

  constructor(keys: DPoPKeys, baseHref: () => string | undefined) {
    this.#keys = keys;
    this.#baseHref = baseHref;
  }

  /**
   * Sends `request` with `token` and a proof for it; without a token (`null`), signs only what asks
   * for it (`mark` with `null`, `DPOP_PROOF`) and sends the rest as it came.
   */
  send(request: HttpRequest<unknown>, token: string | null, next: HttpHandlerFn): Observable<HttpEvent<unknown>> {
    if (token !== null) return this.#send(request, token, next, true);
    // has() first: get() would store the default in every request's context.
    const context = request.context;
    const sign = context.has(SIGN) ? context.get(SIGN) : null;
    if (sign) return this.#send(request, sign.token, next, true);
    return context.has(DPOP_PROOF) && context.get(DPOP_PROOF) ? this.#send(request, null, next, true) : next(request);
  }

  /** Sends the refresh request itself (which carries no access token) with a proof. */
  sendRefresh(request: HttpRequest<unknown>, next: HttpHandlerFn): Observable<HttpEvent<unknown>> {
    return this.#send(request, null, next, true);
  }

  /** Marks a request the gate lets by (a sign-in, a sign-out) to be signed with `token`, or a proof alone for `null`. */
  mark(request: HttpRequest<unknown>, token: string | null): HttpRequest<unknown> {
    // A context of its own: the caller's may be shared with other requests.
    const context = new HttpContext();
    for (const key of request.context.keys()) context.set(key, request.context.get(key));
    return request.clone({ context: context.set(SIGN, { token }) });
  }

  /** Stores the key `token` is bound to, for a tab that asked for the token. Never fails. */
  async share(token: string): Promise<void> {
    // The key this tab signs `token` with (the one it is bound to), stored for the tab that asked:
    // after the site's data was cleared, that tab made a key of its own, which the session does not know.
    await this.#keyFor(token).catch(() => undefined);
    await this.#keys.keep();
  }

  /** Signs and sends `request`; `answerChallenge`: a nonce challenge may still be answered once. */
  #send(
    request: HttpRequest<unknown>,
    token: string | null,
    next: HttpHandlerFn,
    answerChallenge: boolean,
  ): Observable<HttpEvent<unknown>> {
    // Where the answer's nonce belongs; known once the request is signed.
    let origin = '';
    // Everything inside: a missing key or a URL that does not parse fails this request, and is never
    // thrown from the interceptor, where it would escape the refresh logic.
    return defer(async () => {
      const key = await (token === null ? this.#keys.current() : this.#keyFor(token));
      const url = resolveUrl(request.url, this.#baseHref());
      origin = url.origin;
      const proof = await this.#proof(key, request.method, `${origin}${url.pathname}`, this.#nonces.get(origin), token);
      return request.clone({
        setHeaders: token === null ? { DPoP: proof } : { Authorization: `DPoP ${token}`, DPoP: proof },
      });
    }).pipe(
      switchMap((signed) => next(signed)),
      // A sign-in or refresh the server accepted: the session is bound to this key, so the store
      // must hold it (for the other tabs and the next reload) before anyone gets the new token.
      concatMap((event) =>
        token === null && event instanceof HttpResponse && event.ok
          ? from(this.#keys.keep()).pipe(map(() => event))
          : of(event),
      ),
      tap({
        next: (event) => {
          if (event instanceof HttpResponse || event instanceof HttpHeaderResponse)
            this.#keepNonce(origin, event.headers);
        },
        error: (error: unknown) => {
          if (error instanceof HttpErrorResponse) this.#keepNonce(origin, error.headers);
        },
      }),
      catchError((error: unknown) =>
        answerChallenge && isNonceChallenge(error) ? this.#send(request, token, next, false) : throwError(() => error),
      ),
    );
  }

  #keepNonce(origin: string, headers: HttpHeaders): void {
    const nonce = headers.get('DPoP-Nonce');
    // RFC 9449 §8.1: visible ASCII without spaces or quotes; anything else is not a nonce.
    if (nonce && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(nonce)) this.#nonces.set(origin, nonce);
  }

  async #proof(
    key: DPoPKey,
    method: string,
    htu: string,
    nonce: string | undefined,
    token: string | null,
  ): Promise<string> {
    const claims: Record<string, string | number> = {
      jti: crypto.randomUUID(),
      htm: method,
      htu,
      iat: Math.floor(Date.now() / 1000),
    };
    if (token !== null) claims['ath'] = await this.#hash(token);
    if (nonce !== undefined) claims['nonce'] = nonce;
    const input = `${key.header}.${base64url(JSON.stringify(claims))}`;
    const signature = await crypto.subtle.sign(
      { name: 'ECDSA', hash: 'SHA-256' },
      key.privateKey,
      new TextEncoder().encode(input),
    );
    // WebCrypto's ECDSA signature is r || s, 64 bytes: what JWS ES256 wants.
    return `${input}.${base64url(signature)}`;
  }

  /**
   * The key to sign for `token`: this tab's, unless the token is a JWT bound (`cnf.jkt`) to another
   * key, the one another tab stored (it signed in after the stored key was replaced, as after the
   * site's data was cleared); then that one, from now on.
   */
  #keyFor(token: string): Promise<DPoPKey> {
    if (this.#checked?.token !== token) {
      const cnf = parseJwtClaims(token)?.['cnf'];
      const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
      this.#checked = { token, key: typeof jkt === 'string' ? this.#keys.follow(jkt) : this.#keys.current() };
    }
    return this.#checked.key;
  }

  #hash(token: string): Promise<string> {
    if (this.#ath?.token !== token) this.#ath = { token, value: sha256(token).then(base64url) };
    return this.#ath.value;
  }
}

/**
 * `url` against the page's base; an absolute `url` also where the base is no URL (a server render
 * without the request's URL).
 */
function resolveUrl(url: string, base: string | undefined): URL {
  try {
    return new URL(url, base);
  } catch {
    return new URL(url);
  }
}

/**
 * A `use_dpop_nonce` challenge that brings a nonce: a 401 whose `WWW-Authenticate` has a `DPoP`
 * challenge with `error="use_dpop_nonce"` (a resource server), or a 400 whose JSON body says
 * `use_dpop_nonce` (a token endpoint).
 */
function isNonceChallenge(error: unknown): boolean {
  if (!(error instanceof HttpErrorResponse) || !error.headers.get('DPoP-Nonce')) return false;
  if (error.status === 401) {
    // Only the DPoP scheme defines this error, so the two together are the challenge, wherever the
    // header puts them among other challenges and parameters.
    const challenge = error.headers.get('WWW-Authenticate') ?? '';
    return /(^|[\s,])DPoP(\s|$)/i.test(challenge) && /\berror\s*=\s*"?use_dpop_nonce\b/i.test(challenge);
  }
  if (error.status !== 400) return false;
  let body: unknown = error.error;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return false;
    }
  }
  // RFC 6749 §5.2's `{ "error": "use_dpop_nonce" }`, or an error object with that code (as this
  // repository's reference server answers: `{ "error": { "code": "use_dpop_nonce", ... } }`).
  const code = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  return (
    code === 'use_dpop_nonce' ||
    (typeof code === 'object' && code !== null && (code as { code?: unknown }).code === 'use_dpop_nonce')
  );
}
