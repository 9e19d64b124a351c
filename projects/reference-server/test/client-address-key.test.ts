import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { clientAddressKey } from '../src/client-address-key.js';

describe('clientAddressKey', () => {
  it('keeps an IPv4 address, and the IPv4 address inside an IPv4-mapped IPv6 one', () => {
    assert.equal(clientAddressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(clientAddressKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(clientAddressKey('::FFFF:127.0.0.1'), '127.0.0.1');
  });

  it('groups IPv6 addresses by their /64, however they are written', () => {
    const key = '2001:db8:1:2::/64';
    for (const ip of [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0002:0000:0000:0000:0009',
      '2001:DB8:1:2:a::b',
      '2001:db8:1:2::1%eth0',
    ]) {
      assert.equal(clientAddressKey(ip), key, ip);
    }
    assert.equal(clientAddressKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientAddressKey('::1'), '0:0:0:0::/64');
    assert.equal(clientAddressKey('fe80::1:2:3:4'), 'fe80:0:0:0::/64');
    assert.notEqual(clientAddressKey('2001:db8:1:3::1'), key);
  });
});
