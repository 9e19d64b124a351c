import type { LabBurst, LabCall, LabRefresh } from './lab-log';

/**
 * What a bar of the timeline stands for; its colour and its text label both follow from it.
 * - `waiting`: the call was sent and waits for its answer; `repeat`: the same, for its repeat;
 * - `queued`: it met a 401 and waits for the refresh; `held`: it waited before being sent at all;
 * - `401`, `ok`, `error`, `refresh-failed`, `from-tab`: moments (an answer, the end of the wait);
 * - `refresh`, `refresh-ahead`, `refresh-restore`, `refresh-failed-call`, `token-from-tab`: the
 *   refresh lane.
 */
export type LabBarKind =
  | 'waiting'
  | 'repeat'
  | 'queued'
  | 'held'
  | '401'
  | 'ok'
  | 'error'
  | 'refresh-failed'
  | 'from-tab'
  | 'refresh'
  | 'refresh-ahead'
  | 'refresh-restore'
  | 'refresh-failed-call'
  | 'token-from-tab';

/** One bar (a span of time) or moment (`moment: true`, drawn as a tag at its time) of a row. */
export interface LabBar {
  readonly kind: LabBarKind;
  /** The text on the bar. */
  readonly label: string;
  readonly moment: boolean;
  /** Start and end, ms since the epoch (equal for a moment). */
  readonly start: number;
  readonly end: number;
  /** Still running: its end is "now". */
  readonly open: boolean;
  /** Position and length on the axis, in percent of its width. */
  readonly left: number;
  readonly width: number;
  /** Its exact times in words, for the tooltip and screen readers. */
  readonly description: string;
}

/** A row of the timeline: the refresh lane (`id` 0) or a call. */
export interface LabTimelineRow {
  readonly id: number;
  readonly label: string;
  readonly bars: readonly LabBar[];
}

/** A tick of the time axis. */
export interface LabTick {
  readonly left: number;
  readonly label: string;
}

/** The whole picture: the axis, the refresh lane, one row per call, the token's expiry. */
export interface LabTimelineLayout {
  /** Where the axis starts and ends (ms since the epoch). */
  readonly start: number;
  readonly end: number;
  readonly ticks: readonly LabTick[];
  readonly refreshLane: LabTimelineRow;
  readonly calls: readonly LabTimelineRow[];
  /**
   * The token's expiry: `left` on the axis, or `before: true` when it expired before the axis starts
   * (drawn at its left edge); `null` when it is after the axis ends or unknown.
   */
  readonly expiry: { readonly left: number; readonly before: boolean; readonly description: string } | null;
}

/** The shortest axis: a burst answered at once still gets room to show its phases. */
const MIN_SPAN_MS = 500;
/** Axis steps to pick from, so that it has at most MAX_TICKS ticks. */
const STEPS_MS = [50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000];
const MAX_TICKS = 8;

/**
 * Lays out the auth lab's timeline of a burst: each call's phases from its steps (each with its
 * time), the refreshes on one shared lane, and the token's expiry, on one time axis from the
 * burst's start (or an earlier refresh still in flight) to its last event, or `now` while something
 * is still running. Pure: the component only positions what this returns.
 */
export function layoutLabTimeline(
  burst: LabBurst,
  calls: readonly LabCall[],
  refreshes: readonly LabRefresh[],
  now: number,
): LabTimelineLayout {
  const start = Math.min(burst.startedAt, ...refreshes.map((refresh) => refresh.at));
  const spans = [
    ...calls.flatMap((call) => callSpans(call, now)),
    ...refreshes.map((refresh) => refreshSpan(refresh, now)),
  ];
  const last = Math.max(start, ...spans.map((span) => span.end));
  const end = Math.max(last, start + MIN_SPAN_MS);
  const place = (at: number): number => ((at - start) / (end - start)) * 100;
  const bar = (span: Span, who: string): LabBar => ({
    ...span,
    left: place(span.start),
    width: place(span.end) - place(span.start),
    description: describe(who, span, start),
  });

  const expiresAt = burst.tokenExpiresAt;
  return {
    start,
    end,
    ticks: ticks(end - start).map((offset) => ({ left: place(start + offset), label: formatOffset(offset) })),
    refreshLane: {
      id: 0,
      label: 'refresh',
      bars: refreshes.map((refresh) => bar(refreshSpan(refresh, now), 'Refresh call')),
    },
    calls: calls.map((call) => ({
      id: call.id,
      label: `#${call.id}`,
      bars: callSpans(call, now).map((span) => bar(span, `Call #${call.id}`)),
    })),
    expiry:
      expiresAt === null || expiresAt > end
        ? null
        : {
            left: Math.max(0, place(expiresAt)),
            before: expiresAt < start,
            description: `Token expired at ${formatClock(expiresAt)}${expiresAt < start ? `, ${formatOffset(start - expiresAt)} before the burst` : ''}`,
          },
  };
}

