import { type HttpRequest, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { provideZonelessChangeDetection } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router, provideRouter } from '@angular/router';
import { RouterTestingHarness } from '@angular/router/testing';
import { tokenRefreshInterceptor, withProactiveRefresh } from 'ngx-token-refresh';
import { AuthClient, provideAuth } from 'ngx-token-refresh/client';
import { createTestJwt } from 'ngx-token-refresh/testing';
import { firstValueFrom } from 'rxjs';

import { routes } from '../app.routes';
import { DemoServerState } from '../backend/demo-server-state';
import {
  REFRESH_TOKEN_REUSE_INTERVAL_SECONDS,
  authFeatures,
  backendInterceptors,
  provideBackend,
} from '../backend-providers.real';
import { labCallTracker } from '../lab/lab-call-tracker';
import { provideLabLog } from '../lab/lab-log';
import { LAB_PROACTIVE } from '../lab/lab-proactive';
import { byTestId, settle, setupShowcase, signIn } from '../showcase-test-bed.spec-helper';

describe('AuthLabPage', () => {
  it('counts down the token and shows it expired by the lab', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/lab');
    await settle(harness);
    expect(byTestId('token-remaining')?.textContent?.trim()).toMatch(/^([1-9]|[12][0-9]|30) s left$/);

    byTestId('expire-token')?.click();
    harness.detectChanges();

    expect(byTestId('token-remaining')?.textContent?.trim()).toBe('expired (by the lab)');
  });

  it('serves a burst with an expired token with one refresh and draws every call', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/lab');
    await settle(harness);
    byTestId('expire-token')?.click();

    byTestId('fire-calls')?.click();
    await settle(harness);

    expect(byTestId('success-count')?.textContent?.trim()).toBe('10');
    expect(byTestId('burst-refresh-count')?.textContent?.trim()).toBe('1');
    expect(TestBed.inject(DemoServerState).refreshCalls()).toBe(1);
    const rows = [...document.querySelectorAll('[data-testid="call-row"]')];
    expect(rows).toHaveLength(10);
    const bars = [...(rows[0]?.querySelectorAll('.bar') ?? [])].map((bar) => bar.textContent?.trim());
    expect(bars).toEqual(['sent', '401', 'queued', 'repeat', '200']);
    expect(document.querySelectorAll('[data-testid="refresh-bar"]')).toHaveLength(1);
  });

  it('shows proactive refresh on, the next refresh due about 22 s after sign-in (a 30 s token), "with the next call" once the lab expired the token, and each refresh’s cause', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/lab');
    await settle(harness);

    expect(byTestId('proactive')?.textContent?.trim()).toBe('on');
    expect(byTestId('proactive-switch')?.textContent?.trim()).toBe('turn off');
    expect(byTestId('proactive-switch')?.getAttribute('href')).toMatch(/^\/[^?]*\?proactive=off$/);
    expect(byTestId('proactive-switch')?.parentElement?.textContent).toContain('signs out');
    expect(byTestId('next-refresh')?.textContent?.trim()).toMatch(/^in (2[0-3]) s \(.+\)$/);
    expect(document.querySelectorAll('[data-testid="refresh-row"]')).toHaveLength(0);

    byTestId('expire-token')?.click();
    harness.detectChanges();
    // Not the countdown to the planned refresh: the server refuses the token now.
    expect(byTestId('next-refresh')?.textContent?.trim()).toBe('with the next call');
    expect(byTestId('next-refresh-reason')?.textContent).toContain('the lab expired the token');

    byTestId('fire-calls')?.click();
    await settle(harness);

    expect(refreshRows()).toEqual(['after a 401 · refreshed']);
    expect(byTestId('next-refresh-reason')).toBeNull();
    expect(byTestId('burst-refresh-count')?.textContent?.trim()).toBe('1');
    expect(byTestId('next-refresh')?.textContent?.trim()).toMatch(/^in (2[0-3]) s \(.+\)$/);
  });

  it('says at once that the refresh token is revoked; at the next refresh returns to the login page, which says that the session has ended', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/lab');
    await settle(harness);
    expect(byTestId('revoke-note')).toBeNull();
    byTestId('revoke-refresh')?.click();
    harness.detectChanges();
    const note = byTestId('revoke-note');
    expect(note?.textContent).toContain('Refresh token revoked: the next refresh fails and ends the session');
    expect(note?.parentElement?.getAttribute('role')).toBe('status');
    byTestId('expire-token')?.click();

    byTestId('fire-calls')?.click();
    await settle(harness);

    expect(TestBed.inject(Router).url).toBe('/login?reason=expired&returnUrl=%2Flab');
    expect(byTestId('session-message')?.textContent).toContain('Your session has ended');
  });
});

