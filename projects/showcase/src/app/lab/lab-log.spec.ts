import { HttpClient, HttpContext, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { inject } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  type TokenRefreshFeature,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
  withProactiveRefresh,
} from 'ngx-token-refresh';
import { createTestJwt } from 'ngx-token-refresh/testing';

import { LAB_CALL } from './lab-call';
import { labCallTracker } from './lab-call-tracker';
import { type LabCall, LabLog } from './lab-log';
import { layoutLabTimeline } from './lab-timeline-layout';

describe('the auth lab timeline', () => {
  afterEach(() => TestBed.inject(HttpTestingController).verify());

  it('draws sent → 401 → queued → refresh → repeated → 200 for each call of a burst', () => {
    const { http, httpTesting, log } = setup();
    const ids = log.start(2);
    for (const id of ids) fire(http, id);

    for (const id of ids) httpTesting.expectOne(`/api/v1/users/${id}`).flush(null, UNAUTHORIZED);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });
    for (const id of ids) httpTesting.expectOne(`/api/v1/users/${id}`).flush({ id });

    expect(withStepNames(log.calls())).toEqual([
      { id: 1, steps: ['sent', '401', 'queued', 'refresh', 'repeated', '200'], outcome: 'ok', status: 200 },
      { id: 2, steps: ['sent', '401', 'queued', 'refresh', 'repeated', '200'], outcome: 'ok', status: 200 },
    ]);
  });

  it('shows a call held during the refresh, and a failed refresh as the end of every waiting call', () => {
    const { http, httpTesting, log } = setup();
    log.start(2);
    fire(http, 1, (status) => log.fail(1, status));
    httpTesting.expectOne('/api/v1/users/1').flush(null, UNAUTHORIZED);
    fire(http, 2, (status) => log.fail(2, status));

    httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);
    httpTesting.expectOne('/api/v1/users/2').flush(null, UNAUTHORIZED);

    expect(withStepNames(log.calls())).toEqual([
      { id: 1, steps: ['sent', '401', 'queued', 'refresh failed'], outcome: 'failed', status: 401 },
      { id: 2, steps: ['held', 'refresh failed', 'sent', '401'], outcome: 'failed', status: 401 },
    ]);
  });

  it('ignores requests that are not lab calls', () => {
    const { http, httpTesting, log } = setup();
    log.start(1);
    http.get('/api/v1/users/7').subscribe();
    httpTesting.expectOne('/api/v1/users/7').flush({ id: 7 });

    expect(log.calls()).toEqual([{ id: 1, steps: [], outcome: 'pending' }]);
  });
});

