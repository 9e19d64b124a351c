import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { isBffError } from './bff-session.spec-helper';
import { type BffOptions, createBff } from './public-api';

// createBff checks its options when it is called: a mistake shows when the server starts, in a
// message that names the option and the fix, not at the first sign-in.

const VALID: BffOptions = {
  issuer: 'https://login.example',
  clientId: 'shop',
  clientSecret: 'secret',
  baseUrl: 'https://shop.example',
  apis: { '/api': 'https://api.example/v1' },
};

describe('createBff: options', () => {
  it('accepts https everywhere, and plain http on loopback hosts', () => {
    assert.doesNotThrow(() => createBff(VALID));
    assert.doesNotThrow(() =>
      createBff({
        ...VALID,
        issuer: 'http://localhost:4444',
        baseUrl: 'http://127.0.0.1:4200',
        apis: { '/api': 'http://[::1]:3000/v1/' },
      }),
    );
  });

  it('refuses a missing or unparsable issuer', () => {
    const withoutIssuer = { ...VALID, issuer: undefined } as unknown as BffOptions;
    assert.throws(() => createBff(withoutIssuer), isBffError('InvalidOptions', /issuer is undefined/));
    assert.throws(() => createBff({ ...VALID, issuer: 'login.example' }), isBffError('InvalidOptions', /issuer/));
  });

  it('refuses plain http off loopback, for the issuer, the app and the APIs', () => {
    const http = /must be https: \(plain http: only to localhost or 127\.0\.0\.1\)/;
    assert.throws(() => createBff({ ...VALID, issuer: 'http://login.example' }), isBffError('InvalidOptions', http));
    assert.throws(() => createBff({ ...VALID, baseUrl: 'http://shop.example' }), isBffError('InvalidOptions', http));
    assert.throws(
      () => createBff({ ...VALID, apis: { '/api': 'http://api.example' } }),
      isBffError('InvalidOptions', /apis\['\/api'\] .*must be https:/),
    );
  });

  it('refuses a baseUrl with a path: the session cookie is for the whole origin', () => {
    assert.throws(
      () => createBff({ ...VALID, baseUrl: 'https://shop.example/app' }),
      isBffError('InvalidOptions', /give the origin alone, such as 'https:\/\/shop\.example'/),
    );
  });

  it('refuses API prefixes that are no path or overlap basePath, and targets that are no URL or have a query', () => {
    const cases: [BffOptions['apis'], RegExp][] = [
      [{ api: 'https://api.example' }, /apis prefix 'api' .*leading slash/],
      [{ '/api/': 'https://api.example' }, /apis prefix '\/api\/'/],
      [{ '/bff/api': 'https://api.example' }, /overlaps basePath '\/bff'/],
      [{ '/api': 'https://api.example?key=1' }, /without a query or fragment/],
      [{ '/api': 'not a url' }, /give the URL of the API/],
    ];
    for (const [apis, message] of cases) {
      assert.throws(() => createBff({ ...VALID, apis }), isBffError('InvalidOptions', message), String(message));
    }
  });

  it('refuses authorization parameters that the protocol owns', () => {
    for (const name of ['state', 'nonce', 'redirect_uri', 'code_challenge', 'client_id']) {
      assert.throws(
        () => createBff({ ...VALID, authorizationParams: { [name]: 'x' } }),
        isBffError('InvalidOptions', new RegExp(`sets ${name}, which the BFF sets itself`)),
      );
    }
    assert.throws(
      () => createBff({ ...VALID, authorizationParams: { scope: 'openid' } }),
      isBffError('InvalidOptions', /use the scope option/),
    );
    assert.doesNotThrow(() => createBff({ ...VALID, authorizationParams: { prompt: 'consent' } }));
  });

  it('refuses a scope without openid', () => {
    assert.throws(() => createBff({ ...VALID, scope: 'offline_access' }), isBffError('InvalidOptions', /openid/));
  });

  it('refuses a client authentication that does not fit the secret', () => {
    assert.throws(
      () => createBff({ ...VALID, tokenEndpointAuthMethod: 'none' }),
      isBffError('InvalidOptions', /clientSecret with tokenEndpointAuthMethod 'none'/),
    );
    const publicClient: BffOptions = { ...VALID, clientSecret: undefined };
    assert.throws(
      () => createBff({ ...publicClient, tokenEndpointAuthMethod: 'client_secret_post' }),
      isBffError('InvalidOptions', /client_secret_post needs a clientSecret/),
    );
    assert.doesNotThrow(() => createBff(publicClient));
  });

  it('refuses lifetimes, timeouts and sizes that are not whole positive numbers', () => {
    for (const name of ['idleTimeout', 'absoluteTimeout', 'refreshTimeout', 'maxBodyBytes'] as const) {
      for (const value of [0, -1, Number.NaN, 1.5, '10']) {
        assert.throws(
          () => createBff({ ...VALID, [name]: value }),
          isBffError('InvalidOptions', new RegExp(`${name} is .*above 0`)),
          `${name}: ${String(value)}`,
        );
      }
    }
  });

  it('refuses a store that is not one', () => {
    assert.throws(
      () => createBff({ ...VALID, store: { read: () => null } as never }),
      isBffError('InvalidOptions', /store is not a BffSessionStore/),
    );
  });
});