describe('AuthLabPage: the Tabs card with the in-memory backend', () => {
  afterEach(() => jest.restoreAllMocks());

  it('says that every tab has its own in-memory server, with cross-tab sync off, and what this tab’s last refresh did', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/lab');
    await settle(harness);

    expect(byTestId('cross-tab-sync')?.textContent?.trim()).toBe('off');
    expect(byTestId('tabs-note')?.textContent).toContain('Each tab runs its own in-memory server');
    expect(byTestId('tabs-note')?.textContent).toContain('npm run start:real');
    expect(byTestId('reuse-interval')).toBeNull();
    expect(byTestId('last-refresh')?.textContent?.trim()).toBe('none since this page opened');

    byTestId('expire-token')?.click();
    byTestId('fire-calls')?.click();
    await settle(harness);

    expect(byTestId('last-refresh')?.textContent?.trim()).toBe('refreshed (this tab made the call)');
  });

  it('opens another tab of the lab, without a handle back to this one', async () => {
    const open = jest.spyOn(window, 'open').mockReturnValue(null);
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/lab');
    await settle(harness);

    byTestId('open-tab')?.click();

    expect(open).toHaveBeenCalledTimes(1);
    expect(open).toHaveBeenCalledWith(document.location.href, '_blank', 'noopener');
  });
});

