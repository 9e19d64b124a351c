/* global fetch, structuredClone, URLSearchParams */
// A certified OpenID Provider for the tests of ngx-token-refresh/oauth: the npm package
// `oidc-provider` (OpenID Certified), configured as a browser app meets a real identity server:
// one public client, the authorization code flow with PKCE, strict refresh-token rotation, short
// opaque access tokens, and the userinfo endpoint as the protected resource. On request, a second,
// confidential client for a backend-for-frontend (the app's own server signs in and keeps the
// tokens). Nothing here changes how the provider answers; the harness only watches it (its
// events), and, under /__harness/, offers test hooks that a real identity server does not have.
//
// As a module:  const provider = await startOidcProvider({ accessTokenTtl: 4, corsOrigins: [...] });
// As a script:  PORT=4444 ACCESS_TOKEN_TTL=5 node e2e/oidc/oidc-provider-server.mjs
//               (prints `oidc-provider ready <issuer>` once listening; see README.md for every variable)
//
// Rotation grace: oidc-provider has none to turn off. Its refresh grant (lib/actions/grants/
// refresh_token.js in 9.13.3) consumes the presented token and saves a new one before it answers;
// a consumed token presented again destroys it and revokes the whole grant (every refresh and
// access token of the sign-in) and answers invalid_grant "refresh token already used", at once,
// whatever the time since the rotation. The only knob is whether to rotate at all
// (`rotateRefreshToken`, by default rotating for public clients like this one); it is `true` here.
// So every test against this harness runs with no grace window: the client alone must be correct.
import { generateKeyPairSync, randomBytes, createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { IncomingMessage, createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

import Provider from 'oidc-provider';

import { browseSignIn } from './browse-sign-in.mjs';

export { browseSignIn, browseSignOut, CookieJar } from './browse-sign-in.mjs';

/** The browser app's client: public (no secret) and bound to PKCE. */
export const CLIENT_ID = 'spa';

/** The backend-for-frontend's client (option `bffClient`): confidential (a secret), and bound to PKCE. */
export const BFF_CLIENT_ID = 'bff';

/** Where the harness's own sign-in (`POST /__harness/sign-in`) sends the code; never opened. */
const HARNESS_CALLBACK = '/__harness/callback';

/** oidc-provider's default route of the token endpoint (not changed here). */
const TOKEN_PATH = '/token';

/**
 * Starts oidc-provider on 127.0.0.1 and ::1 (both, so that `localhost` works whichever a client
 * resolves first), its issuer `http://localhost:<port>`.
 *
 * @param {object} [options]
 * @param {number} [options.port] default 0: a free port
 * @param {number} [options.accessTokenTtl] seconds an access token lives (its `expires_in`); default 5
 * @param {string[]} [options.redirectUris] the client's redirect URIs besides the harness's own
 * @param {string[]} [options.corsOrigins] origins allowed to call the token, revocation and userinfo
 *   endpoints from a browser, besides the origins of the redirect URIs
 * @param {boolean} [options.dpop] sender-constrained tokens only (RFC 9449): the client must prove
 *   a DPoP key at the token endpoint (`dpop_bound_access_tokens`), so every access token and refresh
 *   token is bound to the key, and every proof, at /token and at userinfo, must carry the provider's
 *   nonce (a first proof without one is answered `use_dpop_nonce` with a `DPoP-Nonce` header). The
 *   harness's own `signIn()` sends no proof, so it is refused in this mode. Default false: DPoP is
 *   then only accepted, never asked for (oidc-provider's default).
 * @param {string} [options.storeFile] keep the provider's data (grants, tokens, sessions, and the
 *   signing and cookie keys) in this JSON file, written on every change and read at start: a restart
 *   then keeps every session. Without it, everything lives in memory and a restart forgets it all.
 * @param {{ secret: string, redirectUris?: string[], postLogoutRedirectUris?: string[] }} [options.bffClient]
 *   adds the confidential client `bff` of a backend-for-frontend: it authenticates at the token and
 *   revocation endpoints with `secret` (`client_secret_basic`; oidc-provider also accepts the same
 *   secret as `client_secret_post`), uses the code flow with PKCE like `spa`, with the same strict
 *   rotation and refresh-token policy, may send the browser back to `redirectUris` (besides the
 *   harness's own) and, after an RP-initiated logout, to `postLogoutRedirectUris`. With `dpop`, its
 *   access tokens are DPoP-bound too (its refresh tokens are not: a confidential client's are bound to
 *   its secret, RFC 9449 §5). A server calls the provider, so its URIs get no CORS. Default: no such client.
 * @returns {Promise<{ issuer: string, port: number, provider: Provider, stats(): Stats,
 *   resetStats(): void, dropNextRefresh(): void, holdNextRefresh(): void,
 *   release(): Promise<{ released: number, dropped: number }>, expireAccessTokens(): number,
 *   issuedTokens(): IssuedTokens,
 *   signIn(login?: string, options?: { consent?: boolean, client?: string }): Promise<object>,
 *   close(): Promise<void> }>}
 */
export async function startOidcProvider(options = {}) {
  const {
    port: wantedPort = 0,
    accessTokenTtl = 5,
    redirectUris = [],
    corsOrigins = [],
    storeFile,
    dpop = false,
    bffClient,
  } = options;
  if (bffClient && !bffClient.secret) {
    throw new Error('startOidcProvider: bffClient.secret is required (the bff client is confidential)');
  }

  let handle = (_req, res) => res.writeHead(503).end();
  const servers = [createServer((req, res) => handle(req, res))];
  const port = await listen(servers[0], wantedPort, '127.0.0.1');
  const ipv6 = createServer((req, res) => handle(req, res));
  // A machine without IPv6 loopback still serves 127.0.0.1.
  if (await listen(ipv6, port, '::1').catch(() => undefined)) servers.push(ipv6);

  const issuer = `http://localhost:${port}`;
  const store = new FileBackedStore(storeFile);
  const keys = store.keys ?? store.setKeys(newKeys());
  const allRedirectUris = [...redirectUris, `${issuer}${HARNESS_CALLBACK}`];
  const allowedOrigins = new Set([...corsOrigins, ...redirectUris.map((uri) => new URL(uri).origin)]);

  const provider = new Provider(issuer, {
    adapter: (name) => new StoreAdapter(name, store),
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: allRedirectUris,
        // A code or refresh grant without a proof is refused: no token of this client is unbound.
        ...(dpop ? { dpop_bound_access_tokens: true } : {}),
      },
      ...(bffClient
        ? [
            {
              client_id: BFF_CLIENT_ID,
              client_secret: bffClient.secret,
              // Registering basic is enough for both: oidc-provider accepts a secret in the
              // Authorization header or in the body for either of the two methods.
              token_endpoint_auth_method: 'client_secret_basic',
              grant_types: ['authorization_code', 'refresh_token'],
              response_types: ['code'],
              redirect_uris: [...(bffClient.redirectUris ?? []), `${issuer}${HARNESS_CALLBACK}`],
              post_logout_redirect_uris: bffClient.postLogoutRedirectUris ?? [],
              ...(dpop ? { dpop_bound_access_tokens: true } : {}),
            },
          ]
        : []),
    ],
    // Every client, the confidential one too (oidc-provider requires PKCE of public clients only).
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access'],
    // issueRefreshToken is the provider's default, as a real deployment's: a refresh token only when
    // the grant holds offline_access, which it keeps only when the authorization request also says
    // prompt=consent (OpenID Connect Core §11). An app that asks for offline_access alone gets no
    // refresh token, and the tests must see that.
    // `true` rotates for every client, the confidential one too: the provider's default would rotate
    // a confidential client's token only after 70% of its lifetime.
    rotateRefreshToken: true,
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      // The rotated token inherits what is left of the first one's day (the provider's own rule for
      // public browser clients), so a sign-in lasts a day however often it refreshes.
      RefreshToken: (ctx) => ctx?.oidc?.entities.RotatedRefreshToken?.remainingTTL ?? 24 * 3600,
      Session: 24 * 3600,
      Grant: 24 * 3600,
    },
    // Access tokens stay opaque (the default): the client learns their lifetime from expires_in only.
    // And they end on time: the default tolerance (15 s) would accept a 5-second token for 20.
    clockTolerance: 0,
    clientBasedCORS: (_ctx, origin) => allowedOrigins.has(origin),
    features: {
      devInteractions: { enabled: true },
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      userinfo: { enabled: true },
      // With a nonceSecret, the provider also lists DPoP-Nonce in Access-Control-Expose-Headers at
      // /token and userinfo (WWW-Authenticate is exposed there anyway), and it allows whatever
      // request headers the preflight asks for, DPoP included. The secret lives as long as the
      // process: a restart makes the nonces in flight stale, which costs one more challenge.
      ...(dpop ? { dPoP: { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => true } } : {}),
    },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    jwks: { keys: [keys.signingKey] },
    cookies: { keys: keys.cookieKeys },
  });

  const counts = newStats();
  let dropNext = false;
  const grantType = (ctx) => ctx?.oidc?.params?.grant_type;
  /** Every token the token endpoint answered, for a test that looks for them where they must not be. */
  const issued = { accessTokens: [], refreshTokens: [], idTokens: [] };
  provider.on('grant.success', (ctx) => {
    // Runs before a dropped answer is cut off: a token that never reached its client was issued all the same.
    const { access_token: access, refresh_token: refresh, id_token: id } = ctx.body ?? {};
    const clientId = ctx.oidc.client?.clientId;
    if (typeof access === 'string') issued.accessTokens.push({ value: access, clientId });
    if (typeof refresh === 'string') issued.refreshTokens.push({ value: refresh, clientId });
    if (typeof id === 'string') issued.idTokens.push({ value: id, clientId });
  });
  provider.on('grant.success', (ctx) => {
    if (grantType(ctx) === 'authorization_code') counts.codeGrants += 1;
    if (grantType(ctx) !== 'refresh_token') return;
    counts.refreshGrants += 1;
    if (dropNext) {
      // The grant is done (the presented token consumed, the new one saved) and its answer not yet
      // written: destroying the connection now is an answer lost on the way back.
      dropNext = false;
      counts.droppedAnswers += 1;
      ctx.req.socket.destroy();
    }
  });
  provider.on('grant.error', (ctx, error) => {
    if (grantType(ctx) !== 'refresh_token') return;
    counts.refreshFailures[error.error] = (counts.refreshFailures[error.error] ?? 0) + 1;
    // The provider's own words when a rotated refresh token comes back (and the grant is revoked).
    if (error.error_detail === 'refresh token already used') counts.reuseDetected += 1;
  });
  provider.on('grant.revoked', () => {
    counts.revoked += 1;
  });

  const providerCallback = provider.callback();
  const hold = createRefreshHold(counts, providerCallback);
  const harness = {
    issuer,
    port,
    provider,
    /** What the provider did since the start (or the last `resetStats()`): see README.md. */
    stats: () => ({ ...structuredClone(counts), heldRefreshes: { ...counts.heldRefreshes, ...hold.waiting() } }),
    resetStats: () => Object.assign(counts, newStats()),
    /** The next refresh grant is processed, but its answer never reaches the client. */
    dropNextRefresh: () => {
      dropNext = true;
    },
    /**
     * The next refresh grant request waits before the provider sees it, until `release()`: a client
     * (a backend-for-frontend instance) caught in the middle of its refresh.
     */
    holdNextRefresh: () => hold.arm(),
    /**
     * Lets the held refresh grant through, once answered, or drops it unprocessed when its client
     * closed the connection meanwhile (an instance killed before its grant reached the provider: the
     * refresh token stays unspent); stops holding either way.
     */
    release: () => hold.release(),
    /** Expires every access token issued so far (their refresh tokens stay valid); returns how many. */
    expireAccessTokens: () => store.expireAccessTokens(),
    /**
     * Every access, refresh and ID token the token endpoint has issued since the start (never reset),
     * oldest first, each with its client; an access token also says whether the provider still
     * accepts it (`live`: not expired, not revoked).
     */
    issuedTokens: () => {
      const now = Math.floor(Date.now() / 1000);
      return {
        accessTokens: issued.accessTokens.map((token) => {
          const stored = store.get(`AccessToken:${token.value}`);
          return { ...token, live: stored !== undefined && stored.exp > now };
        }),
        refreshTokens: issued.refreshTokens.map((token) => ({ ...token })),
        idTokens: issued.idTokens.map((token) => ({ ...token })),
      };
    },
    /**
     * The authorization code flow with PKCE over HTTP, as a user in a browser; the token response.
     * With `{ consent: false }` the request asks for offline_access without prompt=consent, as an app
     * that forgot it does: the answer then has no refresh token.
     */
    signIn: (login = 'ada', { consent = true, client = CLIENT_ID } = {}) => {
      if (client === BFF_CLIENT_ID && !bffClient) throw new Error('signIn: no bff client (start with bffClient)');
      return signIn(issuer, login, consent, client === BFF_CLIENT_ID ? bffClient.secret : undefined);
    },
    close: async () => {
      hold.discard();
      await Promise.all(
        servers.map(
          (server) =>
            new Promise((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };

  handle = (req, res) => {
    const { pathname } = new URL(req.url, issuer);
    if (pathname.startsWith('/__harness/')) {
      answerHarness(harness, req, res, pathname).catch((error) => {
        if (!res.headersSent) sendJson(res, 500, { error: 'harness_error', error_description: String(error) });
      });
      return;
    }
    if (hold.armed() && req.method === 'POST' && pathname === TOKEN_PATH) {
      hold.offer(req, res).catch(() => res.destroy());
      return;
    }
    if (req.method !== 'OPTIONS') {
      res.on('finish', () => {
        // A nonce challenge: 400 at /token, 401 at userinfo, each with the nonce to use.
        if ((res.statusCode === 400 || res.statusCode === 401) && res.getHeader('dpop-nonce')) {
          counts.dpopNonceChallenges += 1;
        }
      });
    }
    if (pathname === '/me' && req.method !== 'OPTIONS') {
      res.on('finish', () => {
        if (res.statusCode === 200) counts.userinfo.ok += 1;
        else if (res.statusCode === 401) counts.userinfo.unauthorized += 1;
      });
    }
    providerCallback(req, res);
  };
  return harness;
}

/**
 * @typedef {object} Stats
 * @property {number} codeGrants authorization codes exchanged (sign-ins)
 * @property {number} refreshGrants refresh grants the provider granted (dropped answers included)
 * @property {Record<string, number>} refreshFailures refused refresh grants by OAuth error code
 * @property {number} reuseDetected rotated refresh tokens presented again (each revoked its grant)
 * @property {number} revoked grants revoked (reuse, or a refresh token revoked at the revocation endpoint)
 * @property {number} droppedAnswers refresh answers destroyed by `drop-next-refresh`
 * @property {{ held: number, released: number, dropped: number, waiting: number, waitingClientGone: number }}
 *   heldRefreshes refresh grant requests held by `hold-next-refresh`, then passed to the provider by
 *   `release` or dropped there (their client had gone); `waiting` are held now, `waitingClientGone`
 *   of them have lost their client already (both live, not reset)
 * @property {{ ok: number, unauthorized: number }} userinfo answers of the protected resource
 * @property {number} dpopNonceChallenges answers asking for a DPoP nonce (`use_dpop_nonce`: 400 at
 *   /token, 401 at userinfo)
 */
function newStats() {
  return {
    codeGrants: 0,
    refreshGrants: 0,
    refreshFailures: {},
    reuseDetected: 0,
    revoked: 0,
    droppedAnswers: 0,
    heldRefreshes: { held: 0, released: 0, dropped: 0 },
    userinfo: { ok: 0, unauthorized: 0 },
    dpopNonceChallenges: 0,
  };
}

/**
 * @typedef {object} IssuedTokens every token value the token endpoint answered (code and refresh grants,
 *   dropped answers included), oldest first, never reset
 * @property {{ value: string, clientId: string, live: boolean }[]} accessTokens `live`: the provider
 *   still accepts it (not expired, not revoked), as of this call
 * @property {{ value: string, clientId: string }[]} refreshTokens
 * @property {{ value: string, clientId: string }[]} idTokens
 */

/** The test hooks: in front of the provider, in this harness only. */
async function answerHarness(harness, req, res, pathname) {
  const route = `${req.method} ${pathname}`;
  switch (route) {
    case 'GET /__harness/stats':
      return sendJson(res, 200, harness.stats());
    case 'POST /__harness/reset-stats':
      harness.resetStats();
      return sendJson(res, 200, harness.stats());
    case 'POST /__harness/drop-next-refresh':
      harness.dropNextRefresh();
      return sendJson(res, 200, { dropNextRefresh: true });
    case 'POST /__harness/hold-next-refresh':
      harness.holdNextRefresh();
      return sendJson(res, 200, { holdNextRefresh: true });
    case 'POST /__harness/release':
      return sendJson(res, 200, await harness.release());
    case 'POST /__harness/expire-access-tokens':
      return sendJson(res, 200, { expired: harness.expireAccessTokens() });
    case 'GET /__harness/issued-tokens':
      return sendJson(res, 200, harness.issuedTokens());
    case 'POST /__harness/sign-in': {
      const body = await readJson(req);
      const login = typeof body.login === 'string' ? body.login : undefined;
      const client = body.client === BFF_CLIENT_ID ? BFF_CLIENT_ID : CLIENT_ID;
      return sendJson(res, 200, await harness.signIn(login, { consent: body.consent !== false, client }));
    }
    default:
      return sendJson(res, 404, { error: 'not_found', error_description: `no harness route ${route}` });
  }
}

/**
 * Signs `login` in as a browser would, over HTTP against the provider itself (`browseSignIn`): the
 * authorization request with a PKCE challenge, the devInteractions login form (any login and
 * password) and consent form, then the code exchanged at the token endpoint with the verifier, and
 * with `secret` (HTTP Basic) for the confidential client. Each call is a new browser: a new provider
 * session and a new grant. `consent`: whether the request says prompt=consent, without which the
 * provider drops offline_access and issues no refresh token.
 */
async function signIn(issuer, login, consent, secret) {
  const clientId = secret === undefined ? CLIENT_ID : BFF_CLIENT_ID;
  const redirectUri = `${issuer}${HARNESS_CALLBACK}`;
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const authorize = new URL('/auth', issuer);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'openid offline_access',
    // offline_access stays in the grant only with a consent prompt (OpenID Connect Core §11).
    ...(consent ? { prompt: 'consent' } : {}),
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();

  const walk = await browseSignIn(authorize, {
    login,
    stopAt: (next) => `${next.origin}${next.pathname}` === redirectUri,
  });
  if (!walk.stopped) {
    throw new Error(`sign-in: unexpected ${walk.status} at ${walk.url}: ${walk.body.slice(0, 300)}`);
  }
  const answer = walk.url.searchParams;
  if (answer.get('state') !== state) throw new Error('sign-in: the state came back changed');
  if (answer.get('error')) throw new Error(`sign-in: ${answer.get('error')} ${answer.get('error_description') ?? ''}`);
  const code = answer.get('code');
  if (!code) throw new Error('sign-in: the redirect carries no authorization code');

  const token = await fetch(new URL(TOKEN_PATH, issuer), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(secret === undefined ? {} : { authorization: basicAuthorization(clientId, secret) }),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      ...(secret === undefined ? { client_id: clientId } : {}),
    }),
  });
  const body = await token.json();
  if (!token.ok) throw new Error(`sign-in: the code exchange answered ${token.status} ${JSON.stringify(body)}`);
  return body;
}

/** `client_secret_basic` (RFC 6749 §2.3.1: each part form-encoded before Base64). */
function basicAuthorization(clientId, secret) {
  const encode = (part) => new URLSearchParams({ part }).toString().slice('part='.length);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

/**
 * `hold-next-refresh` and `release`. A held request is read whole (to see its grant type) before the
 * provider sees it, so the provider gets a copy of it to read again; its response stays the real one.
 */
function createRefreshHold(counts, pass) {
  let armed = false;
  /** @type {{ request: IncomingMessage, res: import('node:http').ServerResponse, clientGone: boolean }[]} */
  let held = [];
  return {
    armed: () => armed,
    arm: () => {
      armed = true;
    },
    /** A token request while armed: held when it is a refresh grant, else passed on at once. */
    async offer(req, res) {
      const body = await readBody(req);
      const request = replayRequest(req, body);
      if (!armed || new URLSearchParams(body.toString('latin1')).get('grant_type') !== 'refresh_token') {
        pass(request, res);
        return;
      }
      armed = false;
      const entry = { request, res, clientGone: false };
      // Before its answer, a response closes only with its connection: the client has gone.
      res.once('close', () => {
        entry.clientGone = true;
      });
      held.push(entry);
      counts.heldRefreshes.held += 1;
    },
    waiting: () => ({ waiting: held.length, waitingClientGone: held.filter((entry) => entry.clientGone).length }),
    async release() {
      armed = false;
      const released = held;
      held = [];
      const result = { released: 0, dropped: 0 };
      await Promise.all(
        released.map(async (entry) => {
          if (entry.clientGone || entry.request.socket.destroyed) {
            // Nobody would read the answer, and processing it would spend the refresh token that
            // the client's other instances still hold.
            result.dropped += 1;
            counts.heldRefreshes.dropped += 1;
            entry.res.destroy();
            return;
          }
          result.released += 1;
          counts.heldRefreshes.released += 1;
          const answered = new Promise((resolve) => entry.res.once('close', resolve));
          pass(entry.request, entry.res);
          await answered;
        }),
      );
      return result;
    },
    /** At close: whatever is held is dropped unprocessed. */
    discard() {
      armed = false;
      for (const entry of held) entry.res.destroy();
      held = [];
    },
  };
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A request the provider can read: `req` again (its socket, method, URL and headers), with `body`. */
function replayRequest(req, body) {
  const request = new IncomingMessage(req.socket);
  request.method = req.method;
  request.url = req.url;
  request.headers = req.headers;
  request.rawHeaders = req.rawHeaders;
  request.httpVersion = req.httpVersion;
  request.httpVersionMajor = req.httpVersionMajor;
  request.httpVersionMinor = req.httpVersionMinor;
  // Complete, so that destroying the copy (after an error) never destroys the shared socket.
  request.complete = true;
  request.push(body);
  request.push(null);
  return request;
}

/**
 * Everything the provider stores, by key, with an expiry; optionally mirrored to a JSON file
 * (written whole on every change, through a rename so a kill never leaves half a file).
 */
class FileBackedStore {
  /** @type {Map<string, { value: any, expiresAt: number | null }>} */
  #entries = new Map();
  #file;
  keys;

  constructor(file) {
    this.#file = file;
    if (file && existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      this.keys = saved.keys;
      this.#entries = new Map(saved.entries);
    }
  }

  setKeys(keys) {
    this.keys = keys;
    this.#save();
    return keys;
  }

  get(key) {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt !== null && entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key, value, expiresInSeconds) {
    const expiresAt = typeof expiresInSeconds === 'number' ? Date.now() + expiresInSeconds * 1000 : null;
    this.#entries.set(key, { value, expiresAt });
    this.#save();
  }

  /** Keeps the entry's expiry; for a change to a stored value (a consumed token). */
  touch(key) {
    if (this.#entries.has(key)) this.#save();
  }

  delete(key) {
    if (this.#entries.delete(key)) this.#save();
  }

  expireAccessTokens() {
    const past = Math.floor(Date.now() / 1000) - 1;
    let count = 0;
    for (const [key, entry] of this.#entries) {
      if (key.startsWith('AccessToken:') && entry.value.exp > past) {
        entry.value.exp = past;
        count += 1;
      }
    }
    this.#save();
    return count;
  }

  #save() {
    if (!this.#file) return;
    const now = Date.now();
    const entries = [...this.#entries].filter(([, entry]) => entry.expiresAt === null || entry.expiresAt > now);
    writeFileSync(`${this.#file}.tmp`, JSON.stringify({ keys: this.keys, entries }));
    renameSync(`${this.#file}.tmp`, this.#file);
  }
}

/** oidc-provider's adapter interface (one instance per model name) over the store. */
class StoreAdapter {
  #model;
  #store;

  constructor(model, store) {
    this.#model = model;
    this.#store = store;
  }

  #key(id) {
    return `${this.#model}:${id}`;
  }

  async upsert(id, payload, expiresIn) {
    const key = this.#key(id);
    if (payload.grantId) {
      const members = new Set(this.#store.get(`grant:${payload.grantId}`) ?? []);
      members.add(key);
      this.#store.set(`grant:${payload.grantId}`, [...members]);
    }
    if (this.#model === 'Session') this.#store.set(`sessionUid:${payload.uid}`, id, expiresIn);
    if (payload.userCode) this.#store.set(`userCode:${payload.userCode}`, id, expiresIn);
    this.#store.set(key, payload, expiresIn);
  }

  async find(id) {
    return this.#store.get(this.#key(id));
  }

  async findByUid(uid) {
    const id = this.#store.get(`sessionUid:${uid}`);
    return id === undefined ? undefined : this.find(id);
  }

  async findByUserCode(userCode) {
    const id = this.#store.get(`userCode:${userCode}`);
    return id === undefined ? undefined : this.find(id);
  }

  async consume(id) {
    const payload = this.#store.get(this.#key(id));
    if (!payload) return;
    payload.consumed = Math.floor(Date.now() / 1000);
    this.#store.touch(this.#key(id));
  }

  async destroy(id) {
    this.#store.delete(this.#key(id));
  }

  async revokeByGrantId(grantId) {
    for (const key of this.#store.get(`grant:${grantId}`) ?? []) this.#store.delete(key);
    this.#store.delete(`grant:${grantId}`);
  }
}

/** A signing key for ID tokens (RS256, what clients expect by default) and cookie-signing keys. */
function newKeys() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    signingKey: {
      ...privateKey.export({ format: 'jwk' }),
      kid: randomBytes(8).toString('hex'),
      use: 'sig',
      alg: 'RS256',
    },
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
}

function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address().port);
    });
  });
}

function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

async function readJson(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text.trim() === '' ? {} : JSON.parse(text);
}

function list(value) {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // oidc-provider prints its notices on stdout; the ready line must be the only thing there.
  console.info = (...args) => console.error(...args);
  const harness = await startOidcProvider({
    port: Number(process.env.PORT ?? 4444),
    accessTokenTtl: Number(process.env.ACCESS_TOKEN_TTL ?? 5),
    redirectUris: list(process.env.REDIRECT_URIS),
    corsOrigins: list(process.env.CORS_ORIGINS),
    storeFile: process.env.STORE_FILE || undefined,
    dpop: process.env.DPOP === '1',
    bffClient: process.env.BFF_CLIENT_SECRET
      ? {
          secret: process.env.BFF_CLIENT_SECRET,
          redirectUris: list(process.env.BFF_REDIRECT_URIS),
          postLogoutRedirectUris: list(process.env.BFF_POST_LOGOUT_REDIRECT_URIS),
        }
      : undefined,
  });
  const stop = () => harness.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  console.log(`oidc-provider ready ${harness.issuer}`);
}
