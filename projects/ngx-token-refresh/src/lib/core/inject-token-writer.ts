import type { HttpRequest } from '@angular/common/http';
import { inject } from '@angular/core';

import { TOKEN_REFRESH_GATE } from './token-refresh-interceptor';

/**
 * Returns a function that writes `token` into a request the interceptor's way: with its
 * `setAuthHeader`, and only when its URL policy lets that URL carry a token (else the request comes
 * back unchanged). For a request the interceptor lets by (`SKIP_TOKEN_REFRESH`) that must carry a
 * token it no longer holds, such as the logout call sent after the session was cleared. With
 * `withDPoP()` the request is marked to be signed when it is sent, and `null` asks for a proof without
 * a token (a sign-in); without it, `null` leaves the request unchanged. Call it in an injection context.
 */
export function injectTokenWriter(): (request: HttpRequest<unknown>, token: string | null) => HttpRequest<unknown> {
  const gate = inject(TOKEN_REFRESH_GATE);
  return (request, token) => gate.withToken(request, token);
}
