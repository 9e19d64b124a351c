import { once } from 'node:events';
import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer, request } from 'node:http';

/** One instance behind the balancer. */
export interface BalancedInstance {
  readonly name: string;
  readonly port: number;
}

/** One request as the balancer passed it on: to which instance, and what of it matters to the tests. */
export interface BalancedRequest {
  /** The instance that answered; the last one tried when none did. */
  instance: string;
  /** Instances tried before it that refused the connection or lost it before answering. */
  readonly skipped: string[];
  readonly method: string;
  readonly path: string;
  /** The instance's status, or 502 when no instance answered; `null` while the answer is awaited. */
  status: number | null;
  /**
   * The answer as it went to the browser, once it has: its headers (`name: value` lines, each
   * `Set-Cookie` on its own) and its body (latin1).
   */
  answer: { readonly headers: string; readonly body: string } | null;
  /** Whether the request carried the BFF's session cookie. */
  readonly sessionCookie: boolean;
  readonly secFetchSite: string | null;
  readonly origin: string | null;
  readonly xCsrf: string | null;
}

/** A running balancer; see {@link startRoundRobinBalancer}. */
export interface RoundRobinBalancer {
  /** Every request since the start, in the order they arrived. */
  readonly log: readonly BalancedRequest[];
  close(): Promise<void>;
}

/** Methods a balancer may send again to another instance when the first lost the connection. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A load balancer in front of several instances of the app, on `127.0.0.1:<port>`: each request goes to
 * the next instance in turn, with its `Host` unchanged (the instances serve one public origin). As a
 * real balancer with health checks would, it skips an instance that refuses the connection (stopped)
 * and tries the next; and, as nginx's default `proxy_next_upstream error`, it sends a GET, HEAD or
 * OPTIONS again to the next instance when the connection broke before any answer (an instance killed
 * while it held the request). Anything else that lost its instance is answered 502.
 */
export async function startRoundRobinBalancer(
  port: number,
  instances: readonly BalancedInstance[],
): Promise<RoundRobinBalancer> {
  const log: BalancedRequest[] = [];
  let next = 0;

  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const entry: BalancedRequest = {
      instance: '',
      skipped: [],
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      status: null,
      answer: null,
      sessionCookie: /(?:^|;\s*)__Host-bff-session=[^;]/.test(req.headers.cookie ?? ''),
      secFetchSite: header(req.headers, 'sec-fetch-site'),
      origin: header(req.headers, 'origin'),
      xCsrf: header(req.headers, 'x-csrf'),
    };
    log.push(entry);
    const first = next;
    next = (next + 1) % instances.length;
    for (let attempt = 0; attempt < instances.length; attempt++) {
      const instance = instances[(first + attempt) % instances.length]!;
      entry.instance = instance.name;
      const outcome = await pass(instance, req, body, res, (answer) => {
        entry.answer = answer;
      });
      if (outcome === 'answered') {
        entry.status = res.statusCode;
        return;
      }
      const retry = outcome === 'refused' || IDEMPOTENT.has(entry.method);
      if (!retry) break;
      entry.skipped.push(instance.name);
    }
    entry.status = 502;
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('No instance answered');
    else res.destroy();
  };

  const server = createServer((req, res) => {
    forward(req, res).catch(() => res.destroy());
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    log,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Sends the request to `instance` and its answer back: `'answered'` once the answer has begun,
 * `'refused'` when the instance refused the connection, `'lost'` when the connection broke before
 * any answer.
 */
function pass(
  instance: BalancedInstance,
  req: IncomingMessage,
  body: Buffer,
  res: ServerResponse,
  onAnswered: (answer: { headers: string; body: string }) => void,
): Promise<'answered' | 'refused' | 'lost'> {
  return new Promise((resolve) => {
    // A new connection each time (no pool): a pooled one to a killed instance would fail on reuse.
    const upstream = request(
      { host: '127.0.0.1', port: instance.port, method: req.method, path: req.url, headers: req.headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const headers = [];
          for (let i = 0; i < answer.rawHeaders.length; i += 2) {
            headers.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
          }
          onAnswered({ headers: headers.join('\n'), body: Buffer.concat(chunks).toString('latin1') });
        });
        answer.pipe(res);
        answer.on('error', () => res.destroy());
        resolve('answered');
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? 'refused' : 'lost'));
    // The browser went away: the instance need not go on.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  });
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' ? value : null;
}
