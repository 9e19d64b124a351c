import { jsonError } from './json-error';

/**
 * `request`'s body, read whole so that it can be sent twice (again after a refresh), or `null` when it
 * has none; a 413 `BodyTooLarge` answer when it is longer than `maxBytes` (told by `Content-Length`
 * before reading, or found while reading a body sent in chunks).
 */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array | null | Response> {
  const tooLarge = () =>
    jsonError(413, 'BodyTooLarge', `The body is larger than ${maxBytes} bytes (maxBodyBytes of createBff).`);
  if (request.body === null) return null;
  if (Number(request.headers.get('content-length') ?? 0) > maxBytes) {
    await request.body.cancel();
    return tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      return tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
