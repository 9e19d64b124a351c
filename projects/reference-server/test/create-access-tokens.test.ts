import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { SignJWT } from 'jose';

import { createAccessTokens } from '../src/access-tokens.js';

describe('createAccessTokens: the tokens it remembers', () => {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const secret = new TextEncoder().encode('a test secret of the access tokens, 32 bytes or more');
  const tokens = createAccessTokens({
    secret,
    ttlSeconds: 900,
    now: () => clock,
    expiredGraceSeconds: 60,
  });
  const issue = (familyId: string) => tokens.issue({ username: 'ada', role: 'admin', familyId });

  it('still verifies every token after more have passed than it keeps (1,000)', () => {
    const issued = Array.from({ length: 1500 }, (_, index) => issue(`family-${index}`));
    for (const token of issued) assert.equal(tokens.verify(token).ok, true);
    // The first ones were let go and are checked again; the last ones are remembered.
    for (const token of [issued[0]!, issued[499]!, issued[500]!, issued[1499]!]) {
      const check = tokens.verify(token);
      assert.equal(check.ok, true);
      assert.equal(check.ok && check.claims.sub, 'ada');
    }
  });

  it('refuses a remembered token changed in one character, in its payload or its signature', () => {
    const token = issue('family-tampered');
    assert.equal(tokens.verify(token).ok, true);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    for (const forged of [
      `${header}.${flip(payload, 10)}.${signature}`,
      `${header}.${payload}.${flip(signature, 5)}`,
    ]) {
      assert.deepEqual(tokens.verify(forged), { ok: false, problem: 'invalid' });
    }
  });

  it('refuses a remembered token once it expires, and takes it for logout within the grace', () => {
    const token = issue('family-expiring');
    assert.equal(tokens.verify(token).ok, true);
    clock += 900 * 1000;
    assert.deepEqual(tokens.verify(token), { ok: false, problem: 'expired' });
    assert.equal(tokens.verify(token, { allowExpired: true }).ok, true);
    clock += 60 * 1000;
    assert.deepEqual(tokens.verify(token, { allowExpired: true }), { ok: false, problem: 'expired' });
  });

  it('refuses a remembered token issued more than 30 s ahead of a clock that went back', () => {
    const token = issue('family-skewed');
    assert.equal(tokens.verify(token).ok, true);
    clock -= 31 * 1000;
    assert.deepEqual(tokens.verify(token), { ok: false, problem: 'invalid' });
    clock += 31 * 1000;
  });

  it('binds a token to a DPoP key (cnf.jkt) when told to, and refuses a signed token whose cnf is not a thumbprint', async () => {
    const jkt = 'a'.repeat(43);
    const bound = tokens.issue({ username: 'ada', role: 'admin', familyId: 'family-bound', jkt });
    const check = tokens.verify(bound);
    assert.equal(check.ok && check.claims.jkt, jkt);
    const unbound = tokens.verify(issue('family-unbound'));
    assert.equal(unbound.ok && unbound.claims.jkt, null);
    const seconds = Math.floor(clock / 1000);
    for (const cnf of ['x', { jkt: 'short' }, { jkt: 42 }, null]) {
      const token = await new SignJWT({
        sub: 'ada',
        role: 'admin',
        sid: 'family-cnf',
        jti: 'id',
        iat: seconds,
        exp: seconds + 60,
        iss: 'ngx-token-refresh-reference-server',
        aud: 'ngx-token-refresh-api',
        cnf,
      })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(secret);
      assert.deepEqual(tokens.verify(token), { ok: false, problem: 'invalid' }, JSON.stringify(cnf));
    }
  });
});
