import { once } from 'node:events';
import { type Server, createServer } from 'node:http';

/** A running page server; see {@link startOtherOrigin}. */
export interface OtherOrigin {
  close(): Promise<void>;
}

/**
 * Serves `html` at every path of `port`, on 127.0.0.1 and ::1: the page of another origin, as
 * `http://127.0.0.1:<port>` (the app's site: ports do not count) and as `http://localhost:<port>`
 * (another site). A real server on loopback, not a page fulfilled by Playwright's routing: Chromium
 * judges a page's requests to 127.0.0.1 by the address the page itself came from (Private Network
 * Access), and a routed page has none.
 */
export async function startOtherOrigin(port: number, html: string): Promise<OtherOrigin> {
  const servers: Server[] = [];
  for (const host of ['127.0.0.1', '::1']) {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    server.listen(port, host);
    try {
      await once(server, 'listening');
      servers.push(server);
    } catch {
      // No IPv6 loopback on this machine: Chromium then reaches localhost on 127.0.0.1.
    }
  }
  return {
    close: async () => {
      await Promise.all(
        servers.map((server) => {
          server.closeAllConnections();
          return new Promise((resolve) => server.close(resolve));
        }),
      );
    },
  };
}
