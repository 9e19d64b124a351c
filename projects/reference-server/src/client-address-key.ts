import { isIPv6 } from 'node:net';

/**
 * The rate-limit key of a client address: an IPv4 address as it is (an IPv4-mapped IPv6 address
 * too), an IPv6 address by its /64 network, as `@fastify/rate-limit` groups them by default. One
 * client usually holds a whole /64, so counting single IPv6 addresses would give it 2^64 keys.
 *
 * @example
 * clientAddressKey('203.0.113.7'); // '203.0.113.7'
 * clientAddressKey('2001:db8:1:2:aaaa::1'); // '2001:db8:1:2::/64'
 */
export function clientAddressKey(ip: string): string {
  const address = ip.replace(/%.*$/, '');
  if (!isIPv6(address)) return address;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // `::` stands for as many zero groups as are missing (a trailing dotted quad is two groups, but
  // only the first four groups matter here, and it is always past them).
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
