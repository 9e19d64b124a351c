import type { HttpResponse } from '@angular/common/http';

/**
 * Reads `accessToken` from a login or refresh response body (`{ accessToken }`), or `''` when there
 * is none, which the interceptor reports as an invalid token.
 */
export function readAccessToken(response: HttpResponse<unknown>): string {
  const body = response.body;
  const token =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['accessToken'] : undefined;
  return typeof token === 'string' ? token : '';
}