type Span = Omit<LabBar, 'left' | 'width' | 'description'>;

/** A call's bars: each step that begins a wait lasts until the next step (or now); answers are moments. */
function callSpans(call: LabCall, now: number): Span[] {
  return call.steps.flatMap((mark, index): Span[] => {
    const next = call.steps[index + 1];
    const until = (kind: LabBarKind, label: string): Span => ({
      kind,
      label,
      moment: false,
      start: mark.at,
      end: next?.at ?? (call.outcome === 'pending' ? Math.max(now, mark.at) : mark.at),
      open: next === undefined && call.outcome === 'pending',
    });
    const moment = (kind: LabBarKind, label: string): Span => ({
      kind,
      label,
      moment: true,
      start: mark.at,
      end: mark.at,
      open: false,
    });
    switch (mark.step) {
      case 'sent':
        return [until('waiting', 'sent')];
      case 'repeated':
        return [until('repeat', 'repeat')];
      case 'queued':
        return [until('queued', 'queued')];
      case 'held':
        return [until('held', 'held')];
      case '401':
        return [moment('401', '401')];
      case '200':
        return [moment('ok', '200')];
      case 'error':
        return [moment('error', call.status ? String(call.status) : 'error')];
      case 'refresh failed':
        return [moment('refresh-failed', 'refresh failed')];
      case 'token from another tab':
        return [moment('from-tab', 'token from another tab')];
      // The end of the wait, drawn on the refresh lane.
      case 'refresh':
        return [];
    }
  });
}

/** A refresh's bar on the shared lane, named after what started it and how it ended. */
function refreshSpan(refresh: LabRefresh, now: number): Span {
  const open = refresh.endedAt === undefined;
  const end = refresh.endedAt ?? Math.max(now, refresh.at);
  const base = { start: refresh.at, end, open, moment: false };
  if (refresh.outcome === 'token from another tab') {
    return refresh.cause === 'another tab refreshed'
      ? { ...base, kind: 'token-from-tab', label: 'token from another tab', moment: true }
      : { ...base, kind: 'token-from-tab', label: 'waited, took another tab’s token' };
  }
  if (refresh.outcome === 'failed') return { ...base, kind: 'refresh-failed-call', label: 'refresh failed' };
  if (refresh.outcome === 'no session') return { ...base, kind: 'refresh-restore', label: 'no session to restore' };
  if (refresh.outcome === 'failed, token kept') {
    return { ...base, kind: 'refresh-failed-call', label: 'refresh ahead failed, token kept' };
  }
  switch (refresh.cause) {
    case 'ahead of expiry':
      return { ...base, kind: 'refresh-ahead', label: 'refresh ahead of expiry' };
    case 'restoring the session':
      return { ...base, kind: 'refresh-restore', label: 'restoring the session' };
    case 'expired while away':
      return { ...base, kind: 'refresh-ahead', label: 'refresh (expired while away)' };
    default:
      return { ...base, kind: 'refresh', label: 'refresh' };
  }
}

/** "Call #3, queued: 12:00:01.234 to 12:00:01.540 (306 ms), +120 ms after the burst began". */
function describe(who: string, span: Span, origin: number): string {
  const from = `${formatClock(span.start)} (+${formatOffset(span.start - origin)})`;
  if (span.moment) return `${who}, ${span.label}: at ${from}`;
  const to = span.open ? 'now, still running' : formatClock(span.end);
  return `${who}, ${span.label}: ${from} to ${to} (${Math.round(span.end - span.start)} ms)`;
}

/** Offsets of the axis's ticks from its start, a round step apart. */
function ticks(span: number): number[] {
  const step = STEPS_MS.find((candidate) => span / candidate <= MAX_TICKS) ?? Math.ceil(span / MAX_TICKS / 1000) * 1000;
  return Array.from({ length: Math.floor(span / step) + 1 }, (_, index) => index * step);
}

/** "0", "250 ms", "1.5 s". */
function formatOffset(ms: number): string {
  if (ms === 0) return '0';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Number((ms / 1000).toFixed(2))} s`;
}

/** This device's wall-clock time to the millisecond: "14:03:07.215". */
function formatClock(at: number): string {
  const time = new Date(at);
  const two = (value: number): string => String(value).padStart(2, '0');
  return `${two(time.getHours())}:${two(time.getMinutes())}:${two(time.getSeconds())}.${String(time.getMilliseconds()).padStart(3, '0')}`;
}
