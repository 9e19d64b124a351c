import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';

import { type TestApp, harnessModule, startTestApp } from './bff-test-app.spec-helper';

// A provider that answers what OAuth does not say: an HTML error page of a proxy in front of it, JSON
// without a token, no JSON at all, an error of the client's setup, or no answer (the connection
// fails: a browser's status 0). Every one gets a clear error, and no session is lost. The faults are
// answers put in place of the provider's by the BFF's `fetch` option; oauth4webapi reads them as it
// reads the provider's.

type Fault = () => Response | Promise<Response>;

const FAULTS: { readonly name: string; readonly fault: Fault; readonly message: RegExp }[] = [
  {
    name: 'an HTML error page',
    fault: () =>
      new Response('<html><body><h1>502 Bad Gateway</h1></body></html>', {
        status: 502,
        headers: { 'content-type': 'text/html' },
      }),
    message: /answered 502 \(text\/html\), not an OAuth answer/,
  },
  {
    name: 'JSON without an access token',
    fault: () => Response.json({ token_type: 'Bearer', expires_in: 60 }),
    message: /"access_token" property must be a string/,
  },
  {
    name: 'a 200 that is not JSON',
    fault: () => new Response('OK', { headers: { 'content-type': 'text/plain' } }),
    message: /answered 200 \(text\/plain\), not an OAuth answer: "response" content-type must be application\/json/,
  },
  {
    name: 'an empty 500',
    fault: () => new Response(null, { status: 500 }),
    message: /answered 500 \(no content type\), not an OAuth answer/,
  },
  {
    name: "an error of the client's setup (invalid_client)",
    fault: () =>
      Response.json({ error: 'invalid_client', error_description: 'client authentication failed' }, { status: 401 }),
    message: /answered 401 invalid_client: client authentication failed/,
  },
  {
    name: 'no answer (status 0)',
    fault: () =>
      Promise.reject(
        new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }),
      ),
    message: /did not answer \(ECONNRESET\)/,
  },
];

describe('malformed answers of the provider', { timeout: 60_000 }, () => {
  let app: TestApp;
  /** What the next matching request to the provider gets instead of the provider's answer. */
  let fault: { readonly path: string; readonly grant?: string; readonly answer: Fault } | null = null;
  before(async () => {
    app = await startTestApp({
      bff: {
        fetch: (input, init) => {
          const url = new URL(input instanceof Request ? input.url : String(input));
          const grant = new URLSearchParams(String(init?.body ?? '')).get('grant_type') ?? undefined;
          if (fault !== null && url.pathname === fault.path && (fault.grant === undefined || fault.grant === grant)) {
            return Promise.resolve(fault.answer());
          }
          return fetch(input, init);
        },
      },
    });
  });
  beforeEach(() => {
    fault = null;
  });
  after(() => app.close());

  for (const { name, fault: answer, message } of FAULTS) {
    it(`answers a refresh grant's ${name} with 503 ProviderUnavailable, and keeps the session`, async (context) => {
      context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
      const { cookies, session } = await app.signIn('ada');
      context.mock.timers.setTime(session.accessTokenExpiresAt + 1_000);
      const warnings = app.warnings.length;
      fault = { path: '/token', grant: 'refresh_token', answer };

      const response = await app.call(cookies, '/api/echo');
      assert.equal(response.status, 503);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      assert.equal(error.code, 'ProviderUnavailable');
      assert.match(error.message, message);
      assert.match(app.warnings.slice(warnings).join('\n'), message);
      assert.equal((await app.store.read(session.key, Date.now()))?.version, session.version);

      fault = null;
      assert.equal((await app.call(cookies, '/api/echo')).status, 200);
    });
  }

  for (const { name, fault: answer, message } of FAULTS) {
    it(`sends a sign-in whose code grant gets ${name} back to the app with bffError, warns clearly, and makes no session`, async () => {
      const sessions = app.store.created.length;
      const warnings = app.warnings.length;
      fault = { path: '/token', grant: 'authorization_code', answer };
      const walk = await signInPage(app);
      const code = name.includes('invalid_client') ? 'SignInFailed' : 'ProviderUnavailable';
      assert.equal(`${walk.url.pathname}${walk.url.search}`, `/account?bffError=${code}`);
      assert.equal(walk.body, "<!doctype html><title>app</title><p>the app's page /account</p>");
      assert.equal(app.store.created.length, sessions);
      const warned = app.warnings.slice(warnings).join('\n');
      assert.match(warned, /a sign-in failed: the provider/);
      assert.match(warned, message);
    });
  }

  it('sends a sign-in whose discovery gets an HTML page back to the app with bffError, warns clearly, and tries the discovery again next time', async () => {
    const fresh = await startTestApp({
      bff: {
        fetch: (input, init) =>
          String(input).endsWith('/.well-known/openid-configuration') && fault !== null
            ? Promise.resolve(fault.answer())
            : fetch(input, init),
      },
    });
    try {
      fault = { path: '', answer: FAULTS[0]?.fault as Fault };
      const down = await fetch(`${fresh.baseUrl}/bff/login?returnUrl=%2Faccount`, { redirect: 'manual' });
      assert.equal(down.status, 303);
      assert.equal(down.headers.get('location'), '/account?bffError=ProviderUnavailable');
      assert.match(
        fresh.warnings.join('\n'),
        /a sign-in could not start: the discovery of http:\/\/localhost:\d+\/ answered 502 \(text\/html\), not an OAuth answer/,
      );
      fault = null;
      assert.equal((await fetch(`${fresh.baseUrl}/bff/login`, { redirect: 'manual' })).status, 302);
    } finally {
      await fresh.close();
    }
  });

  for (const [name, endpoint] of [
    ['no authorization_endpoint', undefined],
    ['an authorization_endpoint that is no URL', 'auth'],
  ] as const) {
    it(`sends a sign-in whose provider metadata has ${name} back to the app with bffError, and warns`, async () => {
      const fresh = await startTestApp({
        bff: {
          fetch: async (input, init) => {
            const response = await fetch(input, init);
            if (!String(input).endsWith('/.well-known/openid-configuration')) return response;
            const metadata = (await response.json()) as Record<string, unknown>;
            return Response.json({ ...metadata, authorization_endpoint: endpoint });
          },
        },
      });
      try {
        const response = await fetch(`${fresh.baseUrl}/bff/login?returnUrl=%2Faccount`, { redirect: 'manual' });
        assert.equal(response.status, 303);
        assert.equal(response.headers.get('location'), '/account?bffError=ProviderUnavailable');
        assert.deepEqual(response.headers.getSetCookie(), [
          '__Host-bff-login=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0',
        ]);
        assert.match(
          fresh.warnings.join('\n'),
          /a sign-in could not start: the provider's metadata has no authorization_endpoint URL/,
        );
      } finally {
        await fresh.close();
      }
    });
  }
});

/** A sign-in walked to its end: the app's page where the browser lands, after the callback failed. */
async function signInPage(app: TestApp) {
  const { browseSignIn } = await harnessModule();
  return browseSignIn(`${app.baseUrl}/bff/login?returnUrl=%2Faccount`);
}
