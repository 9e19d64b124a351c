import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

/** Where a Node request is read from, and when its client has gone. */
export interface WebRequestSource {
  /**
   * The app's public origin (`http://127.0.0.1:4200`): the request's URL is its path on this origin,
   * whatever `Host` said, so that a request line cannot point the handler at another host.
   */
  readonly origin: string;
  /** Aborts when the client has gone before its answer was written; the handler's own calls end with it. */
  readonly signal: AbortSignal;
}

/**
 * The Web-standard `Request` of a Node request, for a handler written against fetch's types (such as
 * `createBff`'s `handle`): its method, its path on `origin`, its headers (a header sent twice as Node
 * joins it: `Cookie` with `; `, the others with `, `), and its body as a stream, read only as far as the
 * handler reads it (`duplex: 'half'`, which fetch requires of a streamed body).
 *
 * @example toWebRequest(req, { origin: 'http://127.0.0.1:4200', signal: closedEarly(res) })
 */
export function toWebRequest(request: IncomingMessage, { origin, signal }: WebRequestSource): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const path = request.url ?? '/';
  // Appended to the origin, not resolved against it: `//other.example/x` stays a path of this site.
  const url = new URL(`${origin}${path.startsWith('/') ? path : `/${path}`}`);
  const method = request.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(request) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}
