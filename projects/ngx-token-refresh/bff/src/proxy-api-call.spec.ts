import assert from 'node:assert/strict';
import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';

import { type ApiRequest, type SignedIn, type TestApp, startTestApp } from './bff-test-app.spec-helper';

// The API proxy: a call of the page under /api goes to the API stub with the session's access token,
// which the stub checks at the provider's userinfo endpoint.

describe('the API proxy', { timeout: 30_000 }, () => {
  let app: TestApp;
  let user: SignedIn;
  let closedPort: number;
  before(async () => {
    closedPort = await freePort();
    app = await startTestApp({
      bff: ({ apiUrl }) => ({
        apis: { '/api': apiUrl, '/down': `http://127.0.0.1:${closedPort}/nothing` },
        maxBodyBytes: 64,
      }),
    });
    user = await app.signIn('ada');
  });
  beforeEach(() => app.provider.resetStats());
  after(() => app.close());

  it("sends the call to the API with the session's access token, its method, path, query, body and own headers", async () => {
    const response = await app.call(user.cookies, '/api/echo/7?expand=orders&page=2', {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json', 'x-request-id': 'r-1' },
      body: '{"name":"Ada"}',
    });
    assert.equal(response.status, 200);
    const seen = lastApiRequest(app);
    assert.equal(seen.method, 'PATCH');
    assert.equal(seen.path, '/api-stub/echo/7?expand=orders&page=2');
    assert.equal(seen.body, '{"name":"Ada"}');
    assert.equal(seen.headers['authorization'], `Bearer ${user.session.accessToken}`);
    assert.equal(seen.headers['content-type'], 'application/merge-patch+json');
    assert.equal(seen.headers['accept'], 'application/json');
    assert.equal(seen.headers['x-request-id'], 'r-1');
    assert.equal(((await response.json()) as { sub: string }).sub, 'ada');
  });

  it("keeps the browser's cookies, x-csrf, Origin, credentials and hop-by-hop headers from the API", async () => {
    // Over node:http: fetch refuses to send a Connection header of its own.
    const status = await rawRequest(`${app.baseUrl}/api/echo`, {
      ...browserHeaders(user, app),
      origin: app.baseUrl,
      authorization: 'Bearer from-the-page',
      dpop: 'a-proof-of-the-page',
      connection: 'keep-alive, x-private',
      'x-private': 'for the BFF only',
      'accept-encoding': 'zstd',
    });
    assert.equal(status, 200);
    const { headers } = lastApiRequest(app);
    assert.equal(headers['authorization'], `Bearer ${user.session.accessToken}`);
    for (const name of ['cookie', 'x-csrf', 'origin', 'dpop', 'x-private']) {
      assert.equal(headers[name], undefined, name);
    }
    // fetch asks for what it can decode itself, not for what the browser could.
    assert.doesNotMatch(String(headers['accept-encoding']), /zstd/);
  });

  it("relays the API's answer without its cookies, hop-by-hop and CORS headers, and uncacheable unless it says otherwise", async () => {
    const response = await app.call(user.cookies, '/api/echo');
    assert.equal(response.headers.get('x-api'), 'yes');
    assert.deepEqual(response.headers.getSetCookie(), []);
    assert.equal(response.headers.get('x-hop'), null);
    // The API's CORS policy is for pages calling its origin; on the app's origin, the app decides.
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    assert.equal(response.headers.get('access-control-expose-headers'), null);
    assert.equal(response.headers.get('cache-control'), 'private, no-store');
  });

  it('relays a compressed answer decoded, without its content-encoding', async () => {
    const response = await app.call(user.cookies, '/api/gzip');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-encoding'), null);
    assert.equal(((await response.json()) as { sub: string }).sub, 'ada');
  });

  it("relays the API's own errors as they are, with no refresh: an HTML error page, a 403 challenge, a 204", async () => {
    const page = await app.call(user.cookies, '/api/html-error');
    assert.equal(page.status, 502);
    assert.equal(page.headers.get('content-type'), 'text/html');
    assert.equal(await page.text(), '<html><body><h1>502 Bad Gateway</h1></body></html>');

    const forbidden = await app.call(user.cookies, '/api/forbidden');
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.headers.get('www-authenticate'), 'Bearer error="insufficient_scope"');
    assert.deepEqual(await forbidden.json(), { error: { code: 'Forbidden', message: 'not yours' } });

    const empty = await app.call(user.cookies, '/api/no-content', { method: 'DELETE' });
    assert.equal(empty.status, 204);
    assert.equal(await empty.text(), '');
    assert.equal(app.provider.stats().refreshGrants, 0);
  });

  it('refuses a body above maxBodyBytes with 413, and calls no API', async () => {
    const calls = app.apiRequests.length;
    const response = await app.call(user.cookies, '/api/echo', { method: 'POST', body: 'x'.repeat(65) });
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'BodyTooLarge');
    assert.equal(app.apiRequests.length, calls);
    assert.equal((await app.call(user.cookies, '/api/echo', { method: 'POST', body: 'x'.repeat(64) })).status, 200);
  });

  it('refuses a body whose Content-Length is above maxBodyBytes before it arrives', { timeout: 5_000 }, async () => {
    // Headers alone: a BFF that waited for the body would never answer.
    const status = await rawRequest(
      `${app.baseUrl}/api/echo`,
      { ...browserHeaders(user, app), 'content-type': 'text/plain', 'content-length': '100000' },
      'POST',
    );
    assert.equal(status, 413);
  });

  it('refuses a body sent in chunks that grows above maxBodyBytes', async () => {
    const calls = app.apiRequests.length;
    const chunks = ['x'.repeat(40), 'y'.repeat(40)];
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        const chunk = chunks.shift();
        if (chunk === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(chunk));
      },
    });
    const response = await app.call(user.cookies, '/api/echo', { method: 'POST', body, duplex: 'half' } as RequestInit);
    assert.equal(response.status, 413);
    assert.equal(app.apiRequests.length, calls);
  });

  it('refreshes once and repeats the call once when the API refuses the token', async () => {
    const calls = app.apiRequests.length;
    app.provider.expireAccessTokens();
    const response = await app.call(user.cookies, '/api/echo', { method: 'POST', body: 'kept for the retry' });
    assert.equal(response.status, 200);
    const [refused, repeated] = app.apiRequests.slice(calls);
    assert.equal(app.apiRequests.length, calls + 2);
    assert.equal(app.provider.stats().refreshGrants, 1);
    assert.notEqual(repeated?.headers['authorization'], refused?.headers['authorization']);
    assert.equal(repeated?.body, 'kept for the retry');
  });

  it('does the same for a 401 without a challenge', async () => {
    app.provider.expireAccessTokens();
    assert.equal((await app.call(user.cookies, '/api/bare')).status, 200);
    assert.equal(app.provider.stats().refreshGrants, 1);
  });

  it("relays the API's second refusal as it is: one refresh and one repeat per call, never a loop", async () => {
    const calls = app.apiRequests.length;
    const response = await app.call(user.cookies, '/api/always-401');
    assert.equal(response.status, 401);
    assert.deepEqual(await response.json(), { error: { code: 'Unauthorized', message: 'token refused' } });
    assert.equal(app.apiRequests.length, calls + 2);
    assert.equal(app.provider.stats().refreshGrants, 1);
    assert.equal(app.provider.stats().reuseDetected, 0);
    // The session lives on: the API refused, not the provider.
    assert.equal((await app.call(user.cookies, '/api/echo')).status, 200);
  });

  it('answers 502 ApiUnavailable when the API does not answer, and keeps the session', async () => {
    const response = await app.call(user.cookies, '/down/users');
    assert.equal(response.status, 502);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(error.code, 'ApiUnavailable');
    assert.equal(
      error.message,
      `The API at http://127.0.0.1:${closedPort} did not answer (connect ECONNREFUSED 127.0.0.1:${closedPort}).`,
    );
    assert.equal((await app.call(user.cookies, '/bff/session')).status, 200);
  });

  it('answers 401 NoSession to a call without a session, and calls no API', async () => {
    const calls = app.apiRequests.length;
    const response = await fetch(`${app.baseUrl}/api/echo`, { headers: { 'x-csrf': '1' } });
    assert.equal(response.status, 401);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'NoSession');
    assert.equal(app.apiRequests.length, calls);
  });
});

function lastApiRequest(app: TestApp): ApiRequest {
  const seen = app.apiRequests.at(-1);
  assert.ok(seen, 'the API was called');
  return seen;
}

/** A port that nothing listens on (it did a moment ago). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The headers of a call of the signed-in page: its session cookie and `x-csrf`. */
function browserHeaders(user: SignedIn, app: TestApp): Record<string, string> {
  const cookie = user.cookies
    .list(app.baseUrl)
    .map(({ name, value }) => `${name}=${value}`)
    .join('; ');
  return { cookie, 'x-csrf': '1' };
}

/** A request with exactly `headers` and no body; its status. */
function rawRequest(url: string, headers: Record<string, string>, method = 'GET'): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers, method }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}