describe('the auth lab timeline’s picture (a fake clock)', () => {
  beforeEach(() => jest.useFakeTimers({ now: START }));
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    jest.useRealTimers();
  });

  it('draws one refresh bar, and every queued call’s repeat starts when it ends', () => {
    const { http, httpTesting, log, state } = setup();
    state.setToken(token(30));
    log.tokenExpiredByLab();
    jest.advanceTimersByTime(1000);
    const ids = log.start(3);
    for (const id of ids) fire(http, id);
    jest.advanceTimersByTime(400);
    for (const id of ids) httpTesting.expectOne(`/api/v1/users/${id}`).flush(null, UNAUTHORIZED);
    jest.advanceTimersByTime(400);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: token(30) });
    jest.advanceTimersByTime(400);
    for (const id of ids) httpTesting.expectOne(`/api/v1/users/${id}`).flush({ id });

    const picture = layoutLabTimeline(log.burst()!, log.calls(), log.burstRefreshList(), Date.now());
    expect(picture.refreshLane.bars.map(({ label, start, end }) => [label, start - START, end - START])).toEqual([
      ['refresh', 1400, 1800],
    ]);
    for (const row of picture.calls) {
      expect(row.bars.map(({ label, start, end }) => [label, start - START, end - START])).toEqual([
        ['sent', 1000, 1400],
        ['401', 1400, 1400],
        ['queued', 1400, 1800],
        ['repeat', 1800, 2200],
        ['200', 2200, 2200],
      ]);
    }
    const refresh = picture.refreshLane.bars[0]!;
    const repeat = picture.calls[0]!.bars[3]!;
    expect(repeat.left).toBeCloseTo(refresh.left + refresh.width);
    // "Expire now" a second before the burst: marked at the axis's left edge, as earlier.
    expect(picture.expiry).toMatchObject({ left: 0, before: true });
    expect(repeat.description).toMatch(
      /^Call #1, repeat: \d\d:\d\d:\d\d\.800 \(\+800 ms\) to \d\d:\d\d:\d\d\.200 \(400 ms\)$/,
    );
  });

  it('ends every waiting call on a failed refresh', () => {
    const { http, httpTesting, log, state } = setup();
    state.setToken(token(30));
    const ids = log.start(2);
    for (const id of ids) fire(http, id, (status) => log.fail(id, status));
    for (const id of ids) httpTesting.expectOne(`/api/v1/users/${id}`).flush(null, UNAUTHORIZED);
    jest.advanceTimersByTime(300);
    httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);

    const picture = layoutLabTimeline(log.burst()!, log.calls(), log.burstRefreshList(), Date.now());
    expect(picture.refreshLane.bars.map(({ kind, label }) => [kind, label])).toEqual([
      ['refresh-failed-call', 'refresh failed'],
    ]);
    for (const row of picture.calls) expect(row.bars.at(-1)?.label).toBe('refresh failed');
  });

  it('draws a refresh ahead of expiry as a bar with no 401, and a running bar up to now', () => {
    const { http, httpTesting, log, state } = setup(withProactiveRefresh());
    // A 16-second token: its refresh ahead of expiry is due 12 s (or up to 13 s) on, within the picture.
    state.setToken(token(16));
    log.start(1);
    fire(http, 1);
    jest.advanceTimersByTime(200);
    httpTesting.expectOne('/api/v1/users/1').flush({ id: 1 });
    jest.advanceTimersByTime(12_300);
    fire(http, 1);
    jest.advanceTimersByTime(100);

    const running = layoutLabTimeline(log.burst()!, log.calls(), log.burstRefreshList(), Date.now());
    expect(running.refreshLane.bars.map(({ label, open }) => [label, open])).toEqual([
      ['refresh ahead of expiry', true],
    ]);
    expect(running.end).toBe(Date.now());
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: token(30) });
    httpTesting.expectOne('/api/v1/users/1').flush({ id: 1 });
  });
});

