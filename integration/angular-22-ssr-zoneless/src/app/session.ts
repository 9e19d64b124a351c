import { isPlatformBrowser } from '@angular/common';
import { DOCUMENT, PLATFORM_ID, REQUEST, inject, provideAppInitializer } from '@angular/core';
import { injectTokenRefresh } from 'ngx-token-refresh';

/**
 * The session of this demo lives in two cookies: `at`, the access token, and `rt`, the refresh
 * credential (HttpOnly in a real app). In the browser they travel by themselves; when the server
 * renders, every render reads them from its own incoming request (`REQUEST`).
 */
export function readCookie(name: string): string | null {
  // On the server: the request being rendered (none while prerendering); in the browser: the document.
  const header = isPlatformBrowser(inject(PLATFORM_ID))
    ? inject(DOCUMENT).cookie
    : inject(REQUEST, { optional: true })?.headers.get('cookie');
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return null;
}

/** Hands the access token of the `at` cookie to the interceptor at start-up. */
export function provideSessionFromCookie() {
  return provideAppInitializer(() => {
    const token = readCookie('at');
    if (token) injectTokenRefresh().setToken(token);
  });
}

/**
 * Cookies to send with the refresh call. The browser sends them itself (`withCredentials`); a
 * server render forwards the ones of the request it renders, and only those.
 */
export function forwardedCookies(): Record<string, string> {
  const cookie = inject(REQUEST, { optional: true })?.headers.get('cookie');
  return cookie ? { cookie } : {};
}
