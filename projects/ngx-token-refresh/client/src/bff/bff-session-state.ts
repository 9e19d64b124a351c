import { isPlatformBrowser } from '@angular/common';
import { HttpClient, type HttpErrorResponse, type HttpRequest } from '@angular/common/http';
import {
  DOCUMENT,
  DestroyRef,
  ErrorHandler,
  PLATFORM_ID,
  REQUEST,
  RESPONSE_INIT,
  TransferState,
  inject,
  makeStateKey,
  signal,
} from '@angular/core';
import {
  ɵRuntimeError as RuntimeError,
  ɵinjectCallbackRunner as injectCallbackRunner,
  ɵisSameOriginPath as isSameOriginPath,
  ɵisSecureEndpoint as isSecureEndpoint,
} from 'ngx-token-refresh';

import { ApiError } from '../errors/api-error';
import { parseApiError } from '../errors/parse-api-error';
import type { ResolvedBffSessionConfig } from './bff-session-config';
import type { BffSessionRef, BffSessionStatus, BffUser } from './bff-session-ref';
import { createBffUrlMatcher } from './create-bff-url-matcher';
import { type BffSessionSnapshot, readBffSession } from './read-bff-session';

/** The BFF's session cookie (HttpOnly): the one cookie a server render forwards. */
const SESSION_COOKIE = '__Host-bff-session';

/**
 * What a server render hands to the browser in the page's transfer state: the user's claims and the
 * session's end, never a token (the browser holds none, and the BFF's answer carries none). Marked
 * pure: a call at module level is otherwise kept, with its text, in every app that imports this
 * entry point, whether it uses the BFF or not.
 */
const RENDERED_SESSION = /* @__PURE__ */ makeStateKey<BffSessionSnapshot>('ngx-token-refresh:bff-session');

/** The message a tab posts when the session it knew ended: `session` tells that session from a later sign-in's. */
interface EndedMessage {
  readonly type: 'ended';
  readonly session: string;
  readonly code: 'SessionEnded' | 'NoSession' | 'SignedOut';
}

/** The 401 codes of the BFF that mean the session is over (the route table of `ngx-token-refresh/bff`). */
const isEndCode = (code: string) => code === 'SessionEnded' || code === 'NoSession';

/**
 * The session of one application (one tab, or one server render) with its backend for frontend:
 * `user` and `status`, the calls to `<basePath>/session` and `/logout`, and the news between tabs.
 * Made by `provideBffSession`; the interceptor reports to it. Needs an injection context.
 */
export class BffSessionState {
  readonly browser = isPlatformBrowser(inject(PLATFORM_ID));
  /** The path and query of a request URL that goes to the BFF, or `null`. */
  readonly bffPath: (url: string) => string | null;
  /** Dev mode: the interceptor saw a request of this application. */
  intercepted = false;
  readonly ref: BffSessionRef;

  readonly #config: ResolvedBffSessionConfig;
  readonly #http = inject(HttpClient);
  readonly #document = inject(DOCUMENT);
  readonly #transferState = inject(TransferState);
  readonly #errorHandler = inject(ErrorHandler);
  /** Runs the app's `onSessionExpired`: a throw is reported, never rethrown. */
  readonly #notify = injectCallbackRunner();
  readonly #user = signal<BffUser | null>(null);
  readonly #status = signal<BffSessionStatus>('unknown');
  /**
   * Names the session this tab knows, for the other tabs, while it is signed in: its user and its
   * absolute end, which a later sign-in does not share.
   */
  #session: string | null = null;
  /** Counts the ends of sessions: an answer to a load sent before the latest end is out of date. */
  #ends = 0;
  /** While this tab's own sign-out is on its way: its 401s are no expiry to report. */
  #signingOut = false;
  readonly #channel: BroadcastChannel | null = null;
  /** On the server: the rendered request's session cookie, `null` without one (or prerendering). */
  readonly #serverCookie: string | null = null;

