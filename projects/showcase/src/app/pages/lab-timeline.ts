import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  type ElementRef,
  afterRenderEffect,
  computed,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { MatTooltipModule } from '@angular/material/tooltip';
import { interval } from 'rxjs';

import { LabLog } from '../lab/lab-log';
import { layoutLabTimeline } from '../lab/lab-timeline-layout';

/**
 * The auth lab's timeline of the last burst: a time axis, the refresh calls on one shared lane, one
 * row per call with a bar for each phase (sent, queued or held, the repeat) and a tag for each
 * answer, and a line where the token expired. Every bar and tag says its exact times on hover and on
 * focus. On a narrow screen it scrolls sideways, and says so: a line above it and a shadow at each
 * edge that hides part of it. Answers (401, 200) are tags below their call's bars, so they never
 * hide a bar, however short; a refresh's label stands right of its bar, which may be too short for
 * it. It moves while the burst runs.
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
        @if (scroll().overflows) {
          <p class="scroll-hint" data-testid="timeline-scroll-hint">
            Wider than the screen: scroll it sideways (swipe, or focus it and use the arrow keys).
          </p>
        }
        <div class="frame" [class.more-left]="scroll().moreLeft" [class.more-right]="scroll().moreRight">
          <div
            #scroller
            class="scroller"
            tabindex="0"
            role="region"
            aria-label="Timeline; scrolls sideways on a narrow screen"
            (scroll)="measureScroll()"
          >
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
                      ><span class="bar-text">{{ bar.label }}</span></span
                    >
                  } @empty {
                    <span class="none">no refresh</span>
                  }
                </div>
              </div>
              @for (row of picture.calls; track row.id) {
                <div class="row call" data-testid="call-row" [attr.data-call]="row.id">
                  <span class="label">{{ row.label }}</span>
                  <div class="plot">
                    @for (bar of row.bars; track $index) {
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
          <!-- Shadows at the edges where more of the chart is out of sight. -->
          <span class="edge left" aria-hidden="true"></span>
          <span class="edge right" aria-hidden="true" data-testid="timeline-more-right"></span>
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

  private readonly scroller = viewChild<ElementRef<HTMLElement>>('scroller');
  /** Whether the chart is wider than its frame, and which edges hide part of it. */
  protected readonly scroll = signal({ overflows: false, moreLeft: false, moreRight: false }, { equal: sameScroll });

  constructor() {
    interval(100)
      .pipe(takeUntilDestroyed())
      .subscribe(() => this.now.set(Date.now()));
    // A new picture, or a narrower window (no change detection runs for a resize): measure again.
    const resize = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => this.measureScroll());
    inject(DestroyRef).onDestroy(() => resize?.disconnect());
    afterRenderEffect({
      read: () => {
        this.layout();
        const element = this.scroller()?.nativeElement;
        if (element) resize?.observe(element);
        this.measureScroll();
      },
    });
  }

  protected measureScroll(): void {
    const element = this.scroller()?.nativeElement;
    if (!element) return;
    const hidden = element.scrollWidth - element.clientWidth;
    // Sub-pixel widths: a pixel's difference is no overflow.
    this.scroll.set({
      overflows: hidden > 1,
      moreLeft: element.scrollLeft > 1,
      moreRight: hidden - element.scrollLeft > 1,
    });
  }
}

function sameScroll(a: ScrollState, b: ScrollState): boolean {
  return a.overflows === b.overflows && a.moreLeft === b.moreLeft && a.moreRight === b.moreRight;
}

interface ScrollState {
  readonly overflows: boolean;
  readonly moreLeft: boolean;
  readonly moreRight: boolean;
}
