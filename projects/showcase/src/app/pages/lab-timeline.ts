import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { MatTooltipModule } from '@angular/material/tooltip';
import { interval } from 'rxjs';

import { LabLog } from '../lab/lab-log';
import { layoutLabTimeline } from '../lab/lab-timeline-layout';

/**
 * The auth lab's timeline of the last burst: a time axis, the refresh calls on one shared lane, one
 * row per call with a bar for each phase (sent, queued or held, the repeat) and a tag for each
 * answer, and a line where the token expired. Every bar and tag says its exact times on hover and on
 * focus. It scrolls sideways on a narrow screen, and moves while the burst runs.
 */
@Component({
  selector: 'app-lab-timeline',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatTooltipModule],
  template: `
    <section class="timeline" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline of the last burst</h2>
      <ul class="legend" aria-label="Legend">
        <li><span class="swatch" data-kind="waiting"></span>sent, waiting for the answer</li>
        <li><span class="swatch" data-kind="401"></span>401 or other error</li>
        <li><span class="swatch" data-kind="queued"></span>queued or held for the refresh</li>
        <li><span class="swatch" data-kind="refresh"></span>refresh call</li>
        <li><span class="swatch" data-kind="repeat"></span>repeat</li>
        <li><span class="swatch" data-kind="ok"></span>200</li>
        <li><span class="swatch expiry-swatch"></span>token expired</li>
      </ul>
      @if (layout(); as picture) {
        <div class="scroller" tabindex="0" role="region" aria-label="Timeline; scrolls sideways on a narrow screen">
          <div class="chart" data-testid="timeline">
            <div class="row axis" aria-hidden="true">
              <span class="label">ms</span>
              <div class="plot">
                @for (tick of picture.ticks; track tick.label) {
                  <span class="tick" [style.left.%]="tick.left">{{ tick.label }}</span>
                }
              </div>
            </div>
            <div class="row lane" data-testid="refresh-lane">
              <span class="label">refresh</span>
              <div class="plot">
                @for (bar of picture.refreshLane.bars; track $index) {
                  <span
                    class="bar"
                    [class.moment]="bar.moment"
                    [class.open]="bar.open"
                    [attr.data-kind]="bar.kind"
                    [style.left.%]="bar.left"
                    [style.width.%]="bar.moment ? null : bar.width"
                    role="img"
                    tabindex="0"
                    [attr.aria-label]="bar.description"
                    [matTooltip]="bar.description"
                    data-testid="refresh-bar"
                    >{{ bar.label }}</span
                  >
                } @empty {
                  <span class="none">no refresh</span>
                }
              </div>
            </div>
            @for (row of picture.calls; track row.id) {
              <div class="row" data-testid="call-row" [attr.data-call]="row.id">
                <span class="label">{{ row.label }}</span>
                <div class="plot">
                  @for (bar of row.bars; track $index) {
                    <span
                      class="bar"
                      [class.moment]="bar.moment"
                      [class.open]="bar.open"
                      [class.after-tag]="$index > 0 && row.bars[$index - 1].moment"
                      [attr.data-kind]="bar.kind"
                      [style.left.%]="bar.left"
                      [style.width.%]="bar.moment ? null : bar.width"
                      role="img"
                      tabindex="0"
                      [attr.aria-label]="bar.description"
                      [matTooltip]="bar.description"
                      [attr.data-testid]="'bar-' + bar.kind"
                      >{{ bar.label }}</span
                    >
                  }
                </div>
              </div>
            }
            <div class="overlay" aria-hidden="true">
              @for (tick of picture.ticks; track tick.label) {
                <span class="grid-line" [style.left.%]="tick.left"></span>
              }
              <!-- Where each refresh ended: the queued calls' repeats start on this line. -->
              @for (bar of picture.refreshLane.bars; track $index) {
                @if (!bar.moment && !bar.open) {
                  <span class="refresh-end" [attr.data-kind]="bar.kind" [style.left.%]="bar.left + bar.width"></span>
                }
              }
            </div>
            @if (picture.expiry; as expiry) {
              <div class="overlay">
                <span
                  class="expiry"
                  [class.before]="expiry.before"
                  [style.left.%]="expiry.left"
                  role="img"
                  tabindex="0"
                  [attr.aria-label]="expiry.description"
                  [matTooltip]="expiry.description"
                  data-testid="expiry-marker"
                  ><span class="expiry-label">{{
                    expiry.before ? '◂ token expired earlier' : 'token expired'
                  }}</span></span
                >
              </div>
            }
          </div>
        </div>
        @if (refreshFailed()) {
          <p class="error-text" data-testid="timeline-note">
            The refresh failed: every call waiting for it failed with it, and the session ended.
          </p>
        }
      } @else {
        <p class="muted" data-testid="timeline-empty">
          Fire a burst to see each call's way on a time axis. With an expired token: sent, 401, queued behind the one
          refresh call, repeated, 200.
        </p>
      }
    </section>
  `,
  styleUrl: './lab-timeline.css',
})
export class LabTimeline {
  private readonly log = inject(LabLog);
  /** Ticks ten times a second, so the running bars grow. */
  private readonly now = signal(Date.now());
  protected readonly layout = computed(() => {
    const burst = this.log.burst();
    if (!burst) return null;
    const calls = this.log.calls();
    const refreshes = this.log.burstRefreshList();
    const running = calls.some((call) => call.outcome === 'pending') || refreshes.some((r) => r.endedAt === undefined);
    // Read the clock only while something runs: a finished picture stays still.
    return layoutLabTimeline(burst, calls, refreshes, running ? this.now() : burst.startedAt);
  });
  protected readonly refreshFailed = computed(() =>
    this.log.burstRefreshList().some((refresh) => refresh.outcome === 'failed'),
  );

  constructor() {
    interval(100)
      .pipe(takeUntilDestroyed())
      .subscribe(() => this.now.set(Date.now()));
  }
}
