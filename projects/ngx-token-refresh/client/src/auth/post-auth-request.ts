import { type HttpClient, HttpContext, HttpRequest, HttpResponse } from '@angular/common/http';
import { type Observable, filter } from 'rxjs';

import { SKIP_TOKEN_REFRESH } from 'ngx-token-refresh';

/**
 * POSTs `body` to one of the `/auth` endpoints (login, refresh, logout): with cookies
 * (`withCredentials`, for the HttpOnly refresh cookie) and outside the refresh logic
 * (`SKIP_TOKEN_REFRESH`: a 401 here is an answer, never a reason to refresh). `authorize` asks for
 * `withDPoP()`'s proof (`DPOP_PROOF`), or writes the access token; a token must be written the
 * interceptor's way (`ɵinjectTokenWriter`), so that it obeys `setAuthHeader` and the URL policy like
 * every other request.
 */
export function postAuthRequest(
  http: HttpClient,
  url: string,
  body: unknown,
  authorize?: (request: HttpRequest<unknown>) => HttpRequest<unknown>,
): Observable<HttpResponse<unknown>> {
  const request = new HttpRequest('POST', url, body, {
    withCredentials: true,
    context: new HttpContext().set(SKIP_TOKEN_REFRESH, true),
  });
  return http
    .request(authorize ? authorize(request) : request)
    .pipe(filter((event): event is HttpResponse<unknown> => event instanceof HttpResponse));
}
