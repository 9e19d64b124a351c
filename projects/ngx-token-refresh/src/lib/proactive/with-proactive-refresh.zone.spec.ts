// This file runs with zone.js loaded, as an application that uses it (the other specs are zoneless).
import 'zone.js';

import { HttpBackend, HttpClient, HttpResponse, provideHttpClient, withInterceptors } from '@angular/common/http';
import { type ApplicationRef, NgZone, inject, provideZoneChangeDetection } from '@angular/core';
import { createApplication } from '@angular/platform-browser';
import {
  type TokenRefreshEvent,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
  withProactiveRefresh,
} from 'ngx-token-refresh';
import { createTestJwt } from 'ngx-token-refresh/testing';
import { Observable, of } from 'rxjs';

/** Resolves with `'stable'` when `app` becomes stable, or `'unstable'` after `ms`. */
function stableWithin(app: ApplicationRef, ms: number): Promise<'stable' | 'unstable'> {
  return Promise.race([
    app.whenStable().then(() => 'stable' as const),
    new Promise<'unstable'>((resolve) => setTimeout(() => resolve('unstable'), ms)),
  ]);
}

describe('withProactiveRefresh in a zone.js application', () => {
  let app: ApplicationRef;
  let refreshes: number;

  beforeEach(async () => {
    refreshes = 0;
    const backend: HttpBackend = {
      handle: (request) => {
        if (request.url !== '/auth/refresh') return of(new HttpResponse({ status: 200, body: 'ok' }));
        refreshes++;
        return new Observable((subscriber) => {
          // A real request: a macrotask of the zone while it is on the wire.
          const timer = setTimeout(() => {
            subscriber.next(new HttpResponse({ status: 200, body: { accessToken: createTestJwt({ jti: 'new' }) } }));
            subscriber.complete();
          }, 20);
          return () => clearTimeout(timer);
        });
      },
    };
    app = await createApplication({
      providers: [
        provideZoneChangeDetection(),
        provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
        { provide: HttpBackend, useValue: backend },
        provideTokenRefresh(
          {
            attachToken: true,
            refreshApiCall: () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response' }),
            extractToken: (response) => (response.body as { accessToken: string }).accessToken,
          },
          withProactiveRefresh({ minInterval: 1000 }),
        ),
      ],
    });
  });

  afterEach(() => app.destroy());

  it('runs under zone.js (the test would prove nothing otherwise)', () => {
    expect(app.injector.get(NgZone)).toBeInstanceOf(NgZone);
    expect(NgZone.isInAngularZone()).toBe(false);
    expect(app.injector.get(NgZone).run(() => NgZone.isInAngularZone())).toBe(true);
  });

  it('becomes stable while a refresh is planned: the timer runs outside the zone', async () => {
    const state = injectTokenRefresh({ injector: app.injector });
    const events: TokenRefreshEvent[] = [];
    state.events.subscribe((event) => events.push(event));
    // Signed in inside the zone, as a login's callback is.
    app.injector.get(NgZone).run(() => state.setToken(createTestJwt()));
    expect(events).toEqual([{ type: 'refreshScheduled', at: expect.any(Number) }]);

    expect(await stableWithin(app, 1000)).toBe('stable');
  });

  it('runs the refresh itself inside the zone, and becomes stable again once it is answered', async () => {
    const state = injectTokenRefresh({ injector: app.injector });
    const zone = app.injector.get(NgZone);
    const inZone: boolean[] = [];
    state.events.subscribe((event) => event.type === 'refreshSucceeded' && inZone.push(NgZone.isInAngularZone()));
    // A 3-second token, taken as issued at the end of its iat second (whole seconds): 2 s left, and
    // due a quarter of its lifetime (0.75 s) before that, 1.25 s from now; the next one 2.5 s from now.
    const now = Math.floor(Date.now() / 1000);
    zone.run(() => state.setToken(createTestJwt({ iat: now, exp: now + 3 })));

    await new Promise((resolve) => setTimeout(resolve, 1900));
    expect(refreshes).toBe(1);
    expect(inZone).toEqual([true]);
    expect(await stableWithin(app, 1000)).toBe('stable');
  });
});
