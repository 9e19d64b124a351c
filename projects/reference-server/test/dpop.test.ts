import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { decodeJwt } from 'jose';

import { type DpopKey, type ProofClaims, accessTokenHash, createDpopKey } from './dpop-key.js';
import {
  type TestDatabase,
  type TestServer,
  createTestDatabase,
  post,
  readCookie,
  readError,
  setCookieHeader,
  startTestServer,
} from './start-test-server.js';

// Issue 27: DPoP (RFC 9449) on the reference server. Every server here shares one database, one
// JWT_SECRET and one clock that moves only when a test moves it; proofs are made with jose (see
// dpop-key.ts), so the server's checks are held against an independent implementation.

const REFRESH_COOKIE = '__Secure-refreshToken';
const USERS = '/api/v1/users';
const APP = 'http://app.example';
/** The origin a load balancer's clients address, as it reports it to the instances behind it. */
const PUBLIC_ORIGIN = 'https://api.example';
const BEHIND_PROXY = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example' };

/** A clock that moves only when told to, shared by every server given it. */
function createStillClock(): { now: () => number; advance: (ms: number) => void } {
  let time = Date.now();
  return { now: () => time, advance: (ms) => (time += ms) };
}

const clock = createStillClock();
/** The last `DPoP-Nonce` any server gave: they share the secret and the clock, so it is good for all. */
let nonce: string | undefined;

/** A request's proof: made for it (the default), given, or none (`null`). */
interface Call {
  readonly method?: string;
  /** Sent as `Authorization: DPoP <token>`, or with `scheme`. */
  readonly token?: string;
  readonly scheme?: 'DPoP' | 'Bearer';
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly proof?: string | null;
  /** Changes to the proof made for the request. */
  readonly claims?: Partial<ProofClaims>;
  /** The origin the client addresses (a load balancer's), when not the server's own. */
  readonly origin?: string;
}

