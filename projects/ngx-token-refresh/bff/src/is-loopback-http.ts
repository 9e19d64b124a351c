/** Hosts that never leave the machine: the same list as the interceptor's URL policy. */
const LOOPBACK_HOST = /^(?:localhost|[^/]+\.localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Whether `url` is plain `http:` to a loopback host: the one case where the BFF talks plain HTTP (a
 * provider or an API on the developer's machine or in a test), and where browsers still treat the
 * page as a secure context, so `Secure` and `__Host-` cookies work.
 */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname);
}
