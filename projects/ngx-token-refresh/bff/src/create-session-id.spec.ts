import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createSessionId } from './create-session-id';

describe('createSessionId', () => {
  it('is 32 random bytes in base64url: 43 characters a cookie value may hold', () => {
    const id = createSessionId();
    assert.match(id, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(atob(id.replaceAll('-', '+').replaceAll('_', '/')).length, 32);
  });

  it('is a new value every time', () => {
    const ids = new Set(Array.from({ length: 1_000 }, () => createSessionId()));
    assert.equal(ids.size, 1_000);
  });
});