describe('the auth lab’s refreshes', () => {
  beforeEach(() => jest.useFakeTimers({ now: START }));
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    jest.useRealTimers();
  });

  it('follows when the next refresh is due, and lists a refresh ahead of expiry as such', () => {
    const { httpTesting, log, state } = setup(withProactiveRefresh());
    expect(log.nextRefreshAt()).toBeNull();

    state.setToken(token(30));
    // A 30-second token: due about three quarters into its life (the library errs up to a second early).
    const due = log.nextRefreshAt() ?? NaN;
    expect(due - START).toBeGreaterThanOrEqual(21_000);
    expect(due - START).toBeLessThanOrEqual(22_500);
    expect(log.refreshes()).toEqual([]);

    jest.advanceTimersByTime(due - START);
    expect(log.refreshes()).toEqual([{ id: 1, at: due, cause: 'ahead of expiry', outcome: 'pending' }]);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: token(30) });

    expect(log.refreshes()).toEqual([{ id: 1, at: due, endedAt: due, cause: 'ahead of expiry', outcome: 'refreshed' }]);
    expect((log.nextRefreshAt() ?? NaN) - due).toBeGreaterThanOrEqual(21_000);
    expect((log.nextRefreshAt() ?? NaN) - due).toBeLessThanOrEqual(22_500);
    state.setToken(null);
    expect(log.nextRefreshAt()).toBeNull();
  });

  it('tells a failed refresh ahead of expiry (the token stays) from one after a 401, and the ones without a call', () => {
    const { http, httpTesting, log, state } = setup(withProactiveRefresh());
    state.setToken(token(30));
    jest.advanceTimersByTime(DUE_30_S);
    httpTesting.expectOne('/auth/refresh').flush(null, { status: 503, statusText: 'Service Unavailable' });
    expect(state.token()).not.toBeNull();

    log.start(1);
    fire(http, 1);
    httpTesting.expectOne('/api/v1/users/1').flush(null, UNAUTHORIZED);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: token(30) });
    httpTesting.expectOne('/api/v1/users/1').flush({ id: 1 });
    // Started without a call while there is a token, and not ahead: withProactiveRefresh's refresh of
    // a token that expired while the page was hidden or the device asleep.
    state.refresh().subscribe();
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: token(30) });
    // Without a token: authGuard's restoreSession, when a tab starts.
    state.setToken(null);
    state.refresh().subscribe({ error: () => undefined });
    httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);

    expect(log.refreshes().map(({ cause, outcome }) => `${cause}: ${outcome}`)).toEqual([
      'restoring the session: no session',
      'expired while away: refreshed',
      'after a 401: refreshed',
      'ahead of expiry: failed, token kept',
    ]);
  });

  it('counts the refresh of a burst, but not a refresh ahead of expiry after it', () => {
    const { http, httpTesting, log, state } = setup(withProactiveRefresh());
    state.setToken(token(30));
    const ids = log.start(2);
    for (const id of ids) fire(http, id);
    for (const id of ids) httpTesting.expectOne(`/api/v1/users/${id}`).flush(null, UNAUTHORIZED);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: token(30) });
    for (const id of ids) httpTesting.expectOne(`/api/v1/users/${id}`).flush({ id });
    expect(log.burstRefreshes()).toBe(1);

    jest.advanceTimersByTime(DUE_30_S);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: token(30) });

    expect(log.refreshes().map(({ cause }) => cause)).toEqual(['ahead of expiry', 'after a 401']);
    expect(log.burstRefreshes()).toBe(1);
    log.start(1);
    expect(log.burstRefreshes()).toBe(0);
  });

  it('keeps the newest five refreshes', () => {
    const { httpTesting, log, state } = setup();
    for (let i = 0; i < 7; i++) {
      state.refresh().subscribe();
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: token(30) });
    }
    expect(log.refreshes().map(({ id }) => id)).toEqual([7, 6, 5, 4, 3]);
    // Without withProactiveRefresh nothing is ever due.
    expect(log.nextRefreshAt()).toBeNull();
  });
});

const UNAUTHORIZED = { status: 401, statusText: 'Unauthorized' };
const START = Date.UTC(2030, 0, 1, 12);
/** By then a 30-second token's refresh ahead of expiry has started (due 7.5 s, or up to 8.5 s, before its exp). */
const DUE_30_S = 22_500;

/** A JWT issued now (the fake clock's now) that lives `seconds`. */
function token(seconds: number): string {
  const now = Math.floor(Date.now() / 1000);
  return createTestJwt({ iat: now, exp: now + seconds });
}

function setup(...features: TokenRefreshFeature[]) {
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor, labCallTracker])),
      provideHttpClientTesting(),
      provideTokenRefresh(
        {
          refreshApiCall: () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response' }),
          extractToken: (response) => (response.body as { accessToken: string }).accessToken,
        },
        ...features,
      ),
    ],
  });
  return {
    http: TestBed.inject(HttpClient),
    httpTesting: TestBed.inject(HttpTestingController),
    log: TestBed.inject(LabLog),
    state: TestBed.runInInjectionContext(() => injectTokenRefresh()),
  };
}

function fire(http: HttpClient, id: number, failed: (status: number) => void = () => undefined): void {
  http
    .get(`/api/v1/users/${id}`, { context: new HttpContext().set(LAB_CALL, id) })
    .subscribe({ error: (error: { status: number }) => failed(error.status) });
}

/** The calls with each step's name only (the times are checked on their own). */
function withStepNames(calls: readonly LabCall[]) {
  return calls.map((call) => ({ ...call, steps: call.steps.map((mark) => mark.step) }));
}
