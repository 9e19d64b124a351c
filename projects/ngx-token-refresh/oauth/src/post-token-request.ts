import { type HttpClient, HttpContext, HttpErrorResponse, type HttpResponse } from '@angular/common/http';
import { type Observable, catchError, throwError } from 'rxjs';

import { SKIP_TOKEN_REFRESH } from 'ngx-token-refresh';

import { isPassingFailure } from './is-passing-failure';
import { OAuthError } from './oauth-error';

/**
 * POSTs `params` form-encoded (`application/x-www-form-urlencoded`, as RFC 6749 §3.2 and RFC 7009
 * ask) to a token or revocation endpoint: without credentials across origins (`withCredentials` off;
 * the browser still sends cookies to an endpoint on the app's own origin), outside the refresh logic
 * (no access token, no refresh on its 401), and with the body read as text so that an HTML page or
 * broken JSON becomes a clear error rather than a parse failure. A refusal with an OAuth error body
 * (RFC 6749 §5.2) fails with an {@link OAuthError}; a passing failure (no network, 408, 429, a 5xx)
 * fails with its `HttpErrorResponse` even when it has such a body (`too_many_requests`,
 * `temporarily_unavailable`), since an `OAuthError` means the session is over; anything else fails as
 * it came.
 *
 * `URLSearchParams`, not `HttpParams`: Angular's encoder leaves `+` as it is, which a form body reads
 * as a space, and refresh tokens may hold `+`.
 */
export function postTokenRequest(
  http: HttpClient,
  url: string,
  params: Record<string, string>,
): Observable<HttpResponse<string>> {
  return http
    .post(url, new URLSearchParams(params).toString(), {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      observe: 'response',
      responseType: 'text',
      context: new HttpContext().set(SKIP_TOKEN_REFRESH, true),
    })
    .pipe(catchError((error: unknown) => throwError(() => readOAuthError(error) ?? error)));
}

/** The OAuth error (RFC 6749 §5.2) in an error answer's body, or `null` when it holds none. */
function readOAuthError(error: unknown): OAuthError | null {
  if (!(error instanceof HttpErrorResponse) || typeof error.error !== 'string' || isPassingFailure(error)) return null;
  let body: unknown;
  try {
    body = JSON.parse(error.error);
  } catch {
    return null;
  }
  const { error: code, error_description: description } = (body ?? {}) as Record<string, unknown>;
  if (typeof code !== 'string' || code === '') return null;
  return new OAuthError(code, error.status, typeof description === 'string' ? description : '', { cause: error });
}
