import { HttpClient, HttpContext, HttpErrorResponse } from '@angular/common/http';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { FormsModule } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatCardModule } from '@angular/material/card';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatSelectModule } from '@angular/material/select';
import { MatSliderModule } from '@angular/material/slider';
import { injectTokenRefresh } from 'ngx-token-refresh';
import { AuthClient } from 'ngx-token-refresh/client';
import { interval } from 'rxjs';

import { LAB_BACKEND } from '../lab/lab-backend';
import { LAB_CALL } from '../lab/lab-call';
import { LAB_EXPIRE_ON_SERVER } from '../lab/lab-expire-on-server';
import { LabDPoP } from '../lab/lab-dpop';
import { LabLog } from '../lab/lab-log';
import { LabDPoPCard } from './lab-dpop-card';
import { LabRefreshesCard } from './lab-refreshes-card';
import { LabTabsCard } from './lab-tabs-card';
import { LabTimeline } from './lab-timeline';
import { LabWiringPanel } from './lab-wiring-panel';

/**
 * Makes the mechanism visible: the access token's remaining life, switches to expire it or to
 * revoke the refresh token, a burst of N parallel calls, each call's timeline, this tab's refreshes
 * (proactive refresh on or off, the next one due, what started each), and how this tab shares its
 * session with other tabs, and with DPoP on, the last proof. Against a real server (no LAB_BACKEND) only "expire now" stays, through
 * the server's development-only route (LAB_EXPIRE_ON_SERVER); tokens also expire on their own, and
 * refreshes are counted from the library's events.
 */
