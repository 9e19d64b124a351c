import type { HttpRequest } from '@angular/common/http';

/**
 * The body of a request as JSON data, as a server would parse it, or `null` when it is not JSON.
 * HttpClient hands the backend the body unserialised, so an object arrives as the object itself
 * (no body is `null`), while a string is JSON text still to be parsed (an empty one counts as no
 * body). Blobs, form data and buffers are no JSON.
 *
 * @usageNotes
 * ```ts
 * const body = readJsonBody(request);
 * if (!body) return errorResponse(400, 'InvalidRequest', 'The body is not valid JSON.');
 * ```
 */
export function readJsonBody(request: HttpRequest<unknown>): { readonly value: unknown } | null {
  const body = request.body;
  if (body === null || body === undefined) return { value: null };
  if (typeof body === 'string') {
    if (body.trim() === '') return { value: null };
    try {
      return { value: JSON.parse(body) as unknown };
    } catch {
      return null;
    }
  }
  if (typeof body !== 'object') return { value: body };
  const isPlainData = Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype;
  return isPlainData ? { value: body } : null;
}