/** Sends a request with a proof by `key` and the last nonce, and keeps the nonce of the answer. */
async function send(server: TestServer, key: DpopKey, path: string, call: Call = {}): Promise<Response> {
  const method = call.method ?? 'GET';
  const target = new URL(path, call.origin ?? server.url);
  const proof =
    call.proof !== undefined
      ? call.proof
      : await key.proof({
          htm: method,
          htu: `${target.origin}${target.pathname}`,
          nonce,
          accessToken: call.token,
          ...call.claims,
        });
  const headers: Record<string, string> = { ...call.headers };
  if (proof !== null) headers['DPoP'] = proof;
  if (call.token !== undefined) headers['Authorization'] = `${call.scheme ?? 'DPoP'} ${call.token}`;
  if (call.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(server.url + path, {
    method,
    headers,
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  nonce = response.headers.get('dpop-nonce') ?? nonce;
  return response;
}

/** {@link send}, once more with a new proof when the answer is a nonce challenge, as a client does. */
async function sendWithNonce(server: TestServer, key: DpopKey, path: string, call: Call = {}): Promise<Response> {
  const response = await send(server, key, path, call);
  if (response.status !== 400 && response.status !== 401) return response;
  const { error } = (await response.clone().json()) as { error: { code: string } };
  return error.code === 'use_dpop_nonce' ? send(server, key, path, call) : response;
}

/** Signs in with a proof by `key` (after the nonce challenge, if any): the tokens and the session. */
async function signIn(
  server: TestServer,
  key: DpopKey,
  username = 'ada',
): Promise<{ accessToken: string; refreshToken: string; familyId: string }> {
  const password = username === 'ada' ? 'lovelace' : 'turing';
  const response = await sendWithNonce(server, key, '/auth/login', { method: 'POST', body: { username, password } });
  assert.equal(response.status, 200, await response.clone().text());
  const { accessToken } = (await response.json()) as { accessToken: string };
  const refreshToken = readCookie(response, REFRESH_COOKIE);
  assert.ok(refreshToken);
  return { accessToken, refreshToken, familyId: String(decodeJwt(accessToken)['sid']) };
}

/** `POST /auth/refresh` with the cookie, and a proof by `key` unless `proof` says otherwise. */
function refresh(server: TestServer, key: DpopKey, refreshToken: string, call: Call = {}): Promise<Response> {
  return send(server, key, '/auth/refresh', {
    ...call,
    method: 'POST',
    headers: { Cookie: `${REFRESH_COOKIE}=${refreshToken}`, ...call.headers },
  });
}

/** The family's row: what a refused refresh must leave as it was. */
async function family(
  database: TestDatabase,
  familyId: string,
): Promise<{ generation: number; revoked: boolean; jkt: string | null }> {
  const rows = await database.engine.query<{ generation: number; revoked_at: Date | null; jkt: string | null }>(
    'SELECT generation, revoked_at, jkt FROM refresh_token_families WHERE id = $1',
    [familyId],
  );
  const row = rows[0];
  assert.ok(row, `no family ${familyId}`);
  return { generation: Number(row.generation), revoked: row.revoked_at !== null, jkt: row.jkt };
}

/** A compact JWS put together by hand, for what jose refuses to make. */
function handMade(header: object, payload: object, sign: (input: string) => string = () => ''): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${input}.${sign(input)}`;
}

/** Asserts a 401 refusal of an API call's proof: the code, the challenge and a nonce. */
async function assertProofRefused(response: Response, code: 'invalid_dpop_proof' | 'use_dpop_nonce'): Promise<void> {
  assert.equal(response.status, 401);
  assert.equal(response.headers.get('www-authenticate'), `DPoP error="${code}", algs="ES256"`);
  assert.match(response.headers.get('dpop-nonce') ?? '', /^[A-Za-z0-9_-]{43}$/);
  assert.equal((await readError(response)).code, code);
}

/** Asserts a 401 refusal of an API call's token (bound to another key, not bound, sent as Bearer). */
async function assertTokenRefused(response: Response): Promise<void> {
  assert.equal(response.status, 401);
  assert.equal(response.headers.get('www-authenticate'), 'DPoP error="invalid_token", algs="ES256"');
  assert.equal((await readError(response)).code, 'InvalidToken');
}

/** One database for every server of the file. */
let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database?.close());

describe('DPoP (issue 27)', () => {
  /** DPOP=required, with the lab route and CORS for APP. */
  let required: TestServer;
  /** DPOP=allowed. */
  let allowed: TestServer;
  let alice: DpopKey;
  let mallory: DpopKey;
  /** A session of `alice` on `required`. */
  let session: { accessToken: string; refreshToken: string; familyId: string };
  before(async () => {
    [required, allowed, alice, mallory] = await Promise.all([
      startTestServer({
        database,
        now: clock.now,
        env: { DPOP: 'required', DEV_LAB_ROUTES: 'true', CORS_ORIGINS: APP },
      }),
      startTestServer({ database, now: clock.now, env: { DPOP: 'allowed' } }),
      createDpopKey(clock.now),
      createDpopKey(clock.now),
    ]);
    session = await signIn(required, alice);
  });
  after(() => Promise.all([required?.close(), allowed?.close()]));

  describe('sign-in', () => {
    it('refuses a login without a proof (400 invalid_dpop_proof), then one without the nonce (400 use_dpop_nonce), touching nothing', async () => {
      const body = { username: 'ada', password: 'lovelace' };
      const bare = await post(required, '/auth/login', body);
      assert.equal(bare.status, 400);
      assert.match(bare.headers.get('dpop-nonce') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.equal(setCookieHeader(bare, REFRESH_COOKIE), null);
      assert.equal((await readError(bare)).code, 'invalid_dpop_proof');

      const noNonce = await send(required, alice, '/auth/login', {
        method: 'POST',
        body,
        claims: { nonce: undefined },
      });
      assert.equal(noNonce.status, 400);
      assert.equal(noNonce.headers.get('www-authenticate'), null);
      assert.equal(setCookieHeader(noNonce, REFRESH_COOKIE), null);
      const challenge = (await noNonce.json()) as { error: { code: string; message: string } };
      assert.equal(challenge.error.code, 'use_dpop_nonce');
      assert.match(challenge.error.message, /DPoP-Nonce/);

      const signedIn = await send(required, alice, '/auth/login', { method: 'POST', body });
      assert.equal(signedIn.status, 200);
      // It carried the current nonce: no new one.
      assert.equal(signedIn.headers.get('dpop-nonce'), null);
    });

    it('binds the session and its access token to the proof’s key: cnf.jkt is jose’s RFC 7638 thumbprint', async () => {
      assert.deepEqual(decodeJwt(session.accessToken)['cnf'], { jkt: alice.jkt });
      assert.equal((await family(database, session.familyId)).jkt, alice.jkt);
    });

    it('with DPOP=allowed, signs in without a proof to an unbound session and a Bearer token', async () => {
      const response = await post(allowed, '/auth/login', { username: 'alan', password: 'turing' });
      assert.equal(response.status, 200);
      const { accessToken } = (await response.json()) as { accessToken: string };
      assert.equal(decodeJwt(accessToken)['cnf'], undefined);
      assert.equal((await family(database, String(decodeJwt(accessToken)['sid']))).jkt, null);
      const call = await fetch(allowed.url + USERS, { headers: { Authorization: `Bearer ${accessToken}` } });
      assert.equal(call.status, 200);
      assert.equal(call.headers.get('dpop-nonce'), null);
    });
  });

  describe('API calls', () => {
    it('accepts a valid proof for reads and writes; the answer brings no nonce when the proof had the current one', async () => {
      const read = await send(required, alice, `${USERS}/1`, { token: session.accessToken });
      assert.equal(read.status, 200);
      assert.equal(read.headers.get('dpop-nonce'), null);
      const write = await send(required, alice, USERS, {
        method: 'POST',
        token: session.accessToken,
        body: { name: 'Proof', email: 'proof@example.com' },
      });
      assert.equal(write.status, 201);
      // A query is not part of htu: a proof for the path is good for the path with a query, and a
      // query in htu is ignored.
      for (const htu of [`${required.url}${USERS}`, `${required.url}${USERS}?page=2`]) {
        const page = await send(required, alice, `${USERS}?page=2`, { token: session.accessToken, claims: { htu } });
        assert.equal(page.status, 200);
      }
    });

    it('refuses a forged proof: signed by another key than the one in its header', async () => {
      const response = await send(required, alice, USERS, {
        token: session.accessToken,
        claims: { signWith: mallory.privateKey },
      });
      await assertProofRefused(response, 'invalid_dpop_proof');
    });

    it('refuses a replayed proof: the same jti twice', async () => {
      const proof = await alice.proof({
        htm: 'GET',
        htu: required.url + USERS,
        nonce,
        accessToken: session.accessToken,
      });
      assert.equal((await send(required, alice, USERS, { token: session.accessToken, proof })).status, 200);
      await assertProofRefused(
        await send(required, alice, USERS, { token: session.accessToken, proof }),
        'invalid_dpop_proof',
      );
    });

    it('refuses a stale proof (iat 301 s off either way), even with the current nonce', async () => {
      const seconds = Math.floor(clock.now() / 1000);
      for (const iat of [seconds - 301, seconds + 301]) {
        const response = await send(required, alice, USERS, { token: session.accessToken, claims: { iat } });
        await assertProofRefused(response, 'invalid_dpop_proof');
      }
      const edge = await send(required, alice, USERS, { token: session.accessToken, claims: { iat: seconds - 299 } });
      assert.equal(edge.status, 200);
    });

    it('refuses a proof for another method', async () => {
      const response = await send(required, alice, USERS, { token: session.accessToken, claims: { htm: 'POST' } });
      await assertProofRefused(response, 'invalid_dpop_proof');
    });

    it('refuses a proof for another URL: another path, a trailing slash, another port, https', async () => {
      const { port } = new URL(required.url);
      const others = [
        `${required.url}/api/v1/users/1`,
        `${required.url}${USERS}/`,
        `http://127.0.0.1:${Number(port) + 1}${USERS}`,
        `https://127.0.0.1:${port}${USERS}`,
      ];
      for (const htu of others) {
        const response = await send(required, alice, USERS, { token: session.accessToken, claims: { htu } });
        await assertProofRefused(response, 'invalid_dpop_proof');
      }
      // Without TRUST_PROXY, what X-Forwarded-Proto and -Host claim is not the request's URI.
      const spoofed = await send(required, alice, USERS, {
        token: session.accessToken,
        origin: PUBLIC_ORIGIN,
        headers: BEHIND_PROXY,
      });
      await assertProofRefused(spoofed, 'invalid_dpop_proof');
    });

    it('refuses a proof by another key than the token is bound to (401 invalid_token)', async () => {
      await assertTokenRefused(await send(required, mallory, USERS, { token: session.accessToken }));
    });

    it('refuses a proof without ath, or with the ath of another token', async () => {
      const missing = await send(required, alice, USERS, {
        token: session.accessToken,
        claims: { accessToken: undefined },
      });
      await assertProofRefused(missing, 'invalid_dpop_proof');
      const other = await send(required, alice, USERS, {
        token: session.accessToken,
        claims: { override: { ath: accessTokenHash(`${session.accessToken}x`) } },
      });
      await assertProofRefused(other, 'invalid_dpop_proof');
    });

    it('refuses a DPoP token without a proof, and a bound token sent as Bearer (with or without a proof)', async () => {
      await assertProofRefused(
        await send(required, alice, USERS, { token: session.accessToken, proof: null }),
        'invalid_dpop_proof',
      );
      for (const server of [required, allowed]) {
        await assertTokenRefused(await send(server, alice, USERS, { token: session.accessToken, scheme: 'Bearer' }));
        await assertTokenRefused(
          await send(server, alice, USERS, { token: session.accessToken, scheme: 'Bearer', proof: null }),
        );
      }
    });

    it('answers a missing or stale nonce with 401 use_dpop_nonce and DPoP-Nonce; the same request with it then passes', async () => {
      await assertProofRefused(
        await send(required, alice, USERS, { token: session.accessToken, claims: { nonce: undefined } }),
        'use_dpop_nonce',
      );
      const before = nonce;
      // Nonces change every minute and are taken for 2 to 3.
      clock.advance(4 * 60_000);
      const stale = await send(required, alice, USERS, { token: session.accessToken });
      await assertProofRefused(stale, 'use_dpop_nonce');
      assert.notEqual(nonce, before);
      const again = await send(required, alice, USERS, { token: session.accessToken });
      assert.equal(again.status, 200);
      // A minute on, the nonce still passes, and the answer brings the next one.
      clock.advance(60_000);
      const older = await send(required, alice, USERS, { token: session.accessToken });
      assert.equal(older.status, 200);
      assert.match(older.headers.get('dpop-nonce') ?? '', /^[A-Za-z0-9_-]{43}$/);
    });

    it('refuses what is not an ES256 proof of a public key: alg none, HS256, a private key in the header, typ jwt', async () => {
      const claims = {
        jti: 'x'.repeat(22),
        htm: 'GET',
        htu: required.url + USERS,
        iat: Math.floor(clock.now() / 1000),
        nonce,
        ath: accessTokenHash(session.accessToken),
      };
      const proofs = [
        handMade({ typ: 'dpop+jwt', alg: 'none', jwk: alice.jwk }, claims),
        // HMAC keyed with the public key's own text: the old algorithm-confusion trick.
        handMade({ typ: 'dpop+jwt', alg: 'HS256', jwk: alice.jwk }, claims, (input) =>
          createHmac('sha256', JSON.stringify(alice.jwk)).update(input).digest('base64url'),
        ),
        await alice.proof({
          htm: 'GET',
          htu: required.url + USERS,
          nonce,
          accessToken: session.accessToken,
          header: { jwk: alice.privateJwk },
        }),
        await alice.proof({
          htm: 'GET',
          htu: required.url + USERS,
          nonce,
          accessToken: session.accessToken,
          header: { typ: 'JWT' },
        }),
      ];
      for (const proof of proofs) {
        await assertProofRefused(
          await send(required, alice, USERS, { token: session.accessToken, proof }),
          'invalid_dpop_proof',
        );
      }
    });

    it('challenges a call without credentials with the schemes it takes', async () => {
      const strict = await fetch(required.url + USERS);
      assert.equal(strict.status, 401);
      assert.equal(strict.headers.get('www-authenticate'), 'DPoP algs="ES256"');
      const either = await fetch(allowed.url + USERS);
      assert.equal(either.headers.get('www-authenticate'), 'Bearer, DPoP algs="ES256"');
      const bearer = await post(allowed, '/auth/login', { username: 'alan', password: 'turing' });
      const { accessToken } = (await bearer.json()) as { accessToken: string };
      await assertTokenRefused(
        await fetch(required.url + USERS, { headers: { Authorization: `Bearer ${accessToken}` } }),
      );
      // An unbound token is not a DPoP token.
      await assertTokenRefused(await send(allowed, alice, USERS, { token: accessToken }));
    });

    it('answers a viewer’s write with 403 and the DPoP scheme’s insufficient_scope', async () => {
      const viewer = await signIn(required, mallory, 'alan');
      const response = await send(required, mallory, USERS, {
        method: 'POST',
        token: viewer.accessToken,
        body: { name: 'No', email: 'no@example.com' },
      });
      assert.equal(response.status, 403);
      assert.equal(response.headers.get('www-authenticate'), 'DPoP error="insufficient_scope", algs="ES256"');
    });

    it('lets the lab expire a DPoP token with a proof of its key', async () => {
      const own = await signIn(required, alice);
      assert.equal(
        (await send(required, alice, '/auth/lab/expire-access-token', { method: 'POST', token: own.accessToken }))
          .status,
        204,
      );
      const expired = await send(required, alice, USERS, { token: own.accessToken });
      assert.equal(expired.status, 401);
      assert.equal(expired.headers.get('www-authenticate'), 'DPoP error="invalid_token", algs="ES256"');
      assert.equal((await readError(expired)).code, 'TokenExpired');
    });
  });

  describe('refresh', () => {
    it('rotates a bound session with a proof of its key; the new access token is bound too', async () => {
      const own = await signIn(required, alice);
      const response = await refresh(required, alice, own.refreshToken);
      assert.equal(response.status, 200);
      const { accessToken } = (await response.json()) as { accessToken: string };
      assert.deepEqual(decodeJwt(accessToken)['cnf'], { jkt: alice.jkt });
      assert.ok(readCookie(response, REFRESH_COOKIE));
      assert.equal((await family(database, own.familyId)).generation, 1);
    });

    it('refuses another key, or no proof (DPOP=allowed), without rotating, revoking or clearing the cookie', async () => {
      const own = await signIn(allowed, alice);
      const attempts = [
        () => refresh(allowed, mallory, own.refreshToken),
        () => refresh(allowed, alice, own.refreshToken, { proof: null }),
      ];
      for (const attempt of attempts) {
        const response = await attempt();
        assert.equal(response.status, 401);
        assert.equal(setCookieHeader(response, REFRESH_COOKIE), null);
        assert.equal((await readError(response)).code, 'InvalidRefreshToken');
        assert.deepEqual(await family(database, own.familyId), { generation: 0, revoked: false, jkt: alice.jkt });
      }
      // The owner's refresh still rotates the login's token: nothing happened to it.
      assert.equal((await refresh(allowed, alice, own.refreshToken)).status, 200);
      assert.equal((await family(database, own.familyId)).generation, 1);
    });

    it('answers a proof without the nonce, a wrong one and a replayed one with 400, leaving the session and cookie alone', async () => {
      const own = await signIn(required, alice);
      const proof = await alice.proof({ htm: 'POST', htu: `${required.url}/auth/refresh`, nonce });
      assert.equal((await refresh(required, alice, own.refreshToken, { proof })).status, 200);
      const refusals = [
        [await refresh(required, alice, own.refreshToken, { claims: { nonce: undefined } }), 'use_dpop_nonce'],
        [await refresh(required, alice, own.refreshToken, { claims: { htm: 'GET' } }), 'invalid_dpop_proof'],
        [await refresh(required, alice, own.refreshToken, { proof }), 'invalid_dpop_proof'],
        [await refresh(required, alice, own.refreshToken, { proof: null }), 'invalid_dpop_proof'],
      ] as const;
      for (const [response, code] of refusals) {
        assert.equal(response.status, 400);
        assert.equal(setCookieHeader(response, REFRESH_COOKIE), null);
        assert.match(response.headers.get('dpop-nonce') ?? '', /^[A-Za-z0-9_-]{43}$/);
        assert.equal((await readError(response)).code, code);
      }
      assert.deepEqual(await family(database, own.familyId), { generation: 1, revoked: false, jkt: alice.jkt });
    });

    it('with DPOP=required, refuses a session bound to no key (made while DPoP was allowed)', async () => {
      const response = await post(allowed, '/auth/login', { username: 'ada', password: 'lovelace' });
      const refreshToken = readCookie(response, REFRESH_COOKIE) ?? '';
      const refused = await refresh(required, alice, refreshToken);
      assert.equal(refused.status, 401);
      assert.equal((await readError(refused)).code, 'InvalidRefreshToken');
    });
  });

  describe('logout', () => {
    it('ends the session a DPoP token with its proof names; a bound token sent as Bearer names none', async () => {
      const own = await signIn(required, alice);
      const bearer = await post(required, '/auth/logout', undefined, { Authorization: `Bearer ${own.accessToken}` });
      assert.equal(bearer.status, 204);
      assert.equal((await family(database, own.familyId)).revoked, false);
      const stolen = await send(required, mallory, '/auth/logout', { method: 'POST', token: own.accessToken });
      assert.equal(stolen.status, 204);
      assert.equal((await family(database, own.familyId)).revoked, false);
      const owner = await send(required, alice, '/auth/logout', { method: 'POST', token: own.accessToken });
      assert.equal(owner.status, 204);
      assert.equal((await family(database, own.familyId)).revoked, true);
    });
  });

  describe('CORS, the document and housekeeping', () => {
    it('allows the DPoP header and exposes DPoP-Nonce and WWW-Authenticate to the configured origins', async () => {
      const preflight = await fetch(required.url + USERS, {
        method: 'OPTIONS',
        headers: {
          Origin: APP,
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization, dpop',
        },
      });
      assert.equal(preflight.status, 204);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /\bDPoP\b/);
      const answer = await fetch(required.url + USERS, { headers: { Origin: APP } });
      const exposed = answer.headers.get('access-control-expose-headers') ?? '';
      assert.match(exposed, /\bDPoP-Nonce\b/);
      assert.match(exposed, /\bWWW-Authenticate\b/);
    });

    it('describes DPoP in the OpenAPI document: the scheme, the proof header, the nonces', async () => {
      interface Operation {
        security?: object[];
        parameters?: { name: string; in: string; required?: boolean }[];
        responses: Record<string, { headers?: Record<string, unknown> }>;
      }
      const document = (await (await fetch(`${required.url}/openapi.json`)).json()) as {
        components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
        paths: Record<string, Record<string, Operation>>;
      };
      assert.deepEqual(document.components.securitySchemes['dpopAuth']?.scheme, 'DPoP');
      const list = document.paths[USERS]?.['get'];
      assert.deepEqual(list?.security, [{ dpopAuth: [] }]);
      assert.deepEqual(list?.parameters?.find(({ name }) => name === 'DPoP')?.in, 'header');
      assert.ok(list?.responses['401']?.headers?.['DPoP-Nonce']);
      const login = document.paths['/auth/login']?.['post'];
      assert.equal(login?.parameters?.find(({ name }) => name === 'DPoP')?.required, true);
      assert.ok(login?.responses['400']?.headers?.['DPoP-Nonce']);
      assert.ok(login?.responses['200']?.headers?.['DPoP-Nonce']);
    });

    it('with DPOP=off, takes no DPoP token and changes nothing in CORS', async () => {
      const off = await startTestServer({ database, now: clock.now, env: { CORS_ORIGINS: APP } });
      try {
        const response = await send(off, alice, USERS, { token: session.accessToken });
        assert.equal(response.status, 401);
        assert.equal(response.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
        assert.equal(response.headers.get('dpop-nonce'), null);
        const answer = await fetch(off.url + USERS, { headers: { Origin: APP } });
        assert.doesNotMatch(answer.headers.get('access-control-expose-headers') ?? '', /DPoP/i);
        const preflight = await fetch(off.url + USERS, {
          method: 'OPTIONS',
          headers: { Origin: APP, 'Access-Control-Request-Method': 'GET' },
        });
        assert.doesNotMatch(preflight.headers.get('access-control-allow-headers') ?? '', /DPoP/i);
      } finally {
        await off.close();
      }
    });

    it('forgets recorded proofs once their nonce has expired everywhere', async () => {
      const count = async () =>
        Number((await database.engine.query<{ n: number }>('SELECT count(*) AS n FROM dpop_proofs'))[0]?.n);
      assert.ok((await count()) > 0);
      clock.advance(10 * 60_000);
      // Housekeeping comes with logins and refreshes.
      await signIn(required, alice);
      assert.equal(await count(), 1);
    });
  });
});

