import { BlockList, type Server, type Socket, isIPv6 } from 'node:net';

import { sendOnSocket } from './error-handling.js';
import { HttpError } from './http-error.js';

/**
 * Caps the connections one client address may hold open at once: one more is answered with 429
 * `TooManyRequests` (uniform body, security headers) and closed at once, before Node's HTTP parser
 * sees it. Slow clients that open thousands of connections and never finish a request cannot
 * exhaust the process's sockets; the timeouts then free the ones they hold.
 *
 * Behind a proxy every connection comes from the proxy, so its addresses are exempt (`exempt`:
 * the `TRUST_PROXY` setting; `true` exempts everybody) and the proxy must cap per client itself.
 * `max` 0 turns the cap off. Connections are counted as TCP accepts them, before any TLS handshake,
 * so half-done handshakes count too; on HTTPS (`tls`) the one too many is closed without an answer,
 * since no answer can be sent before a handshake and spending one on it is what the cap avoids.
 *
 * @example
 * capConnectionsPerAddress(app.server, { max: 100, exempt: ['10.0.0.0/8'], tls: false });
 */
export function capConnectionsPerAddress(
  server: Server,
  options: {
    readonly max: number;
    readonly exempt: boolean | readonly string[];
    readonly tls: boolean;
  },
): void {
  const { max, exempt, tls } = options;
  if (max === 0 || exempt === true) return;
  const proxies = new BlockList();
  for (const entry of exempt === false ? [] : exempt) {
    const [address = '', bits] = entry.split('/');
    const type = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (bits === undefined) proxies.addAddress(address, type);
    else proxies.addSubnet(address, Number(bits), type);
  }
  const open = new Map<string, number>();
  // First in line, so an answered connection never reaches the HTTP parser with live bytes.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || proxies.check(address, isIPv6(address) ? 'ipv6' : 'ipv4')) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      if (tls) {
        socket.destroy();
        return;
      }
      sendOnSocket(
        socket,
        new HttpError(429, 'TooManyRequests', `Too many open connections from one address (at most ${max}).`),
      );
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
