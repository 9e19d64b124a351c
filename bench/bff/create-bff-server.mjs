/* global Headers, AbortController, Request */
import { createServer } from 'node:http';
import { Readable } from 'node:stream';

/**
 * A `node:http` server for `bff` (a `Bff` of `ngx-token-refresh/bff`), as an app's server mounts it: each
 * request becomes a Web `Request` of `baseUrl` (the app's public origin, whichever port this instance
 * listens on behind it), and the BFF's `Response` is written back; a request that is not the BFF's
 * (`handle` resolves `null`) goes to `other(req, res)`. The same work as `@angular/ssr/node`'s
 * `createWebRequestFromNodeRequest` and `writeResponseToNodeResponse`, which an Angular app would use.
 */
export function createBffServer(bff, baseUrl, other) {
  return createServer((req, res) => {
    serve(bff, baseUrl, req, res, other).catch((error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
}

async function serve(bff, baseUrl, req, res, other) {
  const headers = new Headers();
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    headers.append(req.rawHeaders[index], req.rawHeaders[index + 1]);
  }
  // A call whose client went away is cancelled at the API too.
  const controller = new AbortController();
  res.once('close', () => res.writableFinished || controller.abort());
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(new URL(req.url ?? '/', baseUrl), {
    method: req.method,
    headers,
    body: hasBody ? Readable.toWeb(req) : undefined,
    duplex: 'half',
    signal: controller.signal,
  });
  const response = await bff.handle(request);
  if (response === null) {
    other(req, res);
    return;
  }
  const outgoing = [];
  response.headers.forEach((value, name) => name !== 'set-cookie' && outgoing.push(name, value));
  for (const cookie of response.headers.getSetCookie()) outgoing.push('set-cookie', cookie);
  res.writeHead(response.status, outgoing);
  if (response.body === null) {
    res.end();
    return;
  }
  for await (const chunk of response.body) res.write(chunk);
  res.end();
}
