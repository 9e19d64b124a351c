import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { type TestApp, newBrowser, startTestApp } from './bff-test-app.spec-helper';

// GET <basePath>/session: who is signed in, and never a token.

describe('GET /bff/session', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ bff: { userClaims: ['sub', 'aud', 'iss'] } });
  });
  after(() => app.close());

  it("answers the user's allowed claims and the session's ends, and no token", async () => {
    const { cookies, session } = await app.signIn('ada');
    const response = await app.call(cookies, '/bff/session');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const text = await response.text();
    assert.deepEqual(JSON.parse(text), {
      user: { sub: 'ada', aud: 'bff', iss: app.provider.issuer },
      expiresAt: session.createdAt + 12 * 3_600_000,
      idleExpiresAt: session.lastSeenAt + 30 * 60_000,
    });
    for (const token of [session.accessToken, session.refreshToken, session.idToken]) {
      assert.ok(token !== null && token.length > 20);
      assert.ok(!text.includes(token), 'a token in the answer');
    }
    // Neither does any part of the ID token (its payload holds the nonce, say).
    for (const part of session.idToken?.split('.') ?? []) assert.ok(!text.includes(part));
  });

  it('answers 401 NoSession without a session cookie', async () => {
    const response = await app.call(await newBrowser(), '/bff/session');
    assert.equal(response.status, 401);
    assert.deepEqual(await response.json(), { error: { code: 'NoSession', message: 'Not signed in.' } });
    assert.deepEqual(response.headers.getSetCookie(), []);
  });

  it('answers 401 SessionEnded for a cookie of no session, and clears it', async () => {
    for (const value of ['A'.repeat(43), 'not-a-session-id']) {
      const response = await fetch(`${app.baseUrl}/bff/session`, {
        headers: { 'x-csrf': '1', cookie: `__Host-bff-session=${value}` },
      });
      assert.equal(response.status, 401);
      assert.deepEqual(await response.json(), {
        error: { code: 'SessionEnded', message: 'Your session has ended; please sign in again.' },
      });
      assert.deepEqual(response.headers.getSetCookie(), [
        '__Host-bff-session=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0',
      ]);
    }
  });
});
