import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BffError } from './bff-error';
import { assertSessionKey, isSessionKey, sessionKey } from './session-key';

describe('sessionKey', () => {
  it('is the SHA-256 of the session id in base64url without padding', async () => {
    // FIPS 180-2's test vector: SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 96177a9c b410ff61 f20015ad.
    assert.equal(await sessionKey('abc'), 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('has the shape the stores check for, and the session id does not pass for a key by being longer', async () => {
    assert.equal(isSessionKey(await sessionKey('any cookie value')), true);
    for (const wrong of ['', 'abc', `${'a'.repeat(43)}=`, 'a'.repeat(44), `${'a'.repeat(42)}+`, 42, null]) {
      assert.equal(isSessionKey(wrong), false, String(wrong));
    }
  });

  it('assertSessionKey throws InvalidSession, naming the caller, for anything else', () => {
    assert.throws(
      () => assertSessionKey('the-cookie-value', 'store.read'),
      (error) =>
        error instanceof BffError &&
        error.code === 'InvalidSession' &&
        error.message ===
          "ngx-token-refresh/bff: store.read got a key that is not 43 characters of base64url (the SHA-256 of the session cookie's value)",
    );
  });
});
