import type { HttpEvent, HttpHandlerFn, HttpRequest } from '@angular/common/http';
import { InjectionToken } from '@angular/core';
import type { Observable } from 'rxjs';

/** What the gate lets a render session see and do. */
export interface SessionGate {
  /** The current token, or `null`. */
  token(): string | null;
  /** Puts back a token handed over by the server render (not news for other tabs, no clock read). */
  restore(token: string): void;
  /** Lets every request and answer by untouched: nothing is refreshed. */
  disable(): void;
}

/**
 * The session of a server render (made by `withServerSession()`): it sends the render's refresh
 * request with the incoming request's cookies and hands what the answer sets on to the browser. The
 * gate knows only this contract, so an application without the feature ships none of it.
 */
export interface RenderSession {
  /**
   * Sends the refresh request, and takes in what its answer brings, whatever the status. `allowed`:
   * whether the URL policy lets the request's URL carry a token (only then may the session go there).
   */
  sendRefresh(request: HttpRequest<unknown>, next: HttpHandlerFn, allowed: boolean): Observable<HttpEvent<unknown>>;
}

/**
 * Makes the render session of a gate, in the gate's injection context; `null` where there is none
 * (in the browser, which only takes over the render's token).
 */
export type RenderSessionFactory = (gate: SessionGate) => RenderSession | null;

/** The factory registered by `withServerSession()`. */
export const RENDER_SESSION = new InjectionToken<RenderSessionFactory>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'RENDER_SESSION' : '',
);
