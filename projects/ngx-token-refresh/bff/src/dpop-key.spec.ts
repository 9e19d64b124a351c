import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it, type TestContext } from 'node:test';

import {
  type TestApp,
  type TestAppOptions,
  callAtOnce,
  postgresDatabases,
  startTestApp,
  twoInstanceStores,
} from './bff-test-app.spec-helper';

// DPoP (RFC 9449) against oidc-provider in its strict mode: every token of the bff client must be
// bound to a key, and every proof, at /token and at the userinfo endpoint (the API here), must carry
// the provider's nonce. The BFF makes the key at sign-in and keeps it in the session record.

describe('DPoP', { timeout: 60_000 }, () => {
  it("binds the session's tokens to a key made at sign-in, kept in the session record", async (context) => {
    await withApp(context, {}, async (app, proofs) => {
      const { session } = await app.signIn('ada');
      assert.equal(session.tokenType, 'DPoP');
      assert.equal(session.dpopKey?.publicJwk.kty, 'EC');
      assert.equal(session.dpopKey?.publicJwk.crv, 'P-256');
      assert.equal(typeof session.dpopKey?.privateJwk.d, 'string');
      const atToken = proofs.filter(({ url }) => url.endsWith('/token'));
      // The first proof had no nonce; the provider asked for one, and the second carried it.
      assert.equal(atToken.length, 2);
      assert.equal(atToken[0]?.payload['nonce'], undefined);
      assert.equal(typeof atToken[1]?.payload['nonce'], 'string');
      for (const proof of atToken)
        assert.deepEqual(publicPart(proof.header['jwk']), publicPart(session.dpopKey?.publicJwk));
    });
  });

  it("calls the API with proofs of the session's key, and the nonce this origin gave at sign-in", async (context) => {
    await withApp(context, {}, async (app, proofs) => {
      const { cookies, session } = await app.signIn('ada');
      const challenges = app.provider.stats().dpopNonceChallenges;
      for (let i = 0; i < 3; i++) {
        const response = await app.call(cookies, '/me');
        assert.equal(response.status, 200);
        assert.equal(((await response.json()) as { sub: string }).sub, 'ada');
      }
      // The API is on the provider's origin, whose nonce the session's handle learnt at sign-in.
      assert.equal(app.provider.stats().dpopNonceChallenges, challenges);
      const atApi = proofs.filter(({ url }) => url.endsWith('/me'));
      assert.equal(atApi.length, 3);
      for (const proof of atApi) {
        assert.equal(proof.authorization, `DPoP ${session.accessToken}`);
        assert.deepEqual(publicPart(proof.header['jwk']), publicPart(session.dpopKey?.publicJwk));
        assert.equal(proof.payload['htu'], `${app.provider.issuer}/me`);
        assert.equal(proof.payload['htm'], 'GET');
        assert.equal(proof.payload['ath'], createHash('sha256').update(session.accessToken).digest('base64url'));
        assert.equal(typeof proof.payload['nonce'], 'string');
      }
    });
  });

  it('refreshes with a proof of the same key', async (context) => {
    await withApp(context, {}, async (app, proofs) => {
      const { cookies, session } = await app.signIn('ada');
      context.mock.timers.setTime(session.accessTokenExpiresAt + 1_000);
      const before = proofs.length;
      assert.equal((await app.call(cookies, '/me')).status, 200);
      assert.equal(app.provider.stats().refreshGrants, 1);
      const refresh = proofs.slice(before).filter(({ url }) => url.endsWith('/token'));
      assert.ok(refresh.length >= 1);
      for (const proof of refresh)
        assert.deepEqual(publicPart(proof.header['jwk']), publicPart(session.dpopKey?.publicJwk));
      const record = await app.store.read(session.key, Date.now());
      assert.equal(record?.tokenType, 'DPoP');
      assert.deepEqual(record?.dpopKey, session.dpopKey);
    });
  });

  it('signs on another instance with the key from the session record', async (context) => {
    await withApp(context, { instances: 2 }, async (app) => {
      const { cookies, session } = await app.signIn('ada');
      const challenges = app.provider.stats().dpopNonceChallenges;
      for (let i = 0; i < 4; i++) assert.equal((await app.call(cookies, '/me')).status, 200);
      // The other instance's first proof has no nonce: the API asks for one, once, and gets it.
      assert.equal(app.provider.stats().dpopNonceChallenges, challenges + 1);
      context.mock.timers.setTime(session.accessTokenExpiresAt + 1_000);
      await callAtOnce(app, cookies, '/me', 10);
      assert.equal(app.provider.stats().refreshGrants, 1);
      assert.equal(app.provider.stats().reuseDetected, 0);
    });
  });

  for (const { name, open } of postgresDatabases()) {
    it(`signs on another instance with the key from the session record in ${name} (PostgreSQL only)`, async (context) => {
      const database = await open();
      try {
        const stores = twoInstanceStores(database);
        await withApp(context, { instances: 2, stores }, async (app) => {
          const { cookies, session } = await app.signIn('ada');
          context.mock.timers.setTime(session.accessTokenExpiresAt + 1_000);
          await callAtOnce(app, cookies, '/me', 10);
          assert.equal(app.provider.stats().refreshGrants, 1);
        });
      } finally {
        await database.close();
      }
    });
  }

  it('sends Bearer tokens with dpop: false, though the provider supports DPoP', async (context) => {
    await withApp(context, { provider: { dpop: false }, bff: { dpop: false } }, async (app, proofs) => {
      const { cookies, session } = await app.signIn('ada');
      assert.equal(session.tokenType, 'Bearer');
      assert.equal(session.dpopKey, null);
      assert.equal((await app.call(cookies, '/me')).status, 200);
      assert.deepEqual(proofs, []);
    });
  });

  it('uses DPoP by default where the provider advertises ES256, though it does not require it', async (context) => {
    await withApp(context, { provider: { dpop: false } }, async (app) => {
      const { cookies, session } = await app.signIn('ada');
      assert.equal(session.tokenType, 'DPoP');
      assert.equal((await app.call(cookies, '/me')).status, 200);
    });
  });
});

/** A DPoP proof the BFF sent, decoded, with the request's `Authorization`. */
interface Proof {
  readonly url: string;
  readonly authorization: string | null;
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
}

/**
 * Runs `work` on a new app whose provider requires DPoP (unless `options.provider` says otherwise),
 * whose BFF decides by itself, with `/me` (the provider's userinfo) as an API; every proof the BFF
 * sends is recorded. The clock is the test's own.
 */
async function withApp(
  context: TestContext,
  options: Pick<TestAppOptions, 'instances' | 'stores' | 'provider'> & { bff?: { dpop?: boolean } },
  work: (app: TestApp, proofs: Proof[]) => Promise<void>,
): Promise<void> {
  context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const proofs: Proof[] = [];
  const app = await startTestApp({
    ...options,
    provider: { dpop: true, ...options.provider },
    bff: ({ issuer, apiUrl }) => ({
      dpop: options.bff?.dpop,
      apis: { '/api': apiUrl, '/me': `${issuer}/me` },
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        const proof = headers.get('dpop');
        if (proof !== null) {
          const [header, payload] = proof
            .split('.')
            .slice(0, 2)
            .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
          proofs.push({ url: String(input), authorization: headers.get('authorization'), header, payload });
        }
        return fetch(input, init);
      },
    }),
  });
  try {
    await work(app, proofs);
  } finally {
    await app.close();
  }
}

function publicPart(jwk: unknown): { x: unknown; y: unknown } {
  const { x, y } = (jwk ?? {}) as { x?: unknown; y?: unknown };
  return { x, y };
}
