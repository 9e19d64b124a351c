/**
 * The codes of the BFF's own error answers, in the body `{ error: { code, message } }` that the
 * service contract uses (`parseApiError` in the browser reads it):
 *
 * - 401 `NoSession`: the request has no session cookie; `SessionEnded`: it has one, but the session is
 *   over (signed out, past a lifetime, or its refresh token refused); the cookie is cleared.
 * - 403 `CsrfRefused`: no `x-csrf: 1`, or a request of another site.
 * - 404 `NotFound`, 405 `MethodNotAllowed`: under `basePath`, no such route.
 * - 413 `BodyTooLarge`: a body above `maxBodyBytes` for an API.
 * - 502 `ApiUnavailable`: the API did not answer.
 * - 503 `ProviderUnavailable`: the provider did not answer, or not as it should; the session is kept.
 *   `StoreUnavailable`: the session store failed. `ShuttingDown`: `close()` was called.
 *
 * A sign-in that fails, at `/login` or at the callback, is no JSON error: it goes back to the app with
 * `bffError` (see `signInFailure`).
 */
export type BffErrorAnswerCode =
  | 'NoSession'
  | 'SessionEnded'
  | 'CsrfRefused'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'BodyTooLarge'
  | 'ApiUnavailable'
  | 'ProviderUnavailable'
  | 'StoreUnavailable'
  | 'ShuttingDown';

/** An error answer of the BFF: JSON, never cached. */
export function jsonError(
  status: number,
  code: BffErrorAnswerCode,
  message: string,
  headers: HeadersInit = {},
): Response {
  return json(status, { error: { code, message } }, headers);
}

/** A JSON answer that no cache keeps: every answer of the BFF is about one user. */
export function json(status: number, body: unknown, headers: HeadersInit = {}): Response {
  const response = Response.json(body, { status, headers });
  response.headers.set('cache-control', 'no-store');
  return response;
}
