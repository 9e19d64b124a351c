import { HttpClient, type HttpInterceptorFn } from '@angular/common/http';
import { type EnvironmentProviders, inject, makeEnvironmentProviders } from '@angular/core';
import { type TokenRefreshFeature, withCrossTabSync, withDPoP, withNoCrossTabSync } from 'ngx-token-refresh';

import { LabDPoP } from './lab/lab-dpop';
import { labDPoPRecorder } from './lab/lab-dpop-recorder';
import { LAB_EXPIRE_ON_SERVER } from './lab/lab-expire-on-server';
import { LAB_TABS } from './lab/lab-tabs';
import { readTabChoice } from './tab-choice';

// Replaces backend-providers.ts in the `real` build configuration (angular.json, fileReplacements):
// the showcase talks to the reference server (projects/reference-server) over real HTTP, on the
// same origin through a proxy (proxy.real.json for `npm run start:real`), so the SameSite=Strict
// refresh cookie travels and nothing needs CORS. Nothing to add: Angular's own HTTP backend is the
// backend. The lab's only switch is "Expire access token now", through the server's development-only
// route (DEV_LAB_ROUTES=true, set by `npm run start:real` and the browser tests); LAB_BACKEND, the
// in-memory backend's switches, stays null.

/**
 * How long the reference server still accepts a refresh token it has just rotated: its default
 * REFRESH_TOKEN_REUSE_INTERVAL_SECONDS, which `npm run start:real` keeps. Shown by the auth lab;
 * e2e/playwright.real.config.ts starts the server with the same value.
 */
export const REFRESH_TOKEN_REUSE_INTERVAL_SECONDS = 30;

/**
 * Whether this tab runs cross-tab sync: yes, unless a page of this tab was loaded with
 * `?crossTab=off` (until one is loaded with `?crossTab=on`). Off, only the server's overlap window
 * keeps tabs that refresh at once from ending the session: for the browser tests, and to watch it.
 * Read once, when the app starts.
 */
const crossTabSync = readTabChoice('crossTab');

/** Set to `true` by the `real-dpop` build configuration (angular.json, `define`); absent otherwise. */
declare const SHOWCASE_DPOP: boolean | undefined;

/**
 * Whether this build signs its requests with DPoP: the `real-dpop` build, which `npm run start:real --
 * --dpop` serves against the reference server with `DPOP=required`.
 */
const dpop = typeof SHOWCASE_DPOP !== 'undefined' && SHOWCASE_DPOP;

/**
 * No interceptors besides the app's own: a real server answers with real HttpErrorResponses. With
 * DPoP, the lab's recorder of the proofs the library signed.
 */
export const backendInterceptors: readonly HttpInterceptorFn[] = dpop ? [labDPoPRecorder] : [];

/**
 * `provideAuth`'s features: cross-tab sync, which the cookie flow needs, unless this tab asked for it
 * off; and in the `real-dpop` build, DPoP: the sign-in binds the session to this browser's key, and
 * every call carries a proof of it.
 */
export const authFeatures: readonly TokenRefreshFeature[] = [
  crossTabSync ? withCrossTabSync() : withNoCrossTabSync(),
  ...(dpop ? [withDPoP()] : []),
];

/** Nothing but what the lab shows: the default HttpClient backend reaches the real server. */
export function provideBackend(): EnvironmentProviders {
  return makeEnvironmentProviders([
    {
      provide: LAB_EXPIRE_ON_SERVER,
      useFactory: () => {
        const http = inject(HttpClient);
        // With the current token (the interceptor sets it): the server refuses that one from now on.
        return () => http.post('/auth/lab/expire-access-token', null);
      },
    },
    { provide: LAB_TABS, useValue: { crossTabSync, reuseIntervalSeconds: REFRESH_TOKEN_REUSE_INTERVAL_SECONDS } },
    dpop ? [LabDPoP] : [],
  ]);
}