describe('A stolen refresh cookie of a bound session, without the key (issue 38)', () => {
  // DPOP=allowed, so that bound and unbound sessions live side by side; TRUST_PROXY so that each test
  // sends from addresses of its own (X-Forwarded-For), and the rate-limit windows of one test are not
  // another's. Five refreshes a minute: what the owner is allowed, and what one address is.
  const MAX = 5;
  let server: TestServer;
  let alice: DpopKey;
  let mallory: DpopKey;
  let address = 0;
  /** A client address of its own, as the proxy reports it. */
  const from = (): Record<string, string> => ({ 'X-Forwarded-For': `198.51.100.${++address}` });
  before(async () => {
    [server, alice, mallory] = await Promise.all([
      startTestServer({
        database,
        now: clock.now,
        env: {
          DPOP: 'allowed',
          TRUST_PROXY: '127.0.0.1',
          REFRESH_RATE_LIMIT_MAX: String(MAX),
          REFRESH_RATE_LIMIT_WINDOW_SECONDS: '60',
        },
      }),
      createDpopKey(clock.now),
      createDpopKey(clock.now),
    ]);
  });
  after(() => server?.close());

  /** `POST /auth/logout` with `call`, and the refresh token in the cookie. */
  const logout = (key: DpopKey, refreshToken: string, call: Call = {}) =>
    send(server, key, '/auth/logout', {
      ...call,
      method: 'POST',
      headers: { Cookie: `${REFRESH_COOKIE}=${refreshToken}`, ...call.headers },
    });

  /** Asserts the refusal that leaves the session and the cookie as they were. */
  async function assertRefusedTouchingNothing(response: Response, familyId: string, generation: number): Promise<void> {
    assert.equal(response.status, 401);
    assert.equal(setCookieHeader(response, REFRESH_COOKIE), null);
    assert.equal((await readError(response)).code, 'InvalidRefreshToken');
    assert.deepEqual(await family(database, familyId), { generation, revoked: false, jkt: alice.jkt });
  }

  it('cannot refresh: another key or none is 401, nothing rotated, and a rotated copy does not count as reuse', async () => {
    const own = await signIn(server, alice);
    const rotated = await refresh(server, alice, own.refreshToken);
    assert.equal(rotated.status, 200);
    // Past the overlap window, where the login's token would count as reuse in anybody's hands.
    clock.advance(60_000);
    for (const token of [own.refreshToken, readCookie(rotated, REFRESH_COOKIE) ?? '']) {
      await assertRefusedTouchingNothing(await refresh(server, mallory, token, { headers: from() }), own.familyId, 1);
      const bare = await refresh(server, mallory, token, { proof: null, headers: from() });
      await assertRefusedTouchingNothing(bare, own.familyId, 1);
    }
  });

  it('cannot sign the owner out: a logout by the token alone, with another key’s proof, or in the body, is 401 and ends nothing', async () => {
    const own = await signIn(server, alice);
    assert.equal((await refresh(server, alice, own.refreshToken)).status, 200);
    const thief = await signIn(server, mallory, 'alan');
    const attempts = [
      // The login's token, already rotated: no proof, no Origin.
      () => logout(mallory, own.refreshToken, { proof: null }),
      () => logout(mallory, own.refreshToken),
      // With the thief's own session's DPoP token and its proof, which name the thief's session only.
      () => logout(mallory, own.refreshToken, { token: thief.accessToken }),
      () => send(server, mallory, '/auth/logout', { method: 'POST', body: { refreshToken: own.refreshToken } }),
    ];
    for (const attempt of attempts) {
      const response = await attempt();
      await assertRefusedTouchingNothing(response.clone(), own.familyId, 1);
      assert.match((await readError(response)).message, /bound to (a|another) DPoP key/);
    }
    assert.equal((await family(database, thief.familyId)).revoked, false);
    assert.equal((await refresh(server, alice, own.refreshToken)).status, 200);
  });

  it('cannot use up the owner’s refreshes: the copy counts for its sender’s address, even at the owner’s', async () => {
    const own = await signIn(server, alice);
    const shared = from();
    const statuses: number[] = [];
    for (let i = 0; i <= MAX; i++) {
      statuses.push((await refresh(server, mallory, own.refreshToken, { headers: shared })).status);
    }
    assert.deepEqual(statuses, [...Array<number>(MAX).fill(401), 429]);
    const owner = await refresh(server, alice, own.refreshToken, { headers: shared });
    assert.equal(owner.status, 200);
  });

  it('cannot buy more attempts with a new key each: one address still gets its limit a minute', async () => {
    const own = await signIn(server, alice);
    const one = from();
    const statuses: number[] = [];
    for (let i = 0; i <= MAX; i++) {
      const key = await createDpopKey(clock.now);
      statuses.push((await refresh(server, key, own.refreshToken, { headers: one })).status);
    }
    // Without a proof, the same address and the same count.
    statuses.push((await refresh(server, mallory, own.refreshToken, { proof: null, headers: one })).status);
    assert.deepEqual(statuses, [...Array<number>(MAX).fill(401), 429, 429]);
    assert.equal((await refresh(server, alice, own.refreshToken, { headers: one })).status, 200);
  });

  it('leaves the owner’s own refreshes limited as before: per session, from any address', async () => {
    const own = await signIn(server, alice);
    const statuses: number[] = [];
    for (let i = 0; i <= MAX; i++) {
      statuses.push((await refresh(server, alice, own.refreshToken, { headers: from() })).status);
    }
    assert.deepEqual(statuses, [...Array<number>(MAX).fill(200), 429]);
  });

  it('can still be presented and refused, and so tell whether the session is still live', async () => {
    const own = await signIn(server, alice);
    const live = await refresh(server, mallory, own.refreshToken, { headers: from() });
    assert.match((await readError(live)).message, /bound to another DPoP key/);
    const ended = await send(server, alice, '/auth/logout', { method: 'POST', token: own.accessToken });
    assert.equal(ended.status, 204);
    const after = await refresh(server, mallory, own.refreshToken, { headers: from() });
    assert.equal(after.status, 401);
    assert.match((await readError(after)).message, /unknown, expired or revoked/);
  });

  it('lets the owner sign out with the cookie and a proof of its key alone, and with DPOP=required too (401, not 400, without)', async () => {
    const own = await signIn(server, alice);
    const signedOut = await logout(alice, own.refreshToken);
    assert.equal(signedOut.status, 204);
    assert.equal(readCookie(signedOut, REFRESH_COOKIE), '');
    assert.equal((await family(database, own.familyId)).revoked, true);

    const strict = await startTestServer({ database, now: clock.now, env: { DPOP: 'required' } });
    try {
      const bound = await signIn(strict, alice);
      const cookie = { Cookie: `${REFRESH_COOKIE}=${bound.refreshToken}` };
      const bare = await send(strict, alice, '/auth/logout', { method: 'POST', proof: null, headers: cookie });
      await assertRefusedTouchingNothing(bare, bound.familyId, 0);
      const stale = await send(strict, alice, '/auth/logout', {
        method: 'POST',
        headers: cookie,
        claims: { nonce: undefined },
      });
      assert.equal(stale.status, 400);
      assert.equal((await readError(stale)).code, 'use_dpop_nonce');
      assert.equal(setCookieHeader(stale, REFRESH_COOKIE), null);
      const owner = await send(strict, alice, '/auth/logout', { method: 'POST', headers: cookie });
      assert.equal(owner.status, 204);
      assert.equal((await family(database, bound.familyId)).revoked, true);
    } finally {
      await strict.close();
    }
  });

  it('is the whole session when the session is bound to no key: it signs out without a proof, as before', async () => {
    const response = await post(server, '/auth/login', { username: 'alan', password: 'turing' });
    const refreshToken = readCookie(response, REFRESH_COOKIE) ?? '';
    const { accessToken } = (await response.json()) as { accessToken: string };
    const signedOut = await logout(mallory, refreshToken, { proof: null });
    assert.equal(signedOut.status, 204);
    assert.equal(readCookie(signedOut, REFRESH_COOKIE), '');
    assert.equal((await family(database, String(decodeJwt(accessToken)['sid']))).revoked, true);
  });
});

