import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { type TestApp, harnessModule, startTestApp } from './bff-test-app.spec-helper';

// GET <basePath>/login against oidc-provider: the authorization request and the login cookie.

describe('GET /bff/login', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it("redirects to the provider's authorization endpoint with PKCE (S256), state, nonce and the app's parameters", async () => {
    const response = await fetch(`${app.baseUrl}/bff/login?returnUrl=%2Faccount%3Ftab%3D2`, { redirect: 'manual' });
    assert.equal(response.status, 302);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const location = new URL(response.headers.get('location') ?? '');
    assert.equal(`${location.origin}${location.pathname}`, `${app.provider.issuer}/auth`);
    const query = Object.fromEntries(location.searchParams);
    assert.equal(query['client_id'], 'bff');
    assert.equal(query['response_type'], 'code');
    assert.equal(query['redirect_uri'], `${app.baseUrl}/bff/callback`);
    assert.equal(query['scope'], 'openid offline_access');
    assert.equal(query['prompt'], 'consent');
    assert.equal(query['code_challenge_method'], 'S256');
    for (const name of ['state', 'nonce', 'code_challenge']) assert.match(query[name] ?? '', /^[\w-]{43}$/, name);

    // The login cookie keeps what the callback checks; the challenge is the S256 of its verifier.
    const [cookie] = response.headers.getSetCookie();
    const [pair, ...attributes] = (cookie ?? '').split('; ');
    assert.match(pair ?? '', /^__Host-bff-login=[\w-]+$/);
    assert.deepEqual(attributes, ['Path=/', 'Secure', 'HttpOnly', 'SameSite=Lax', 'Max-Age=600']);
    const attempt = JSON.parse(Buffer.from((pair ?? '').split('=')[1] ?? '', 'base64url').toString('utf8')) as Record<
      string,
      string
    >;
    assert.equal(attempt['state'], query['state']);
    assert.equal(attempt['nonce'], query['nonce']);
    assert.equal(attempt['returnUrl'], '/account?tab=2');
    assert.equal(
      createHash('sha256')
        .update(attempt['codeVerifier'] ?? '')
        .digest('base64url'),
      query['code_challenge'],
    );
  });

  it('makes new secrets for every sign-in', async () => {
    const states = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${app.baseUrl}/bff/login`, { redirect: 'manual' });
      states.add(new URL(response.headers.get('location') ?? '').searchParams.get('state') ?? '');
    }
    assert.equal(states.size, 3);
  });

  it('sends a returnUrl off this site to / with bffError=InvalidRequest (no open redirect), starts nothing, and warns once', async () => {
    const warnings = app.warnings.length;
    for (const returnUrl of [
      '//evil.example',
      '/\\evil.example',
      'https://evil.example/',
      '/\t/evil.example',
      'account',
    ]) {
      const response = await fetch(`${app.baseUrl}/bff/login?returnUrl=${encodeURIComponent(returnUrl)}`, {
        redirect: 'manual',
      });
      assert.equal(response.status, 303, returnUrl);
      assert.equal(response.headers.get('location'), '/?bffError=InvalidRequest', returnUrl);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.deepEqual(response.headers.getSetCookie(), [CLEARED_LOGIN_COOKIE]);
    }
    // Once for the instance: a link crafted elsewhere can be followed any number of times.
    const warned = app.warnings.slice(warnings);
    assert.equal(warned.length, 1);
    assert.match(
      warned[0] ?? '',
      /a sign-in was refused \(it went to \/ with bffError=InvalidRequest\): its returnUrl is not a path of this site/,
    );
    assert.doesNotMatch(warned[0] ?? '', /evil/);
  });

  it('sends a returnUrl too long for the login cookie to / with bffError=InvalidRequest, and warns once', async () => {
    const warnings = app.warnings.length;
    const at = (length: number) =>
      fetch(`${app.baseUrl}/bff/login?returnUrl=/${'a'.repeat(length - 1)}`, { redirect: 'manual' });
    assert.equal((await at(2_000)).status, 302);
    for (let i = 0; i < 2; i++) {
      const tooLong = await at(2_001);
      assert.equal(tooLong.status, 303);
      assert.equal(tooLong.headers.get('location'), '/?bffError=InvalidRequest');
      assert.deepEqual(tooLong.headers.getSetCookie(), [CLEARED_LOGIN_COOKIE]);
    }
    const warned = app.warnings.slice(warnings);
    assert.equal(warned.length, 1);
    assert.match(
      warned[0] ?? '',
      /a sign-in was refused \(it went to \/ with bffError=InvalidRequest\): its returnUrl is longer than 2000 characters/,
    );
  });

  it('comes back to / without a returnUrl', async () => {
    const { browseSignIn } = await harnessModule();
    const { url, status } = await browseSignIn(`${app.baseUrl}/bff/login`);
    assert.equal(status, 200);
    assert.equal(url.href, `${app.baseUrl}/`);
  });
});

describe('GET /bff/login with the provider down', () => {
  it('goes back to returnUrl with bffError=ProviderUnavailable, clears the login cookie, warns, and works once the provider is back', async () => {
    const app = await startTestApp();
    try {
      await app.stopProvider();
      const returnUrl = '/orders/7?page=2&bffError=SignInFailed#line-3';
      const down = await fetch(`${app.baseUrl}/bff/login?returnUrl=${encodeURIComponent(returnUrl)}`, {
        redirect: 'manual',
      });
      assert.equal(down.status, 303);
      assert.equal(down.headers.get('location'), '/orders/7?page=2&bffError=ProviderUnavailable#line-3');
      assert.equal(down.headers.get('cache-control'), 'no-store');
      // An earlier sign-in of this browser ends too, as a sign-in that started would replace it.
      assert.deepEqual(down.headers.getSetCookie(), [CLEARED_LOGIN_COOKIE]);
      assert.match(
        app.warnings.join('\n'),
        /a sign-in could not start: the discovery of http:\/\/localhost:\d+\/ did not answer \(ECONNREFUSED\)/,
      );

      // What a person sees: the app's page, which can say so.
      const { url, status, body } = await (await harnessModule()).browseSignIn(`${app.baseUrl}/bff/login`);
      assert.equal(status, 200);
      assert.equal(`${url.pathname}${url.search}`, '/?bffError=ProviderUnavailable');
      assert.equal(body, "<!doctype html><title>app</title><p>the app's page /</p>");

      await app.restartProvider();
      assert.equal((await fetch(`${app.baseUrl}/bff/login`, { redirect: 'manual' })).status, 302);
    } finally {
      await app.close();
    }
  });
});

const CLEARED_LOGIN_COOKIE = '__Host-bff-login=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0';