  constructor(config: ResolvedBffSessionConfig) {
    this.#config = config;
    this.bffPath = createBffUrlMatcher([config.basePath, ...config.apiPaths], this.#document);
    this.ref = {
      user: this.#user.asReadonly(),
      status: this.#status.asReadonly(),
      signIn: (returnUrl) => this.#signIn(returnUrl),
      signOut: () => this.#signOut(),
      reload: () => this.#load(),
    };
    if (this.browser) {
      // A server's BroadcastChannel would reach every render in the process: tabs only.
      if (typeof BroadcastChannel === 'function') {
        const channel = new BroadcastChannel(config.channelName);
        channel.onmessage = (event: MessageEvent<unknown>) => this.#receive(event.data);
        inject(DestroyRef).onDestroy(() => channel.close());
        this.#channel = channel;
      }
      return;
    }
    this.#serverCookie = sessionCookieOf(inject(REQUEST, { optional: true }));
    if (this.#serverCookie !== null) {
      // The page may show who is signed in: no cache may keep it, for somebody else or for later.
      // Set now, since @angular/ssr builds the answer's headers when the render is stable.
      const response = inject(RESPONSE_INIT, { optional: true });
      if (response) {
        const headers = response.headers instanceof Headers ? response.headers : new Headers(response.headers);
        headers.set('Cache-Control', 'private, no-store');
        response.headers = headers;
      }
    }
  }

  /**
   * At start-up: the session a server render found (then nothing is asked), else the BFF's answer.
   * A render without the session cookie (prerendering, a first visit, a link from another site,
   * which sends no SameSite=Strict cookie) asks nothing and renders signed out; the browser asks.
   */
  start(): void {
    if (this.browser) {
      const rendered = readBffSession(this.#transferState.get(RENDERED_SESSION, null));
      this.#transferState.remove(RENDERED_SESSION);
      if (rendered) this.#signedIn(rendered);
      else void this.#load(true).catch(() => undefined);
    } else if (this.#serverCookie === null) {
      this.#signedOut();
    } else {
      void this.#load(true).catch(() => undefined);
    }
  }

  /**
   * The request as a server render sends it to the BFF: to `serverUrl` when set, with `x-csrf` and
   * the session cookie of the rendered request (no other cookie), and that only over https or to a
   * loopback host, where a cookie cannot be read on the way.
   */
  forServer(request: HttpRequest<unknown>, path: string): HttpRequest<unknown> {
    const url = this.#config.serverUrl === null ? request.url : this.#config.serverUrl + path;
    let headers = request.headers.set('x-csrf', '1');
    if (this.#serverCookie !== null && isSecureEndpoint(url, this.#document)) {
      headers = headers.set('Cookie', this.#serverCookie);
    }
    return request.clone({ url, headers });
  }

  /**
   * A 401 from the BFF. `SessionEnded` or `NoSession` end the session here; the first of them in a
   * signed-in tab also tells the other tabs and runs `onSessionExpired`, and the later ones find it
   * ended. Any other 401 (an API's own) is none of the session's business.
   */
  refused(error: HttpErrorResponse): void {
    const apiError = parseApiError(error);
    if (!isEndCode(apiError.code)) return;
    const session = this.#session;
    const wasSignedIn = this.#status() === 'signedIn';
    this.#signedOut();
    if (!wasSignedIn || this.#signingOut || !this.browser) return;
    if (session !== null) this.#post({ type: 'ended', session, code: apiError.code as EndedMessage['code'] });
    this.#expired(apiError);
  }

  #signedIn(session: BffSessionSnapshot): void {
    this.#session = JSON.stringify([session.user.sub, session.expiresAt]);
    this.#user.set(session.user);
    this.#status.set('signedIn');
    if (!this.browser) this.#transferState.set(RENDERED_SESSION, { user: session.user, expiresAt: session.expiresAt });
  }

  #signedOut(): void {
    this.#ends++;
    this.#session = null;
    this.#user.set(null);
    this.#status.set('signedOut');
    if (!this.browser) this.#transferState.remove(RENDERED_SESSION);
  }

  #expired(error: ApiError): void {
    const onSessionExpired = this.#config.onSessionExpired;
    if (onSessionExpired) this.#notify(() => onSessionExpired(error));
  }

  /** `GET <basePath>/session`: who is signed in. */
  #load(startUp = false): Promise<void> {
    const ends = this.#ends;
    return new Promise<void>((resolve, reject) => {
      const fail = (error: ApiError) => {
        if (typeof ngDevMode !== 'undefined' && ngDevMode && startUp) {
          explainStartUpFailure(error, this.intercepted, this.#config.basePath, this.#errorHandler);
        }
        reject(error);
      };
      this.#http.get(`${this.#config.basePath}/session`).subscribe({
        next: (body) => {
          const session = readBffSession(body);
          if (session === null) {
            fail(new ApiError(200, 'InvalidResponse', 'The server sent an unexpected answer (not a session).'));
            return;
          }
          // Answered before a session end that this tab has seen since: it is out of date.
          if (ends === this.#ends) this.#signedIn(session);
          resolve();
        },
        error: (error: unknown) => {
          const apiError = parseApiError(error);
          if (apiError.status === 401 && isEndCode(apiError.code)) {
            // Signed out (the interceptor has already reported an end, if this was one).
            if (this.#status() !== 'signedOut') this.#signedOut();
            resolve();
          } else {
            fail(apiError);
          }
        },
      });
    });
  }

  #signIn(returnUrl?: string): void {
    const location = this.#document.location;
    const here = `${location.pathname}${location.search}${location.hash}`;
    const target = returnUrl ?? (isSameOriginPath(here) ? here : '/');
    // Always checked, not in dev mode only: the BFF would refuse it too, but it is a redirect target.
    if (typeof target !== 'string' || !isSameOriginPath(target)) {
      throw new RuntimeError(
        'InvalidOptions',
        typeof ngDevMode !== 'undefined' &&
          ngDevMode &&
          `signIn(returnUrl): returnUrl must be a path of this site such as '/account', got ${String(target)} (pass a value from outside through safeReturnUrl)`,
      );
    }
    if (!this.browser) return;
    location.assign(`${this.#config.basePath}/login?returnUrl=${encodeURIComponent(target)}`);
  }

