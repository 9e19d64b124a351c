import { type Server, createServer } from 'node:http';
import { resolve } from 'node:path';

import type { Bff } from 'ngx-token-refresh/bff';

import { serveBrowserApp } from './serve-browser-app';
import { toWebRequest } from './to-web-request';
import { writeWebResponse } from './write-web-response';

/** What {@link createBffServer} serves. */
export interface BffServerOptions {
  /** The backend-for-frontend (`createBff`): it answers its routes and the APIs it proxies first. */
  readonly bff: Pick<Bff, 'handle'>;
  /** The built app (`dist/showcase-bff/browser`), for every other request. */
  readonly browserDir: string;
  /**
   * The app's public origin, the BFF's `baseUrl` (`http://127.0.0.1:4200`). A page's navigation that
   * arrives for another host (`localhost` for `127.0.0.1`) is sent there: the session cookie and the
   * BFF's Origin check belong to this one.
   */
  readonly origin: string;
  /** Told about a request that failed with a bug (answered 500). Default `console.error`. */
  readonly onError?: (error: unknown) => void;
}

/**
 * The showcase's server in its `bff` mode, on plain `node:http`: each request goes to the BFF as a
 * Web-standard `Request`; the BFF's answer (its routes, the proxied APIs) is written back, and a
 * request that is not the BFF's (`handle` resolved `null`) gets the built app. The same wiring as an
 * `ng new --ssr` server with `@angular/ssr/node`'s converters, without the server render.
 *
 * @example createBffServer({ bff, browserDir: 'dist/showcase-bff/browser', origin }).listen(4200, '127.0.0.1')
 */
export function createBffServer(options: BffServerOptions): Server {
  const { bff, origin } = options;
  const browserDir = resolve(options.browserDir);
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const host = new URL(origin).host;
  return createServer((req, res) => {
    if (req.headers.host !== host && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(308, { location: `${origin}${req.url ?? '/'}` }).end();
      return;
    }
    // Aborted when the client goes before its answer is written: the BFF's call of the API ends too.
    const closed = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) closed.abort();
    });
    bff
      .handle(toWebRequest(req, { origin, signal: closed.signal }))
      .then((response) => (response === null ? serveBrowserApp(browserDir, req, res) : writeWebResponse(response, res)))
      .catch((error: unknown) => {
        onError(error);
        if (res.headersSent) res.destroy();
        else res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal server error');
      });
  });
}