describe('DPoP with two instances on one database (issue 27)', () => {
  let first: TestServer;
  let second: TestServer;
  let alice: DpopKey;
  let session: { accessToken: string; refreshToken: string; familyId: string };
  // Both behind one load balancer: clients address PUBLIC_ORIGIN, and the instances trust the proxy's
  // X-Forwarded-Proto and -Host to tell them so.
  const env = { DPOP: 'required', TRUST_PROXY: '127.0.0.1' };
  const viaProxy = { origin: PUBLIC_ORIGIN, headers: BEHIND_PROXY } as const;
  before(async () => {
    [first, second, alice] = await Promise.all([
      startTestServer({ env, database, now: clock.now }),
      database.connectAgain().then((again) => startTestServer({ env, database: again, now: clock.now })),
      createDpopKey(clock.now),
    ]);
    const login = await sendWithNonce(first, alice, '/auth/login', {
      ...viaProxy,
      method: 'POST',
      body: { username: 'ada', password: 'lovelace' },
    });
    assert.equal(login.status, 200);
    const { accessToken } = (await login.json()) as { accessToken: string };
    session = {
      accessToken,
      refreshToken: readCookie(login, REFRESH_COOKIE) ?? '',
      familyId: String(decodeJwt(accessToken)['sid']),
    };
  });
  after(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await second?.database.close();
  });

  it('takes htu from the trusted proxy’s X-Forwarded-Proto and -Host, and the instance’s own address not at all', async () => {
    assert.equal((await send(second, alice, USERS, { ...viaProxy, token: session.accessToken })).status, 200);
    const direct = await send(second, alice, USERS, { token: session.accessToken, headers: BEHIND_PROXY });
    await assertProofRefused(direct, 'invalid_dpop_proof');
  });

  it('accepts a nonce of one instance at the other', async () => {
    clock.advance(5 * 60_000);
    await assertProofRefused(
      await send(first, alice, USERS, { ...viaProxy, token: session.accessToken }),
      'use_dpop_nonce',
    );
    const fromFirst = nonce;
    const response = await send(second, alice, USERS, { ...viaProxy, token: session.accessToken });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('dpop-nonce'), null);
    assert.equal(nonce, fromFirst);
  });

  it('refuses a proof replayed at the other instance, and accepts one of two sent to both at once', async () => {
    const proof = () =>
      alice.proof({ htm: 'GET', htu: PUBLIC_ORIGIN + USERS, nonce, accessToken: session.accessToken });
    const once = await proof();
    assert.equal(
      (await send(first, alice, USERS, { ...viaProxy, token: session.accessToken, proof: once })).status,
      200,
    );
    await assertProofRefused(
      await send(second, alice, USERS, { ...viaProxy, token: session.accessToken, proof: once }),
      'invalid_dpop_proof',
    );
    for (let round = 0; round < 5; round++) {
      const twice = await proof();
      const statuses = await Promise.all(
        [first, second].map(
          async (server) =>
            (await send(server, alice, USERS, { ...viaProxy, token: session.accessToken, proof: twice })).status,
        ),
      );
      assert.deepEqual(statuses.sort(), [200, 401]);
    }
  });

  it('refreshes at the other instance with the key, and refuses the refresh with another key there', async () => {
    const mallory = await createDpopKey(clock.now);
    const cookie = { Cookie: `${REFRESH_COOKIE}=${session.refreshToken}`, ...BEHIND_PROXY };
    const stolen = await send(second, mallory, '/auth/refresh', { ...viaProxy, method: 'POST', headers: cookie });
    assert.equal(stolen.status, 401);
    const owner = await send(second, alice, '/auth/refresh', { ...viaProxy, method: 'POST', headers: cookie });
    assert.equal(owner.status, 200);
    assert.equal((await family(database, session.familyId)).generation, 1);
  });
});