  #signOut(): Promise<void> {
    if (!this.browser) return Promise.resolve();
    const session = this.#session;
    this.#signingOut = true;
    return new Promise<void>((resolve, reject) => {
      const signedOut = (body: unknown) => {
        this.#signingOut = false;
        if (this.#status() !== 'signedOut') this.#signedOut();
        if (session !== null) this.#post({ type: 'ended', session, code: 'SignedOut' });
        const next = endSessionUrlOf(body, this.#document);
        if (next !== null) this.#document.location.assign(next);
        resolve();
      };
      this.#http.post(`${this.#config.basePath}/logout`, null).subscribe({
        next: signedOut,
        error: (error: unknown) => {
          this.#signingOut = false;
          const apiError = parseApiError(error);
          // Already over on the server: signed out all the same, with no provider session to end.
          if (apiError.status === 401 && isEndCode(apiError.code)) signedOut(null);
          else reject(apiError);
        },
      });
    });
  }

  #post(message: EndedMessage): void {
    try {
      this.#channel?.postMessage(message);
    } catch {
      // A closed channel (the app is being destroyed): the other tabs learn it at their next call.
    }
  }

  /** Another tab's news: the session this tab knows ended there (another sign-in's end is not this one's). */
  #receive(data: unknown): void {
    if (typeof data !== 'object' || data === null) return;
    const { type, session, code } = data as Partial<EndedMessage>;
    // Only a signed-in tab has a name to compare: the others have nothing to end.
    if (type !== 'ended' || typeof session !== 'string' || session !== this.#session) return;
    if (code !== 'SessionEnded' && code !== 'NoSession' && code !== 'SignedOut') return;
    this.#signedOut();
    this.#expired(
      code === 'SignedOut'
        ? new ApiError(401, 'SignedOutElsewhere', 'You signed out in another tab.')
        : new ApiError(401, code, 'Your session has ended; please sign in again.'),
    );
  }
}

/**
 * Dev mode: the start-up load failed for a reason that is a setup mistake, said through the
 * ErrorHandler (a failure of the network is no mistake, and `reload()` gives it to the app). A
 * function of its own, not a method, so that production builds drop it with its text.
 */
function explainStartUpFailure(
  error: ApiError,
  intercepted: boolean,
  basePath: string,
  errorHandler: ErrorHandler,
): void {
  let problem: string | null = null;
  if (!intercepted) {
    problem = `bffSessionInterceptor did not see GET ${basePath}/session: add it to provideHttpClient(withInterceptors([bffSessionInterceptor])), or the BFF refuses the calls without x-csrf`;
  } else if (error.code === 'InvalidResponse') {
    problem = `GET ${basePath}/session answered something that is not a session (often the app's index.html): is the BFF mounted at basePath ${basePath}, before the app's own routes?`;
  }
  if (problem !== null) errorHandler.handleError(new RuntimeError('InvalidOptions', `provideBffSession: ${problem}`));
}

/** The rendered request's `Cookie` header, cut down to the session cookie; `null` without it. */
function sessionCookieOf(request: Request | null): string | null {
  const header = request?.headers.get('cookie') ?? '';
  const pairs = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${SESSION_COOKIE}=`) && pair.length > SESSION_COOKIE.length + 1);
  return pairs.length > 0 ? pairs.join('; ') : null;
}

/**
 * The `endSessionUrl` of the logout answer, if it is a web address (`http:` or `https:`): never a
 * `javascript:` URL, which the navigation would run in this page.
 */
function endSessionUrlOf(body: unknown, document: Document): string | null {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['endSessionUrl'] : null;
  if (typeof value !== 'string' || value === '') return null;
  try {
    const url = new URL(value, document.location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
