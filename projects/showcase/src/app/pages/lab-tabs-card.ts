import { ChangeDetectionStrategy, Component, DOCUMENT, inject, signal } from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatCardModule } from '@angular/material/card';
import { injectTokenRefresh } from 'ngx-token-refresh';

import { LAB_TABS } from '../lab/lab-tabs';

/**
 * The auth lab's Tabs card: opens another tab of the lab, says what this tab did at its last
 * refresh (its own call, or a token from another tab), whether cross-tab sync is on, and the
 * server's overlap window for a rotated refresh token.
 */
@Component({
  selector: 'app-lab-tabs-card',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatCardModule],
  template: `
    <mat-card appearance="outlined">
      <mat-card-header><mat-card-title>Tabs</mat-card-title></mat-card-header>
      <mat-card-content>
        <button mat-stroked-button (click)="openTab()" data-testid="open-tab">Open another tab of the lab</button>
        <p>
          This tab's last refresh:
          <strong data-testid="last-refresh" aria-live="polite">{{ lastRefresh() }}</strong>
        </p>
        <p>
          Cross-tab sync: <strong data-testid="cross-tab-sync">{{ tabs.crossTabSync ? 'on' : 'off' }}</strong>
        </p>
        @if (tabs.reuseIntervalSeconds === null) {
          <p class="muted" data-testid="tabs-note">
            Each tab runs its own in-memory server here, with its own sessions, so tabs share nothing.
            <code>npm run start:real</code> shows several tabs sharing one session.
          </p>
        } @else {
          <p>
            Server overlap window:
            <strong data-testid="reuse-interval">{{ tabs.reuseIntervalSeconds }} s</strong>, the reference server's
            default
            <!-- Wider than the card on a 360 px screen: it may break after an underscore, never mid-word. -->
            (<code data-testid="reuse-interval-variable"
              >REFRESH_<wbr />TOKEN_<wbr />REUSE_<wbr />INTERVAL_<wbr />SECONDS</code
            >): a refresh token just rotated still works that long.
          </p>
          <p class="muted" data-testid="tabs-note">
            @if (tabs.crossTabSync) {
              One refresh at a time across the tabs; the others take its token. Load a page with
              <code>?crossTab=off</code> to leave it to the server's window.
            } @else {
              Off in this tab (<code>?crossTab=off</code>): each tab refreshes on its own. Load a page with
              <code>?crossTab=on</code> to turn it back on.
            }
          </p>
        }
      </mat-card-content>
    </mat-card>
  `,
  styles: `
    :host {
      display: block;
    }
    mat-card {
      height: 100%;
    }
  `,
})
export class LabTabsCard {
  protected readonly tabs = inject(LAB_TABS);
  private readonly document = inject(DOCUMENT);
  /** What this tab did at its last refresh, from the library's events since this page opened. */
  protected readonly lastRefresh = signal('none since this page opened');

  constructor() {
    injectTokenRefresh()
      .events.pipe(takeUntilDestroyed())
      .subscribe((event) => {
        switch (event.type) {
          case 'refreshSucceeded':
            return this.lastRefresh.set('refreshed (this tab made the call)');
          case 'refreshFailed':
            return this.lastRefresh.set('refresh failed');
          case 'tokenReceived':
            return this.lastRefresh.set(
              event.waiting
                ? "waited for another tab's refresh and took its token"
                : 'received a token from another tab',
            );
          default:
            return;
        }
      });
  }

  protected openTab(): void {
    // noopener: the new tab gets no handle on this one; they meet through the library's lock and channel.
    this.document.defaultView?.open(this.document.location.href, '_blank', 'noopener');
  }
}
