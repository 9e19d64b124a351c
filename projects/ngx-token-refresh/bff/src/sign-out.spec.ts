import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { type TestApp, harnessModule, startTestApp } from './bff-test-app.spec-helper';

// POST <basePath>/logout against oidc-provider: the session ends here and at the provider.

describe('POST /bff/logout', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it("revokes the refresh token, clears the cookie and answers the provider's end-session URL with id_token_hint", async () => {
    const { cookies, session } = await app.signIn('ada');
    const revoked = app.provider.stats().revoked;
    const response = await app.call(cookies, '/bff/logout', { method: 'POST' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.deepEqual(response.headers.getSetCookie(), [
      '__Host-bff-session=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0',
    ]);
    assert.equal(app.provider.stats().revoked, revoked + 1);

    const { endSessionUrl } = (await response.json()) as { endSessionUrl: string };
    const url = new URL(endSessionUrl);
    assert.equal(`${url.origin}${url.pathname}`, `${app.provider.issuer}/session/end`);
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      client_id: 'bff',
      id_token_hint: session.idToken,
      post_logout_redirect_uri: `${app.baseUrl}/`,
    });
    // The provider accepts it: its logout page leads back to the app.
    const { url: after } = await (await harnessModule()).browseSignOut(endSessionUrl, { cookies });
    assert.equal(after.href, `${app.baseUrl}/`);
  });

  it('leaves nothing that works: the cookie, the refresh token at the provider', async () => {
    const { cookies, session } = await app.signIn('ada');
    const stolenCookie = cookies.list(app.baseUrl).find(({ name }) => name === '__Host-bff-session')?.value;
    await app.call(cookies, '/bff/logout', { method: 'POST' });
    const again = await app.call(cookies, '/bff/session');
    assert.equal(((await again.json()) as { error: { code: string } }).error.code, 'NoSession');
    const replayed = await fetch(`${app.baseUrl}/bff/session`, {
      headers: { 'x-csrf': '1', cookie: `__Host-bff-session=${stolenCookie}` },
    });
    assert.equal(((await replayed.json()) as { error: { code: string } }).error.code, 'SessionEnded');

    const refresh = await fetch(`${app.provider.issuer}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('bff:bff-spec-secret').toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: session.refreshToken ?? '' }),
    });
    assert.equal(refresh.status, 400);
    assert.equal(((await refresh.json()) as { error: string }).error, 'invalid_grant');
  });

  it('answers 401 NoSession to a second sign-out', async () => {
    const { cookies } = await app.signIn('ada');
    assert.equal((await app.call(cookies, '/bff/logout', { method: 'POST' })).status, 200);
    const second = await app.call(cookies, '/bff/logout', { method: 'POST' });
    assert.equal(second.status, 401);
    assert.equal(((await second.json()) as { error: { code: string } }).error.code, 'NoSession');
  });

  it('signs out even when the provider does not answer, and says so through onWarning', async () => {
    const { cookies } = await app.signIn('ada');
    await app.stopProvider();
    try {
      const response = await app.call(cookies, '/bff/logout', { method: 'POST' });
      assert.equal(response.status, 200);
      assert.match(
        app.warnings.at(-1) ?? '',
        /the revocation of a session's refresh_token did not answer \(ECONNREFUSED\)/,
      );
      assert.equal(
        ((await app.call(cookies, '/bff/session').then((r) => r.json())) as { error: { code: string } }).error.code,
        'NoSession',
      );
    } finally {
      await app.restartProvider();
    }
  });
});

describe('POST /bff/logout with postLogoutRedirectUri: null', () => {
  it('answers an end-session URL without post_logout_redirect_uri', async () => {
    const app = await startTestApp({ bff: { postLogoutRedirectUri: null } });
    try {
      const { cookies } = await app.signIn('ada');
      const { endSessionUrl } = (await (await app.call(cookies, '/bff/logout', { method: 'POST' })).json()) as {
        endSessionUrl: string;
      };
      assert.deepEqual([...new URL(endSessionUrl).searchParams.keys()], ['client_id', 'id_token_hint']);
    } finally {
      await app.close();
    }
  });
});
