import { HttpClient } from '@angular/common/http';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { MatCardModule } from '@angular/material/card';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { injectBffSession, parseApiError } from 'ngx-token-refresh/client';
import { type Observable, catchError, forkJoin, map, of } from 'rxjs';

import { BffSessionNotice } from '../bff-session-notice';

/** One call of a burst: its status, and who the API said the token was for, or the BFF's error code. */
interface CallOutcome {
  readonly status: number;
  readonly sub?: string;
  readonly code?: string;
}

/** The last burst: its number, its calls' outcomes and how long it took. */
interface Burst {
  readonly number: number;
  readonly outcomes: readonly CallOutcome[];
  readonly ms: number;
}

/** The most calls one burst fires. */
const MAX_BURST = 50;

/**
 * The page of the showcase's `bff` build: who is signed in, and a burst of concurrent API calls through
 * the BFF (`GET /api/me`, which the server forwards to the provider's userinfo endpoint with the
 * session's access token, refreshed there once however many calls find it expired).
 */
@Component({
  selector: 'app-bff-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatCardModule, MatFormFieldModule, MatInputModule],
  template: `
    <main class="page bff">
      <mat-card appearance="outlined">
        <mat-card-header>
          <mat-card-title>Session</mat-card-title>
          <mat-card-subtitle>held by the server; this page has an HttpOnly cookie and no token</mat-card-subtitle>
        </mat-card-header>
        <mat-card-content>
          <p data-testid="session-status">
            @switch (session.status()) {
              @case ('signedIn') {
                Signed in as <strong>{{ session.user()?.sub }}</strong>.
              }
              @case ('signedOut') {
                Signed out.
              }
              @default {
                Asking the server…
              }
            }
          </p>
          @if (lastEnd(); as end) {
            <p class="notice" role="status" data-testid="session-ended" [attr.data-count]="notice.ends().length">
              The session ended: {{ end.message }}
            </p>
          }
          <p class="muted">
            The sign-in happens on the server, which keeps the access and refresh tokens and calls the API with them.
            Scripts on this page, whatever they are, can read neither: there is no token here to steal (a hostile script
            could still call the API through the BFF while the page is open).
          </p>
        </mat-card-content>
      </mat-card>

      <mat-card appearance="outlined">
        <mat-card-header>
          <mat-card-title>Calls through the BFF</mat-card-title>
          <mat-card-subtitle>GET /api/me, forwarded to the provider's userinfo endpoint</mat-card-subtitle>
        </mat-card-header>
        <mat-card-content>
          <mat-form-field appearance="outline">
            <mat-label>Concurrent calls</mat-label>
            <input
              matInput
              type="number"
              min="1"
              [max]="max"
              [value]="size()"
              (input)="setSize($event)"
              data-testid="burst-size"
            />
          </mat-form-field>
          @if (burst(); as last) {
            <p
              data-testid="burst-result"
              [class.error-text]="ok() < last.outcomes.length"
              [attr.data-burst]="last.number"
              [attr.data-ok]="ok()"
              [attr.data-failed]="last.outcomes.length - ok()"
            >
              {{ summary() }}
            </p>
            @if (subjects(); as subs) {
              <p class="muted">The API saw the access token of {{ subs }}.</p>
            }
          }
        </mat-card-content>
        <mat-card-actions align="end">
          <button
            mat-flat-button
            (click)="fire()"
            [disabled]="running() || session.status() !== 'signedIn'"
            data-testid="burst"
          >
            Call /api/me × {{ size() }}
          </button>
        </mat-card-actions>
      </mat-card>
    </main>
  `,
  styles: `
    .bff {
      display: grid;
      gap: 1.5rem;
      max-width: 40rem;
    }
    mat-form-field {
      display: block;
      max-width: 12rem;
    }
    .notice {
      padding: 0.75rem 1rem;
      border-radius: 0.5rem;
      background: var(--mat-sys-tertiary-container);
      color: var(--mat-sys-on-tertiary-container);
    }
  `,
})
export class BffPage {
  protected readonly session = injectBffSession();
  protected readonly notice = inject(BffSessionNotice);
  private readonly http = inject(HttpClient);
  protected readonly max = MAX_BURST;
  protected readonly size = signal(10);
  protected readonly running = signal(false);
  protected readonly burst = signal<Burst | null>(null);
  protected readonly lastEnd = computed(() => this.notice.ends().at(-1) ?? null);
  protected readonly ok = computed(() => this.burst()?.outcomes.filter(({ status }) => status === 200).length ?? 0);
  /** `Burst 2: 10 calls, 8 answered 200, 2 × 503 ProviderUnavailable, in 85 ms.` */
  protected readonly summary = computed(() => {
    const burst = this.burst();
    if (burst === null) return '';
    const failed = new Map<string, number>();
    for (const { status, code } of burst.outcomes) {
      if (status !== 200) failed.set(`${status} ${code}`, (failed.get(`${status} ${code}`) ?? 0) + 1);
    }
    const failures = [...failed].map(([what, count]) => `, ${count} × ${what}`).join('');
    return `Burst ${burst.number}: ${burst.outcomes.length} calls, ${this.ok()} answered 200${failures}, in ${burst.ms} ms.`;
  });
  protected readonly subjects = computed(() =>
    [...new Set(this.burst()?.outcomes.flatMap(({ sub }) => (sub === undefined ? [] : [sub])))].join(', '),
  );

  protected setSize(event: Event): void {
    const value = Math.round(Number((event.target as HTMLInputElement).value));
    this.size.set(Math.min(MAX_BURST, Math.max(1, Number.isFinite(value) ? value : 1)));
  }

  /** Fires `size` calls at once and shows how they ended. */
  protected fire(): void {
    const started = performance.now();
    const number = (this.burst()?.number ?? 0) + 1;
    this.running.set(true);
    forkJoin(Array.from({ length: this.size() }, () => this.callMe())).subscribe((outcomes) => {
      this.burst.set({ number, outcomes, ms: Math.round(performance.now() - started) });
      this.running.set(false);
    });
  }

  private callMe(): Observable<CallOutcome> {
    // `no-store`: past the browser's HTTP cache, which would hold back every request of a URL while
    // one is under way (Chromium's cache lock), and so turn the burst into a queue.
    return this.http.get<{ sub?: string }>('/api/me', { cache: 'no-store' }).pipe(
      map((body) => ({ status: 200, sub: body.sub })),
      catchError((error: unknown) => {
        const { status, code } = parseApiError(error);
        return of({ status, code });
      }),
    );
  }
}