describe('AuthLabPage against a real server (no backend switches)', () => {
  afterEach(() => TestBed.inject(HttpTestingController).verify());

  it('offers only the server-backed "expire now", and counts the refresh from the library’s events', async () => {
    const { harness, httpTesting } = await openLabAgainstServer();

    expect(byTestId('expire-token')).not.toBeNull();
    expect(byTestId('revoke-refresh')).toBeNull();
    expect(byTestId('real-server-note')).not.toBeNull();
    expect(byTestId('refresh-count')?.textContent?.trim()).toBe('no burst yet');

    byTestId('fire-calls')?.click();
    const calls = httpTesting.match(USER_CALL);
    expect(calls).toHaveLength(10);
    for (const call of calls) call.flush(null, { status: 401, statusText: 'Unauthorized' });
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: createTestJwt({ sub: 'ada' }) });
    for (const call of httpTesting.match(USER_CALL)) call.flush({ id: 1, name: 'Ada', email: 'ada@example.com' });
    await settle(harness);

    expect(byTestId('success-count')?.textContent?.trim()).toBe('10');
    expect(byTestId('refresh-count')?.textContent?.trim()).toBe('1');
    expect(byTestId('burst-refresh-count')?.textContent?.trim()).toBe('1');
  });

  it('expires the token through the server’s development route, and says so when the server has none', async () => {
    const { harness, httpTesting } = await openLabAgainstServer();

    byTestId('expire-token')?.click();
    httpTesting
      .expectOne({ method: 'POST', url: '/auth/lab/expire-access-token' })
      .flush(null, { status: 204, statusText: 'No Content' });
    await settle(harness);
    expect(byTestId('token-remaining')?.textContent?.trim()).toBe('expired (by the lab)');
    expect(byTestId('token-expiry')?.textContent).toMatch(/^ *Expired by the lab at /);

    byTestId('expire-token')?.click();
    httpTesting.expectOne('/auth/lab/expire-access-token').flush(null, { status: 404, statusText: 'Not Found' });
    await settle(harness);
    expect(byTestId('expire-error')).not.toBeNull();
  });

  it('shows cross-tab sync on and the server’s overlap window, and what this tab’s last refresh did', async () => {
    const { harness, httpTesting } = await openLabAgainstServer();
    expect(byTestId('cross-tab-sync')?.textContent?.trim()).toBe('on');
    expect(byTestId('reuse-interval')?.textContent?.trim()).toBe(`${REFRESH_TOKEN_REUSE_INTERVAL_SECONDS} s`);
    // The variable's name may break on a phone only after an underscore.
    const variable = byTestId('reuse-interval-variable');
    expect(variable?.textContent).toBe('REFRESH_TOKEN_REUSE_INTERVAL_SECONDS');
    expect([...(variable?.childNodes ?? [])].map((node) => node.textContent || node.nodeName)).toEqual([
      'REFRESH_',
      'WBR',
      'TOKEN_',
      'WBR',
      'REUSE_',
      'WBR',
      'INTERVAL_',
      'WBR',
      'SECONDS',
    ]);
    expect(byTestId('last-refresh')?.textContent?.trim()).toBe('none since this page opened');

    // The server cannot answer the refresh (a 503): the calls fail, the session stays.
    byTestId('fire-calls')?.click();
    for (const call of httpTesting.match(USER_CALL)) call.flush(null, { status: 401, statusText: 'Unauthorized' });
    httpTesting.expectOne('/auth/refresh').flush(null, { status: 503, statusText: 'Service Unavailable' });
    await settle(harness);
    expect(byTestId('last-refresh')?.textContent?.trim()).toBe('refresh failed');

    byTestId('fire-calls')?.click();
    for (const call of httpTesting.match(USER_CALL)) call.flush(null, { status: 401, statusText: 'Unauthorized' });
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: createTestJwt({ sub: 'ada' }) });
    for (const call of httpTesting.match(USER_CALL)) call.flush({ id: 1, name: 'Ada', email: 'ada@example.com' });
    await settle(harness);
    expect(byTestId('last-refresh')?.textContent?.trim()).toBe('refreshed (this tab made the call)');
    expect(byTestId('success-count')?.textContent?.trim()).toBe('10');
  });
});

describe('AuthLabPage against a real server: refreshes ahead of expiry', () => {
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    jest.useRealTimers();
  });

  it('lists a refresh ahead of expiry as such, counts it as a refresh call but not in the burst before it', async () => {
    // Fake timers that also move with real time, so the page renders as usual; the test jumps ahead.
    jest.useFakeTimers({ now: Date.UTC(2030, 0, 1, 12), advanceTimers: true });
    const { harness, httpTesting } = await openLabAgainstServer({ lifetimeSeconds: 30 });
    // A 30-second token: due about three quarters into its life.
    expect(byTestId('next-refresh')?.textContent?.trim()).toMatch(/^in 2[0-3] s \(.+\)$/);
    byTestId('fire-calls')?.click();
    for (const call of httpTesting.match(USER_CALL)) call.flush({ id: 1, name: 'Ada', email: 'ada@example.com' });
    await settle(harness);
    expect(byTestId('success-count')?.textContent?.trim()).toBe('10');

    await jest.advanceTimersByTimeAsync(22_500);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: jwt(30) });
    await settle(harness);

    expect(refreshRows()).toEqual(['ahead of expiry · refreshed']);
    expect(byTestId('refresh-count')?.textContent?.trim()).toBe('1');
    expect(byTestId('burst-refresh-count')?.textContent?.trim()).toBe('0');
    expect(byTestId('next-refresh')?.textContent?.trim()).toMatch(/^in 2[0-3] s \(.+\)$/);
  });

  it('after a reload, shows the restore as such and not as a refresh of this page, with the next refresh due', async () => {
    const { harness, httpTesting } = await openLabAgainstServer({ restore: true });

    expect(refreshRows()).toEqual(['restoring the session · refreshed']);
    expect(byTestId('refresh-count')?.textContent?.trim()).toBe('no burst yet');
    expect(byTestId('next-refresh')?.textContent?.trim()).toMatch(/^in 8[34][0-9] s \(.+\)$/);

    byTestId('fire-calls')?.click();
    for (const call of httpTesting.match(USER_CALL)) call.flush({ id: 1, name: 'Ada', email: 'ada@example.com' });
    await settle(harness);
    expect(byTestId('burst-refresh-count')?.textContent?.trim()).toBe('0');
    expect(byTestId('refresh-count')?.textContent?.trim()).toBe('0');
  });

  it('with ?proactive=off, says so, offers to turn it on, and plans nothing', async () => {
    await openLabAgainstServer({ proactive: false });

    expect(byTestId('proactive')?.textContent?.trim()).toBe('off');
    expect(byTestId('proactive-switch')?.textContent?.trim()).toBe('turn on');
    expect(byTestId('proactive-switch')?.getAttribute('href')).toMatch(/\?proactive=on$/);
    expect(byTestId('proactive-switch')?.parentElement?.textContent).not.toContain('signs out');
    expect(byTestId('next-refresh')).toBeNull();
    expect(byTestId('next-refresh-note')?.textContent).toContain('first call that meets a 401');
  });
});

