import type { HttpEvent, HttpHandlerFn, HttpRequest } from '@angular/common/http';
import { InjectionToken } from '@angular/core';
import type { Observable } from 'rxjs';

import type { RefreshResult } from './refresh-call';
import type { ResolvedTokenRefreshOptions } from './resolve-token-refresh-options';
import type { TokenRefreshEvent } from './token-refresh-event';
import type { TokenRefreshRef } from './token-refresh-ref';

/** What a plug-in may see of its gate and do to it, beyond what the app may (`ref`). */
export interface GateHost {
  readonly options: ResolvedTokenRefreshOptions;
  /** The app's handle: the token, `setToken` (`{ restored: true }`: no clock read, no other tab told), … */
  readonly ref: TokenRefreshRef;
  /** The current token, or `null` (as `ref.token()`, without a signal read). */
  token(): string | null;
  /** When the current token expires (device time, ms) as its issuer said (`expires_in`), or `null`. */
  expiresAt(): number | null;
  /** Whether the interceptor is disabled (a pass-through). */
  disabled(): boolean;
  /**
   * A token from elsewhere (another tab): it replaces this one (unless the same), and ends a refresh
   * in flight with it. `expiresAt`: when it expires (device time, ms), if its issuer said.
   */
  receive(token: string, expiresAt: number | null): void;
  /**
   * Starts a refresh that no request waits for (planned), unless one is in flight, the interceptor is
   * disabled, or a plug-in says no (`mayRefresh(true)`). `ahead`: the token is still valid, so a
   * failure that nothing else waited for keeps it.
   */
  plannedRefresh(ahead: boolean): void;
  /** Emits on `TokenRefreshRef.events`, and to every plug-in's `event`. */
  emit(event: TokenRefreshEvent): void;
  /** Runs every plug-in's `changed(false, false)`: what a plug-in says in `mayRefresh` changed. */
  changed(): void;
  /** Before `token` goes to another tab: each plug-in's `share` has put in place what that tab needs. */
  share(token: string): Promise<unknown>;
}

/**
 * A feature of the interceptor as its gate sees it: every point is optional. The gate holds one
 * plug-in, which calls the features' in the order they were given (`provideGatePlugin`); an
 * application without features has none, and each point costs it a `?.`.
 */
export interface GatePlugin {
  /** A request is about to go through the gate (not the refresh request itself). */
  request?(): void;
  /**
   * Sends `request` with `token` (`null`: without one), in place of `next(setAuthHeader(request,
   * token))`. The first feature's plug-in that has it sends every request the gate handles or lets by.
   */
  send?(request: HttpRequest<unknown>, token: string | null, next: HttpHandlerFn): Observable<HttpEvent<unknown>>;
  /**
   * Sends the refresh request itself, in place of `next(request)`; the first plug-in that has it does.
   * `allowed`: whether the URL policy lets its URL carry a token.
   */
  sendRefresh?(request: HttpRequest<unknown>, next: HttpHandlerFn, allowed: boolean): Observable<HttpEvent<unknown>>;
  /**
   * Marks `request` to carry `token` (or, for `null`, only what the plug-in adds itself) when the
   * first plug-in with `send` sends it, in place of `setAuthHeader`.
   */
  mark?(request: HttpRequest<unknown>, token: string | null): HttpRequest<unknown>;
  /**
   * Whether a refresh may start now: for a request's 401 (`planned: false`; no means the 401 goes to
   * its caller as it came), or planned by a plug-in (`true`).
   */
  mayRefresh?(planned: boolean): boolean;
  /**
   * The refresh call about to run, to be run its way (after the other tabs', or not at all): returns
   * what runs instead. Unsubscribed when the refresh ended otherwise.
   */
  refresh?(call: Observable<RefreshResult>): Observable<RefreshResult>;
  /**
   * The token changed (`host.token()`), or the interceptor was disabled or enabled. `fresh`: just
   * issued (a refresh, a sign-in, another tab's), not put back. `signIn`: the app's own new token or
   * sign-out, news for the other tabs.
   */
  changed?(fresh: boolean, signIn: boolean): void;
  /** What the gate emits (`refreshStarted`, `refreshFailed`, …), after the token changed. */
  event?(event: TokenRefreshEvent): void;
  /** Before this tab hands `token` to another: puts in place what that tab needs to use it. Never fails. */
  share?(token: string): Promise<unknown>;
}

/**
 * Makes a feature's plug-in for one gate, in the gate's injection context; `null` where the feature
 * does not run (on the server, in a browser without the APIs it needs). While the plug-ins are made
 * it may disable the gate, and nothing else: a token set then would miss the plug-ins made after it.
 */
export type GatePluginFactory = (host: GateHost) => GatePlugin | null;

/**
 * The one plug-in the gate calls, made of every feature's (see `provideGatePlugin`). Provided only
 * by features: an application without them has none, and ships no code that makes or combines one.
 */
export const GATE_PLUGIN = new InjectionToken<(host: GateHost) => GatePlugin | null>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'GATE_PLUGIN' : '',
);
