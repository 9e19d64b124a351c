import assert from 'node:assert/strict';

import { createSessionId } from './create-session-id';
import { type BffSession, BffError } from './public-api';
import { sessionKey } from './session-key';

// Shared by the stores' specs: sessions to store, and the check of the errors they throw.

const MINUTE = 60_000;

/** A fresh store key: the SHA-256 of a fresh session id, as a sign-in makes it. */
export async function newKey(): Promise<string> {
  return sessionKey(createSessionId());
}

/** A session that starts now (unless `overrides` say otherwise), under a fresh key, at version 1. */
export async function newSession(overrides: Partial<BffSession> = {}): Promise<BffSession> {
  const now = Date.now();
  return {
    key: await newKey(),
    version: 1,
    subject: 'user-42',
    claims: { sub: 'user-42', name: 'Ada', roles: ['admin'] },
    accessToken: 'access-1',
    accessTokenIssuedAt: now,
    accessTokenExpiresAt: now + 5 * MINUTE,
    refreshToken: 'refresh-1',
    idToken: 'id-1',
    tokenType: 'DPoP',
    dpopKey: { publicJwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }, privateJwk: { kty: 'EC', d: 'd' } },
    createdAt: now,
    lastSeenAt: now,
    idleTimeout: 30 * MINUTE,
    absoluteTimeout: 12 * 60 * MINUTE,
    ...overrides,
  };
}

/** For `assert.throws`/`rejects`: a {@link BffError} of `code`, in the package's words, whose message matches. */
export function isBffError(code: BffError['code'], message: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof BffError, `a BffError, not ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, /^ngx-token-refresh\/bff: /);
    assert.match(error.message, message);
    return true;
  };
}