@Component({
  selector: 'app-auth-lab-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    FormsModule,
    MatButtonModule,
    MatCardModule,
    MatFormFieldModule,
    MatInputModule,
    MatSelectModule,
    MatSliderModule,
    LabDPoPCard,
    LabRefreshesCard,
    LabTabsCard,
    LabTimeline,
    LabWiringPanel,
  ],
  template: `
    <main class="page lab">
      <h1>Auth lab</h1>
      <section class="grid">
        <mat-card appearance="outlined">
          <mat-card-header><mat-card-title>Access token</mat-card-title></mat-card-header>
          <mat-card-content>
            <p class="big" data-testid="token-remaining">{{ remainingText() }}</p>
            <p class="muted" data-testid="token-expiry">{{ expiryText() }}</p>
            @if (server || expireOnServer) {
              <div class="row">
                <button mat-stroked-button (click)="expireNow()" data-testid="expire-token">
                  Expire access token now
                </button>
                @if (server) {
                  <button mat-stroked-button (click)="revoke()" data-testid="revoke-refresh">
                    Revoke refresh token
                  </button>
                }
              </div>
              <!-- Always there, so that screen readers announce what appears in it. -->
              <div role="status">
                @if (revokedNote()) {
                  <p data-testid="revoke-note">
                    Refresh token revoked: the next refresh fails and ends the session. Expire the access token and fire
                    a burst to see it, or wait for the token to run out.
                  </p>
                }
              </div>
              @if (expireFailed()) {
                <p class="error-text" role="alert" data-testid="expire-error">
                  The server did not expire the token: it offers this only in development (DEV_LAB_ROUTES=true, as npm
                  run start:real sets).
                </p>
              }
            }
            @if (!server) {
              <p class="muted" data-testid="real-server-note">
                A real server: the token also expires when its time runs out. Proactive refresh renews it shortly before
                (with this tab's proactive refresh off, the next call after it expired refreshes it).
              </p>
            }
          </mat-card-content>
        </mat-card>

        <mat-card appearance="outlined">
          <mat-card-header><mat-card-title>Backend</mat-card-title></mat-card-header>
          <mat-card-content>
            @if (server; as backend) {
              <label class="setting">
                <span>Token lifetime: {{ backend.tokenLifetimeSeconds() }} s (new tokens)</span>
                <mat-slider min="5" max="120" step="5" discrete>
                  <input
                    matSliderThumb
                    [ngModel]="backend.tokenLifetimeSeconds()"
                    (ngModelChange)="backend.tokenLifetimeSeconds.set($event)"
                  />
                </mat-slider>
              </label>
              <label class="setting">
                <span>Latency: {{ backend.latencyMs() }} ms</span>
                <mat-slider min="0" max="2000" step="100" discrete>
                  <input
                    matSliderThumb
                    [ngModel]="backend.latencyMs()"
                    (ngModelChange)="backend.latencyMs.set($event)"
                  />
                </mat-slider>
              </label>
            } @else {
              <p class="muted">
                The reference server sets the token lifetime (ACCESS_TOKEN_TTL_SECONDS) and adds no latency.
              </p>
            }
            <p>
              {{ server ? 'Refresh calls the backend answered' : 'Refresh calls this tab made' }} since the last burst:
              <strong data-testid="refresh-count">{{ refreshCallsSinceBurst() ?? 'no burst yet' }}</strong>
            </p>
          </mat-card-content>
        </mat-card>

        <mat-card appearance="outlined">
          <mat-card-header><mat-card-title>Burst</mat-card-title></mat-card-header>
          <mat-card-content>
            <mat-form-field appearance="outline">
              <mat-label>Parallel calls</mat-label>
              <mat-select [ngModel]="count()" (ngModelChange)="count.set($event)" data-testid="call-count">
                @for (n of counts; track n) {
                  <mat-option [value]="n">{{ n }}</mat-option>
                }
              </mat-select>
            </mat-form-field>
            <div class="row">
              <button mat-flat-button (click)="fire()" data-testid="fire-calls">Fire {{ count() }} calls</button>
              <button mat-button (click)="clear()">Clear</button>
            </div>
            @if (log.burst()) {
              <p>
                Succeeded: <strong data-testid="success-count">{{ succeeded() }}</strong> · Failed:
                <strong data-testid="failure-count">{{ failed() }}</strong> · Refreshes in this burst:
                <strong data-testid="burst-refresh-count">{{ log.burstRefreshes() }}</strong>
              </p>
            } @else {
              <p class="muted" data-testid="burst-none">No burst yet: the counters start with the first one.</p>
            }
          </mat-card-content>
        </mat-card>

        <app-lab-refreshes-card />

        <app-lab-tabs-card />

        @if (dpop) {
          <app-lab-dpop-card />
        }
      </section>

      <app-lab-timeline />

      <app-lab-wiring-panel />
    </main>
  `,
  styles: `
    .grid {
      display: grid;
      gap: 1rem;
      grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr));
    }
    .big {
      font-size: 2rem;
      margin: 0.5rem 0;
      font-variant-numeric: tabular-nums;
    }
    .row {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
    }
    .setting {
      display: grid;
    }
  `,
})
export class AuthLabPage {
  private readonly http = inject(HttpClient);
  private readonly auth = inject(AuthClient);
  /** The in-memory backend's switches, or null against a real server. */
  protected readonly server = inject(LAB_BACKEND);
  /** A real server's "expire now" (development only), or null. */
  protected readonly expireOnServer = inject(LAB_EXPIRE_ON_SERVER);
  /** The last DPoP proof, in the `real-dpop` build only (its app signs requests with `withDPoP()`). */
  protected readonly dpop = inject(LabDPoP, { optional: true });
  protected readonly log = inject(LabLog);
  protected readonly refreshing = injectTokenRefresh().isRefreshing;

