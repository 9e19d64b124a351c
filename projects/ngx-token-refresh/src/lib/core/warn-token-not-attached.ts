import type { HttpRequest } from '@angular/common/http';

import { warnRuntime } from '../internal/runtime-error';

/**
 * Dev mode: says once per application that a request went out without the token the interceptor
 * held and met a status that starts a refresh. With `attachToken: false` and nothing else attaching
 * the token, every request pays a 401 and a refresh, even right after one, and nothing else would
 * say so. Silent when the request already carried the headers `setAuthHeader` (by default `Authorization`) writes (an interceptor
 * before this one attached a token). A function of its own, as {@link warnUnmanagedOrigin}: production
 * builds drop it with the dev-mode branch that calls it.
 *
 * @param held the token the interceptor held when the request went out (and still holds), or `null`.
 * @param warned what this application was warned about already.
 */
export function warnTokenNotAttached(
  request: HttpRequest<unknown>,
  status: number,
  held: string | null,
  setAuthHeader: ((request: HttpRequest<unknown>, token: string) => HttpRequest<unknown>) | undefined,
  warned: Set<string>,
): void {
  if (held === null || warned.has('TokenNotAttached')) return;
  const written = setAuthHeader ? setAuthHeader(request, held).headers.keys() : ['Authorization'];
  if (written.every((name) => request.headers.has(name))) return;
  warned.add('TokenNotAttached');
  warnRuntime(
    'TokenNotAttached',
    `${request.method} ${request.url} went out without the access token the interceptor holds and got a ${status}, ` +
      `so it waits for a refresh; with attachToken: false every request will. Remove attachToken: false to let ` +
      `the interceptor attach the token (set after login with injectTokenRefresh().setToken(token)); if another ` +
      `interceptor attaches it, it sent none or an old one: keep its token in step with onRefreshSuccess. ` +
      `(Shown once.)`,
  );
}
