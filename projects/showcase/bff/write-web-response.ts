import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

/**
 * Writes a Web-standard `Response` (such as `createBff`'s answer) to a Node response: its status, its
 * headers, every `Set-Cookie` as a header of its own (`headers.getSetCookie()`: joined with commas,
 * as `Headers.get` would, the cookies' dates would split them), and its body streamed as it comes,
 * with Node's back-pressure. Resolves when the body is written, or when the client has gone (the
 * body is then cancelled, so that whatever produces it stops).
 *
 * @example await writeWebResponse(await bff.handle(request), res)
 */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  res.writeHead(response.status, response.statusText || undefined);
  if (response.body === null) {
    res.end();
    return;
  }
  try {
    await pipeline(Readable.fromWeb(response.body as NodeReadableStream), res);
  } catch {
    // The client went away, or the body failed half-way: the connection is closed either way, and
    // pipeline has cancelled the body.
  }
}
