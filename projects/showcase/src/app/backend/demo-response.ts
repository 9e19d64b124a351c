import { HttpHeaders } from '@angular/common/http';
import type { ResponseOptions } from 'angular-in-memory-web-api';

/** One problem with one field of a request, in the `details` of the uniform error body. */
export interface DemoErrorDetail {
  /** The field concerned, e.g. `'email'`. */
  readonly target: string;
  /** What is wrong with it, e.g. `'is already taken'`. */
  readonly message: string;
}

/**
 * A JSON answer of the demo backend. The `url` is filled in by `DemoBackend`, which knows the request.
 *
 * @usageNotes
 * ```ts
 * return jsonResponse(201, user, { Location: `/api/v1/users/${user.id}` });
 * ```
 */
export function jsonResponse(status: number, body: object, headers: Record<string, string> = {}): ResponseOptions {
  return { status, body, headers: new HttpHeaders({ 'Content-Type': 'application/json', ...headers }) };
}

/**
 * An answer without a body (204 No Content).
 *
 * @usageNotes
 * ```ts
 * return noContentResponse();
 * ```
 */
export function noContentResponse(headers: Record<string, string> = {}): ResponseOptions {
  return { status: 204, headers: new HttpHeaders(headers) };
}

/**
 * An error answer with the contract's uniform body `{ error: { code, message, details? } }`;
 * `details` is left out when there are none, as the contract marks it optional.
 *
 * @usageNotes
 * ```ts
 * return errorResponse(409, 'Conflict', 'That e-mail address is taken.', {
 *   details: [{ target: 'email', message: 'is already taken' }],
 * });
 * ```
 */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  options: { readonly details?: readonly DemoErrorDetail[]; readonly headers?: Record<string, string> } = {},
): ResponseOptions {
  const { details = [], headers = {} } = options;
  const error =
    details.length > 0 ? { code, message, details: details.map((detail) => ({ ...detail })) } : { code, message };
  return jsonResponse(status, { error }, headers);
}
