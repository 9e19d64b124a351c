import { HttpErrorResponse } from '@angular/common/http';

import { TokenRefreshError } from 'ngx-token-refresh';
import { ApiError, type ApiErrorDetail } from './api-error';

/** Longest message or detail kept from a response: enough for a sentence, not for a page. */
const MAX_TEXT = 500;
/** Most `details` kept from one response. */
const MAX_DETAILS = 50;

/** Codes for responses whose body has none, by status. */
const STATUS_CODES: Readonly<Record<number, readonly [code: string, message: string]>> = {
  400: ['BadRequest', 'The request was not valid.'],
  401: ['Unauthorized', 'You are not signed in, or your session has ended.'],
  403: ['Forbidden', 'You are not allowed to do this.'],
  404: ['NotFound', 'What you asked for does not exist.'],
  405: ['MethodNotAllowed', 'The server does not allow this operation here.'],
  406: ['NotAcceptable', 'The server cannot answer in the requested format or version.'],
  408: ['Timeout', 'The server took too long to answer.'],
  409: ['Conflict', 'This conflicts with the current state of the data.'],
  413: ['PayloadTooLarge', 'The request is too large.'],
  415: ['UnsupportedMediaType', 'The server does not accept this content type.'],
  422: ['InvalidRequest', 'The request was not valid.'],
  429: ['TooManyRequests', 'Too many requests; please wait a moment and try again.'],
  502: ['BadGateway', 'The server is unreachable right now; please try again later.'],
  503: ['ServiceUnavailable', 'The service is unavailable right now; please try again later.'],
  504: ['GatewayTimeout', 'The server took too long to answer; please try again later.'],
};

/**
 * Turns anything a request can fail with into an {@link ApiError}. Never throws.
 *
 * Codes: the body's own `error.code` when it sends the uniform error body; otherwise
 * - `NetworkError` (status 0): the server could not be reached;
 * - `Timeout`: the request or the refresh timed out (status 0, or 408/504);
 * - by status when the body has no code: `BadRequest`, `Unauthorized`, `Forbidden`, `NotFound`,
 *   `MethodNotAllowed`, `NotAcceptable`, `Conflict`, `PayloadTooLarge`, `UnsupportedMediaType`,
 *   `InvalidRequest` (422), `TooManyRequests`, `BadGateway`, `ServiceUnavailable`, `GatewayTimeout`,
 *   `ServerError` (other 5xx), `HttpError` (anything else);
 * - `SessionExpired` (401): the session could not be renewed (a `TokenRefreshError`);
 * - `NoKey` (status 0): `withDPoP()` has no key to sign with (a server render, a page without https);
 * - `UnknownError` (status 0): not an HTTP error at all (a bug, a thrown value).
 *
 * Messages are the body's message when it has a readable one, else a sentence of this library's:
 * HTML error pages (a proxy's 502) and objects are never shown. Long texts are cut to 500 characters
 * and `details` to 50 entries.
 *
 * @usageNotes
 * ```ts
 * catchError((error: unknown) => throwError(() => parseApiError(error)));
 * ```
 */
export function parseApiError(error: unknown): ApiError {
  try {
    return toApiError(error);
  } catch {
    // A hostile body (a getter that throws, a revoked Proxy) must not escape as a second failure.
    const status = error instanceof HttpErrorResponse ? error.status : 0;
    return new ApiError(status, 'UnknownError', 'Something went wrong.', [], { cause: error });
  }
}

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HttpErrorResponse) return fromHttpError(error);
  if (error instanceof TokenRefreshError) {
    if (error.code === 'Timeout') {
      return new ApiError(0, 'Timeout', 'Renewing your session took too long; please try again.', [], { cause: error });
    }
    // withDPoP() without a key (a server render, a page that is not https): no request could be signed.
    if (error.code === 'NoKey') {
      return new ApiError(0, 'NoKey', 'This page cannot sign its requests here.', [], { cause: error });
    }
    return new ApiError(401, 'SessionExpired', 'Your session has ended; please sign in again.', [], { cause: error });
  }
  if (isTimeout(error)) return new ApiError(0, 'Timeout', 'The server took too long to answer.', [], { cause: error });
  return new ApiError(0, 'UnknownError', 'Something went wrong.', [], { cause: error });
}

function fromHttpError(error: HttpErrorResponse): ApiError {
  const { status } = error;
  const body = readBody(error.error);
  if (status === 0) {
    return isTimeout(error.error)
      ? new ApiError(0, 'Timeout', 'The server took too long to answer.', [], { cause: error })
      : new ApiError(0, 'NetworkError', 'The server could not be reached. Check your connection and try again.', [], {
          cause: error,
        });
  }
  if (status >= 200 && status < 300) {
    // A success status reported as an error: the body could not be read as JSON (typically an HTML
    // page, such as the app's own index.html, where the API should have answered).
    return new ApiError(status, 'InvalidResponse', 'The server sent an unexpected answer (not JSON).', [], {
      cause: error,
    });
  }
  const [fallbackCode, fallbackMessage] =
    STATUS_CODES[status] ??
    (status >= 500
      ? ['ServerError', 'The server had a problem; please try again later.']
      : ['HttpError', `The request failed (HTTP ${status}).`]);
  const uniform = isRecord(body) && isRecord(body['error']) ? body['error'] : null;
  const code = uniform && isCode(uniform['code']) ? uniform['code'] : fallbackCode;
  const message =
    (uniform ? readableText(uniform['message']) : null) ??
    (typeof body === 'string' ? readableText(body) : null) ??
    fallbackMessage;
  return new ApiError(status, code, message, uniform ? readDetails(uniform['details']) : [], { cause: error });
}

/** The body as data: a JSON text (an error body HttpClient could not parse as JSON stays text) is parsed. */
function readBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  const trimmed = body.trim();
  if (!trimmed.startsWith('{')) return body;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return body;
  }
}

function readDetails(details: unknown): ApiErrorDetail[] {
  if (!Array.isArray(details)) return [];
  const read: ApiErrorDetail[] = [];
  // Look a little further than MAX_DETAILS, so a few malformed entries do not hide good ones.
  for (const detail of details.slice(0, MAX_DETAILS * 4)) {
    if (read.length === MAX_DETAILS) break;
    if (!isRecord(detail)) continue;
    const message = readableText(detail['message']);
    const target = typeof detail['target'] === 'string' ? detail['target'].slice(0, MAX_TEXT) : '';
    if (message) read.push({ target, message });
  }
  return read;
}

/** Text fit to show a person: not empty, not markup, not too long. */
function readableText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  // Cut first: every test below then runs on at most MAX_TEXT characters, whatever was sent.
  const text = value.slice(0, MAX_TEXT * 2).trim();
  // Any tag opening counts as markup, closed or not (a parser's message may quote "<!DOCTYPE ...).
  if (text === '' || /<[a-z!/?]/i.test(text)) return null;
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

/** A code is an identifier (`InvalidRequest`), never a sentence or markup. */
function isCode(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z][\w.-]{0,63}$/.test(value);
}

function isTimeout(value: unknown): boolean {
  return isRecord(value) && value['name'] === 'TimeoutError';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
