import { type HttpRequest, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { provideZonelessChangeDetection } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router, provideRouter } from '@angular/router';
import { RouterTestingHarness } from '@angular/router/testing';
import { AuthClient, provideAuth, tokenRefreshInterceptor } from 'ngx-token-refresh';
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
    const steps = [...(rows[0]?.querySelectorAll('.step') ?? [])].map((step) => step.textContent?.trim());
    expect(steps).toEqual(['sent', '401', 'queued', 'refresh', 'repeated', '200']);
  });

  it('with the refresh token revoked, returns to the login page, which says that the session has ended', async () => {
    const harness = await setupShowcase();
    await signIn();
    await harness.navigateByUrl('/lab');
    await settle(harness);
    byTestId('revoke-refresh')?.click();
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

  it('hides the switches and counts the refresh from the library’s events', async () => {
    const { harness, httpTesting } = await openLabAgainstServer();

    expect(byTestId('expire-token')).toBeNull();
    expect(byTestId('revoke-refresh')).toBeNull();
    expect(byTestId('real-server-note')).not.toBeNull();
    expect(byTestId('refresh-count')?.textContent?.trim()).toBe('0');

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

  it('shows cross-tab sync on and the server’s overlap window, and what this tab’s last refresh did', async () => {
    const { harness, httpTesting } = await openLabAgainstServer();
    expect(byTestId('cross-tab-sync')?.textContent?.trim()).toBe('on');
    expect(byTestId('reuse-interval')?.textContent?.trim()).toBe(`${REFRESH_TOKEN_REUSE_INTERVAL_SECONDS} s`);
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

/** The showcase's `real` providers, with the server played by HttpTestingController; signed in, on the lab. */
async function openLabAgainstServer(): Promise<{ harness: RouterTestingHarness; httpTesting: HttpTestingController }> {
  TestBed.configureTestingModule({
    providers: [
      provideZonelessChangeDetection(),
      provideRouter(routes),
      provideHttpClient(withInterceptors([tokenRefreshInterceptor, labCallTracker, ...backendInterceptors])),
      provideBackend(),
      provideHttpClientTesting(),
      provideAuth({ baseUrl: '/auth' }, ...authFeatures),
    ],
  });
  const httpTesting = TestBed.inject(HttpTestingController);
  const signedIn = firstValueFrom(TestBed.inject(AuthClient).login({ username: 'ada', password: 'lovelace' }), {
    defaultValue: undefined,
  });
  httpTesting.expectOne('/auth/login').flush({ accessToken: createTestJwt({ sub: 'ada' }) });
  await signedIn;
  const harness = await RouterTestingHarness.create('/lab');
  await settle(harness);
  return { harness, httpTesting };
}

const USER_CALL = (request: HttpRequest<unknown>): boolean => /^\/api\/v1\/users\/\d+$/.test(request.url);
