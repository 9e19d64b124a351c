import type { HttpEvent, HttpHandlerFn, HttpRequest } from '@angular/common/http';
import { InjectionToken } from '@angular/core';
import type { Observable } from 'rxjs';

/**
 * How requests carry the token when `setAuthHeader` cannot do it (made by `withDPoP()`): the token
 * goes with a proof that must be signed, asynchronously, for each request, and the server may ask
 * for the request again with a nonce. The gate knows only this contract, so an application without
 * such a feature ships none of it.
 */
export interface TokenTransport {
  /**
   * Sends `request` with `token`, in place of `next(setAuthHeader(request, token))`. A challenge the
   * transport answers itself (a nonce) is repeated here, once, and never reaches the gate as a
   * reason to refresh; any other failure reaches it as it came.
   */
  send(request: HttpRequest<unknown>, token: string, next: HttpHandlerFn): Observable<HttpEvent<unknown>>;
  /** Sends the refresh request itself (which carries no access token), in place of `next(request)`. */
  sendRefresh(request: HttpRequest<unknown>, next: HttpHandlerFn): Observable<HttpEvent<unknown>>;
  /**
   * Marks `request`, one the gate lets by (`SKIP_TOKEN_REFRESH`: a sign-in, a sign-out), to be sent
   * by the transport all the same: with `token`, or for `null` with a proof alone (a sign-in binds
   * the new session to the key this way).
   */
  mark(request: HttpRequest<unknown>, token: string | null): HttpRequest<unknown>;
  /**
   * Sends a request that goes without a token (one the gate lets by, or one sent while there is no
   * token): a marked one, or one that asks for a proof, as `send` or `sendRefresh` do; any other as it came.
   */
  sendSkipped(request: HttpRequest<unknown>, next: HttpHandlerFn): Observable<HttpEvent<unknown>>;
  /**
   * Before this tab hands `token` to a tab that asked for it: puts in place what that tab needs to
   * use it (the key the token is bound to, where the tabs look for it). Never fails.
   */
  share(token: string): Promise<void>;
}

/** Makes the transport of a gate, in the gate's injection context. */
export type TokenTransportFactory = () => TokenTransport;

/** The transport factory a feature registered in the injector that provides the interceptor. */
export const TOKEN_TRANSPORT = new InjectionToken<TokenTransportFactory>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'TOKEN_TRANSPORT' : '',
);