  protected readonly counts = [1, 2, 5, 10, 20, 50];
  protected readonly count = signal(10);
  /** Refresh calls: the backend's count, or this tab's own (a real server has no counter to read). */
  private readonly refreshCalls = computed(() => this.server?.refreshCalls() ?? this.log.refreshCallsMade());
  /** Only those since the last burst was fired, so the start-up restore attempt is not among them. */
  protected readonly refreshCallsSinceBurst = computed(() => {
    const burst = this.log.burst();
    return burst === null ? null : this.refreshCalls() - burst.refreshCallsBefore;
  });
  protected readonly succeeded = computed(() => this.log.calls().filter((call) => call.outcome === 'ok').length);
  protected readonly failed = computed(() => this.log.calls().filter((call) => call.outcome === 'failed').length);

  /** Ticks four times a second, so the countdown moves. */
  private readonly now = signal(Date.now());
  /** The token the lab's "expire now" made the backend refuse, and when (until it is replaced). */
  private readonly expiredByLab = signal<{ readonly token: string; readonly at: number } | null>(null);
  /** Whether the token in hand is one the lab expired, ahead of its `exp`. */
  private readonly isExpiredByLab = computed(() => {
    const token = this.auth.accessToken();
    return token !== null && this.expiredByLab()?.token === token;
  });
  protected readonly expireFailed = signal(false);
  /** The access token in hand when the lab revoked the refresh token: the note stays until it changes. */
  private readonly revokedWith = signal<string | null>(null);
  protected readonly revokedNote = computed(() => {
    const token = this.auth.accessToken();
    return token !== null && token === this.revokedWith();
  });
  protected readonly remainingText = computed(() => {
    const token = this.auth.accessToken();
    const expiresAt = this.auth.expiresAt();
    if (!token || !expiresAt) return 'no token';
    // "Expire now" invalidates the token on the backend before its exp: show it as expired.
    if (this.isExpiredByLab()) return 'expired (by the lab)';
    const seconds = Math.max(0, Math.ceil((expiresAt.getTime() - this.now()) / 1000));
    return seconds === 0 ? 'expired' : `${seconds} s left`;
  });
  /** The line under it: when the token expires, or, once the lab expired it, when that was. */
  protected readonly expiryText = computed(() => {
    if (this.refreshing()) return 'Refreshing now…';
    const expiresAt = this.auth.expiresAt()?.toLocaleTimeString() ?? null;
    const byLab = this.expiredByLab();
    // Its exp is still ahead: "Expires <a later time>" next to "expired" would contradict itself.
    if (byLab && this.isExpiredByLab()) {
      return `Expired by the lab at ${new Date(byLab.at).toLocaleTimeString()}, ahead of its own expiry (${expiresAt ?? 'none'}); the next call refreshes it`;
    }
    return `Expires ${expiresAt ?? 'never (no token)'}`;
  });

  constructor() {
    interval(250)
      .pipe(takeUntilDestroyed())
      .subscribe(() => this.now.set(Date.now()));
  }

  protected expireNow(): void {
    this.expireFailed.set(false);
    if (this.server) {
      this.server.expireAccessTokensNow();
      this.markExpiredByLab();
      return;
    }
    // The server expires the token the call carried (a fresh one, if the call had to refresh first).
    this.expireOnServer?.().subscribe({
      next: () => this.markExpiredByLab(),
      error: () => this.expireFailed.set(true),
    });
  }

  private markExpiredByLab(): void {
    const token = this.auth.accessToken();
    if (token !== null) this.expiredByLab.set({ token, at: Date.now() });
    this.log.tokenExpiredByLab();
  }

  protected revoke(): void {
    this.server?.revokeRefreshToken();
    this.revokedWith.set(this.auth.accessToken());
  }

  /** Fires `count` calls at once, each tagged with its number so its timeline can be drawn. */
  protected fire(): void {
    for (const id of this.log.start(this.count(), this.refreshCalls())) {
      this.http.get(`/api/v1/users/${id}`, { context: new HttpContext().set(LAB_CALL, id) }).subscribe({
        error: (error: unknown) => this.log.fail(id, error instanceof HttpErrorResponse ? error.status : 0),
      });
    }
  }

  protected clear(): void {
    this.log.clear();
  }
}
