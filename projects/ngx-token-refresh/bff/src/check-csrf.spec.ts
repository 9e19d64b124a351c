import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { type SignedIn, type TestApp, startTestApp } from './bff-test-app.spec-helper';

// Cross-site request forgery: the session cookie goes along with requests that other sites' pages
// make (a form, an image, a fetch with credentials), so the BFF refuses any request that does not
// prove it came from this site's own scripts. Each route that uses the session is tried.

const ROUTES = [
  { method: 'GET', path: '/bff/session' },
  { method: 'POST', path: '/bff/logout' },
  { method: 'GET', path: '/api/echo' },
  { method: 'POST', path: '/api/echo' },
] as const;

describe('CSRF checks', { timeout: 30_000 }, () => {
  let app: TestApp;
  let user: SignedIn;
  before(async () => {
    app = await startTestApp();
    user = await app.signIn('ada');
  });
  after(() => app.close());

  const refusals: [string, Record<string, string>, RegExp][] = [
    ['no x-csrf header', { 'x-csrf': '' }, /send the header x-csrf: 1/],
    ['x-csrf other than 1', { 'x-csrf': 'true' }, /send the header x-csrf: 1/],
    ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }, /came from cross-site \(Sec-Fetch-Site\)/],
    ['Sec-Fetch-Site same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }, /came from same-site/],
    ['Sec-Fetch-Site none (typed in the address bar)', { 'sec-fetch-site': 'none' }, /came from none/],
    ['a foreign Origin', { origin: 'https://evil.example' }, /came from https:\/\/evil\.example \(Origin\)/],
    ['Origin null (a sandboxed frame)', { origin: 'null' }, /came from null \(Origin\)/],
    ['a look-alike Origin', { origin: 'http://127.0.0.1.evil.example' }, /\(Origin\)/],
  ];
  for (const [what, headers, message] of refusals) {
    it(`refuses ${what} with 403 CsrfRefused, on every route, and does nothing`, async () => {
      const calls = app.apiRequests.length;
      for (const { method, path } of ROUTES) {
        const response = await call(app, user, method, path, headers);
        assert.equal(response.status, 403, `${method} ${path}`);
        const { error } = (await response.json()) as { error: { code: string; message: string } };
        assert.equal(error.code, 'CsrfRefused');
        assert.match(error.message, message);
      }
      assert.equal(app.apiRequests.length, calls, 'the API was called');
      assert.equal((await call(app, user, 'GET', '/bff/session', {})).status, 200, 'the session survives');
    });
  }

  it("accepts this site's page: x-csrf with Sec-Fetch-Site same-origin and its Origin", async () => {
    const headers = { 'sec-fetch-site': 'same-origin', origin: app.baseUrl };
    assert.equal((await call(app, user, 'GET', '/bff/session', headers)).status, 200);
    assert.equal((await call(app, user, 'POST', '/api/echo', headers)).status, 200);
  });

  it("accepts a server render's call: x-csrf, and neither Origin nor Sec-Fetch-Site (Node's fetch sends neither)", async () => {
    assert.equal((await call(app, user, 'GET', '/bff/session', {})).status, 200);
    assert.equal((await call(app, user, 'GET', '/api/echo', {})).status, 200);
  });

  it('refuses the CORS preflight of another site (it cannot carry x-csrf)', async () => {
    const response = await fetch(`${app.baseUrl}/api/echo`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-csrf',
      },
    });
    assert.equal(response.status, 403);
    assert.equal(response.headers.get('access-control-allow-origin'), null);
  });
});

/** A call with the user's session cookie, `x-csrf: 1`, and `headers` over them ('' removes one). */
function call(app: TestApp, user: SignedIn, method: string, path: string, headers: Record<string, string>) {
  const all = new Headers({ 'x-csrf': '1' });
  for (const [name, value] of Object.entries(headers)) {
    if (value === '') all.delete(name);
    else all.set(name, value);
  }
  return user.cookies.fetch(`${app.baseUrl}${path}`, { method, headers: all });
}