interface LabOptions {
  /** Whether the tab runs withProactiveRefresh(), as app.config.ts decides from ?proactive (default: yes). */
  readonly proactive?: boolean;
  /** Open the lab as after a reload: no token, so authGuard restores the session with one refresh. */
  readonly restore?: boolean;
  /** How long the server's access tokens live (default: createTestJwt's 15 minutes). */
  readonly lifetimeSeconds?: number;
}

/**
 * The showcase's `real` providers, wired as app.config.ts wires them, with the server played by
 * HttpTestingController; signed in (or restored), on the lab.
 */
async function openLabAgainstServer(
  options: LabOptions = {},
): Promise<{ harness: RouterTestingHarness; httpTesting: HttpTestingController }> {
  const { proactive = true, restore = false, lifetimeSeconds = 15 * 60 } = options;
  TestBed.configureTestingModule({
    providers: [
      provideZonelessChangeDetection(),
      provideRouter(routes),
      provideHttpClient(withInterceptors([tokenRefreshInterceptor, labCallTracker, ...backendInterceptors])),
      provideBackend(),
      provideHttpClientTesting(),
      provideAuth({ baseUrl: '/auth' }, ...(proactive ? [withProactiveRefresh()] : []), ...authFeatures),
      { provide: LAB_PROACTIVE, useValue: proactive },
      provideLabLog(),
    ],
  });
  const httpTesting = TestBed.inject(HttpTestingController);
  if (restore) {
    // This browser signed in before (session-hint.ts), so sessionGuard lets authGuard restore.
    localStorage.setItem('showcase.session', '1');
    const harness = await RouterTestingHarness.create();
    const opened = harness.navigateByUrl('/lab');
    // authGuard's restoreSession asks for a refresh (the page waits for it: no whenStable here).
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: jwt(lifetimeSeconds) });
    await opened;
    await settle(harness);
    return { harness, httpTesting };
  }
  const signedIn = firstValueFrom(TestBed.inject(AuthClient).login({ username: 'ada', password: 'lovelace' }), {
    defaultValue: undefined,
  });
  httpTesting.expectOne('/auth/login').flush({ accessToken: jwt(lifetimeSeconds) });
  await signedIn;
  const harness = await RouterTestingHarness.create('/lab');
  await settle(harness);
  return { harness, httpTesting };
}

/** An access token for ada, issued now, that lives `seconds`. */
function jwt(seconds: number): string {
  const now = Math.floor(Date.now() / 1000);
  return createTestJwt({ sub: 'ada', iat: now, exp: now + seconds });
}

/** The lab's list of refreshes, newest first: "cause · outcome". */
function refreshRows(): string[] {
  return [...document.querySelectorAll('[data-testid="refresh-row"]')].map((row) =>
    [...row.querySelectorAll('.chip')].map((chip) => chip.textContent?.trim()).join(' · '),
  );
}

const USER_CALL = (request: HttpRequest<unknown>): boolean => /^\/api\/v1\/users\/\d+$/.test(request.url);
