import { Injectable, signal } from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { injectTokenRefresh } from 'ngx-token-refresh';
import type { OAuthError } from 'ngx-token-refresh/oauth';

/**
 * What the library did in this tab, counted from `injectTokenRefresh().events` from the start (a
 * reload's restore included), to watch the refreshes happen.
 */
@Injectable({ providedIn: 'root' })
export class RefreshActivity {
  /** Refreshes this tab made at the token endpoint. */
  readonly refreshes = signal(0);
  /** Of those, the ones `withProactiveRefresh()` started ahead of expiry, before any 401. */
  readonly ahead = signal(0);
  /** Requests sent again with a new token after the server answered 401. */
  readonly repeated = signal(0);
  /** Tokens another tab refreshed and handed over (`withCrossTabSync()`), so this one made no call. */
  readonly received = signal(0);
  /** Why the session ended without this tab asking (`onSessionExpired`); `null` while it goes on. */
  readonly endedBecause = signal<OAuthError | null>(null);

  constructor() {
    let ahead = false;
    injectTokenRefresh()
      .events.pipe(takeUntilDestroyed())
      .subscribe((event) => {
        switch (event.type) {
          case 'refreshStarted':
            ahead = event.ahead === true;
            break;
          case 'refreshSucceeded':
            this.refreshes.update((count) => count + 1);
            if (ahead) this.ahead.update((count) => count + 1);
            break;
          case 'requestRetried':
            this.repeated.update((count) => count + 1);
            break;
          case 'tokenReceived':
            this.received.update((count) => count + 1);
            break;
        }
      });
  }
}
