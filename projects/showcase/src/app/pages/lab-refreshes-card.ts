import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, DOCUMENT, computed, inject, signal } from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { MatCardModule } from '@angular/material/card';
import { interval } from 'rxjs';

import { LAB_BACKEND } from '../lab/lab-backend';
import { LabLog } from '../lab/lab-log';
import { LAB_PROACTIVE } from '../lab/lab-proactive';

/**
 * The auth lab's Refreshes card: whether this tab refreshes ahead of expiry (with a link that
 * reloads the tab with the other choice), when the next refresh is due, and this tab's last
 * refreshes with what started each one.
 */
@Component({
  selector: 'app-lab-refreshes-card',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, MatCardModule],
  template: `
    <mat-card appearance="outlined">
      <mat-card-header><mat-card-title>Refreshes</mat-card-title></mat-card-header>
      <mat-card-content>
        <p>
          Proactive refresh: <strong data-testid="proactive">{{ proactive ? 'on' : 'off' }}</strong> ·
          <a [href]="switchHref" data-testid="proactive-switch">turn {{ proactive ? 'off' : 'on' }}</a>
          <span class="muted">
            (reloads this tab{{ inMemory ? ', which signs out: the in-memory server starts afresh' : '' }})
          </span>
        </p>
        @if (proactive && log.tokenExpiredByLabAt() !== null) {
          <!-- The refresh planned for the token's own expiry is still ahead, but the server refuses it now. -->
          <p>
            Next refresh: <strong data-testid="next-refresh">with the next call</strong>
            <span class="muted" data-testid="next-refresh-reason">
              (the lab expired the token: the server answers the next call with 401, which refreshes it)
            </span>
          </p>
        } @else if (proactive) {
          <p>
            Next refresh due:
            <strong data-testid="next-refresh">{{ nextRefreshText() }}</strong>
          </p>
        } @else {
          <p class="muted" data-testid="next-refresh-note">
            Off in this tab: the token is refreshed by the first call that meets a 401 after it expires.
          </p>
        }
        <ol class="refreshes" aria-label="This tab's last refreshes, newest first">
          @for (refresh of log.refreshes(); track refresh.id) {
            <li data-testid="refresh-row">
              <span class="time">{{ refresh.at | date: 'mediumTime' }}</span>
              <span class="chip" [attr.data-cause]="refresh.cause">{{ refresh.cause }}</span>
              <span class="chip" [attr.data-outcome]="refresh.outcome">{{ refresh.outcome }}</span>
            </li>
          } @empty {
            <li class="muted">None since this tab started.</li>
          }
        </ol>
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
    .refreshes {
      list-style: none;
      padding: 0;
      margin: 0;
      display: grid;
      gap: 0.25rem;
      font-size: 0.875rem;
    }
    li {
      display: flex;
      flex-wrap: wrap;
      gap: 0.25rem;
      align-items: center;
    }
    .time {
      font-variant-numeric: tabular-nums;
    }
    .chip {
      padding: 0.1rem 0.5rem;
      border-radius: 1rem;
      background: var(--mat-sys-surface-container-high);
    }
    .chip[data-cause='ahead of expiry'] {
      background: var(--mat-sys-tertiary-container);
    }
    .chip[data-outcome='refreshed'],
    .chip[data-outcome='token from another tab'] {
      background: var(--mat-sys-primary-container);
    }
    .chip[data-outcome^='failed'] {
      background: var(--mat-sys-error-container);
    }
  `,
})
export class LabRefreshesCard {
  protected readonly log = inject(LabLog);
  /** Whether this tab runs withProactiveRefresh(). */
  protected readonly proactive = inject(LAB_PROACTIVE);
  /** With the in-memory backend a reload ends the session: its server lives in the page. */
  protected readonly inMemory = inject(LAB_BACKEND) !== null;
  private readonly document = inject(DOCUMENT);

  /** This page again, with the other choice (read when the app starts: a full reload). */
  protected readonly switchHref = `${this.document.location.pathname}?proactive=${this.proactive ? 'off' : 'on'}`;

  /** Ticks four times a second, so the countdown moves. */
  private readonly now = signal(Date.now());
  protected readonly nextRefreshText = computed(() => {
    const at = this.log.nextRefreshAt();
    if (at === null) return 'none';
    const seconds = Math.max(0, Math.ceil((at - this.now()) / 1000));
    const time = new Date(at).toLocaleTimeString();
    // Past due: the refresh starts as soon as the page is visible (a hidden page waits to be shown).
    return seconds === 0 ? `now (${time})` : `in ${seconds} s (${time})`;
  });

  constructor() {
    interval(250)
      .pipe(takeUntilDestroyed())
      .subscribe(() => this.now.set(Date.now()));
  }
}
