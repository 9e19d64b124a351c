import type { HttpRequest } from '@angular/common/http';

/**
 * What the token-refresh interceptor did, as emitted by `TokenRefreshRef.events`, for logging and
 * for making the mechanism visible. `request` is always the request as it reached this interceptor,
 * before it wrote any token, so logging events never leaks a token of this interceptor's.
 *
 * - `refreshStarted`: a refresh call began, triggered by `request`'s failure (`null` when started
 *   by `TokenRefreshRef.refresh()`, or ahead of expiry: then `ahead` is `true`).
 * - `refreshSucceeded` / `refreshFailed`: the refresh ended (once per refresh). `ahead` on a failure:
 *   the refresh was ahead of expiry and nothing needed it yet, so the current token stays.
 * - `refreshScheduled` (with `withProactiveRefresh`): the next refresh ahead of expiry is due `at`
 *   (milliseconds since the epoch, this device's clock), or `null`: none is planned (no token, a
 *   token without a readable `exp`, disabled). A hidden page waits to be shown before it refreshes.
 * - `requestQueued`: `request` failed with `status` and waits for the refresh in flight.
 * - `requestHeld`: `request` arrived while a refresh was in flight and waits for it before being
 *   sent, instead of being sent with a token that is known to be rejected.
 * - `requestRetried`: `request` is sent again (`attempt` counts from 1) with the new token.
 * - `tokenReceived` (with `withCrossTabSync`): another tab refreshed (or signed in) and its token
 *   replaced this tab's. `waiting`: this tab's own refresh was waiting for its turn and ended with
 *   that token, without a call; otherwise the tab was idle, and its next requests carry the new token.
 * - `signedOutElsewhere` (with `withCrossTabSync`): another tab signed out, and this tab's token is
 *   cleared.
 * - `idleTimeout` (with `withIdleTimeout`): nobody was active in any tab for the idle time, and this
 *   tab's session ended: its token is cleared, and no refresh brings it back before a new sign-in.
 *
 * @usageNotes
 * ```ts
 * injectTokenRefresh().events.subscribe((event) => console.debug('[auth]', event.type));
 * ```
 */
export type TokenRefreshEvent =
  | { readonly type: 'refreshStarted'; readonly request: HttpRequest<unknown> | null; readonly ahead?: true }
  | { readonly type: 'refreshSucceeded' }
  | { readonly type: 'refreshFailed'; readonly error: unknown; readonly ahead?: true }
  | { readonly type: 'refreshScheduled'; readonly at: number | null }
  | { readonly type: 'requestQueued'; readonly request: HttpRequest<unknown>; readonly status: number }
  | { readonly type: 'requestHeld'; readonly request: HttpRequest<unknown> }
  | { readonly type: 'requestRetried'; readonly request: HttpRequest<unknown>; readonly attempt: number }
  | { readonly type: 'tokenReceived'; readonly waiting: boolean }
  | { readonly type: 'signedOutElsewhere' }
  | { readonly type: 'idleTimeout' };
