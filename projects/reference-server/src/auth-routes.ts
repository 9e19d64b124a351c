import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { readBearerToken } from '#contract';

import type { AccessTokens } from './access-tokens.js';
import { ANY_OPERATION_ERRORS, errorResponses } from './api-schemas.js';
import { tokenRequestProofError } from './dpop-errors.js';
import type { DpopProofs } from './dpop-proofs.js';
import { HttpError } from './http-error.js';
import type { PasswordCheckLane, PasswordChecks } from './password-checks.js';
import { verifyPassword } from './password-hash.js';
import type { ServerConfig } from './read-config.js';
import { checkRequestOrigin } from './check-request-origin.js';
import { clientAddressKey } from './client-address-key.js';
import {
  type LoginDevices,
  type TrustedDevice,
  accountAttemptKey,
  readLoginDeviceCookies,
  setLoginDeviceCookie,
} from './login-devices.js';
import { createProveDpopKey } from './prove-dpop-key.js';
import { readAuthorization } from './read-authorization.js';
import { clearRefreshCookie, readRefreshCookies, setRefreshCookie } from './refresh-cookie.js';
import { createRefreshFamilyKeys } from './refresh-family-keys.js';
import { type RefreshTokens, createFamilyId } from './refresh-tokens.js';
import { type Account, type LoginDelayPolicy, type Repository, provesKey } from './repository.js';

/** What the auth routes need. */
export interface AuthRoutesOptions {
  readonly config: ServerConfig;
  readonly repository: Repository;
  readonly accessTokens: AccessTokens;
  readonly refreshTokens: RefreshTokens;
  /** The trusted devices' tokens (device cookies). */
  readonly loginDevices: LoginDevices;
  /** The clock, in milliseconds. */
  readonly now: () => number;
  /** A hash of a random password, verified against when the account is unknown (equal timing). */
  readonly dummyPasswordHash: string;
  /** The instance's cap on password checks at once, trusted devices first. */
  readonly passwordChecks: PasswordChecks;
  /** DPoP's mode and proofs when DPOP is `allowed` or `required`; `null` (DPOP=off): nothing of DPoP. */
  readonly dpop: { readonly mode: 'allowed' | 'required'; readonly proofs: DpopProofs } | null;
}

const LOGIN_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', maxLength: 200 },
    password: { type: 'string', maxLength: 1024 },
  },
} as const;

/** Refresh and logout take no body (the cookie flow) or `{ refreshToken }` (the body flow). */
const TOKEN_BODY_SCHEMA = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { refreshToken: { type: 'string', maxLength: 512 } },
} as const;

/** The refusal of a request from another origin's page (see check-request-origin.ts). */
const FORBIDDEN_ORIGIN_RESPONSE = {
  403: {
    description:
      'The request came from a page of an origin this server does not trust (`Origin` neither its own nor ' +
      'in CORS_ORIGINS, or `Sec-Fetch-Site: cross-site`): `ForbiddenOrigin`; no token or cookie was touched.',
    content: { 'application/json': { schema: { $ref: 'ErrorBody#' } } },
  },
} as const;

const ACCESS_TOKEN_RESPONSE = {
  content: { 'application/json': { schema: { $ref: 'AccessToken#' } } },
} as const;

const LOGIN_SCHEMA = {
  tags: ['auth'],
  operationId: 'login',
  summary: 'Sign in',
  description:
    'A new session: the access token in the body, the refresh token in the HttpOnly cookie ' +
    '`__Secure-refreshToken` (`refreshToken` when COOKIE_SECURE=false) ' +
    '(and in the body too when REFRESH_TOKEN_IN_BODY=true), and the HttpOnly device cookie ' +
    '`__Secure-loginDevice` (`loginDevice`), which makes this browser a trusted device of the account. ' +
    'Rate-limited per client address (per device for a trusted device of the account named) and, with growing ' +
    'delays, per account (per trusted device for one): an attempt inside the delay is answered 429 ' +
    'without checking the password. Password checks run a few at a time per instance (PASSWORD_CHECK_CONCURRENCY), ' +
    'a trusted device of the account first; when PASSWORD_CHECK_QUEUE sign-ins already wait, 503 at once.',
  security: [],
  body: LOGIN_BODY_SCHEMA,
  response: {
    200: { description: 'Signed in; `Set-Cookie: __Secure-refreshToken=...`.', ...ACCESS_TOKEN_RESPONSE },
    ...errorResponses(400, 401, 413, 415, ...ANY_OPERATION_ERRORS),
    503: {
      description:
        'Too many sign-ins wait for a password check (`ServiceUnavailable`, `Retry-After: 1`; no attempt counted), ' +
        'or the database did not answer in time (`Retry-After`); try again.',
      content: { 'application/json': { schema: { $ref: 'ErrorBody#' } } },
    },
  },
} as const;

const REFRESH_SCHEMA = {
  tags: ['auth'],
  operationId: 'refresh',
  summary: 'Trade the refresh token for a new access token',
  description:
    'The refresh token comes in the cookie, or in the body as `{ refreshToken }`; the live one goes back ' +
    'the same way: a new one (rotation), or, within the reuse interval after a rotation, the live one ' +
    'again (so tabs refreshing at once all carry on). 401 `InvalidRefreshToken` when it is unknown, ' +
    'expired, revoked or reused; 403 `ForbiddenOrigin` when a page of another origin sent it.',
  security: [{ refreshCookie: [] }, {}],
  body: { ...TOKEN_BODY_SCHEMA, description: 'Only in the body flow; no body in the cookie flow.' },
  response: {
    200: { description: 'A new access token; in the cookie flow also `Set-Cookie`.', ...ACCESS_TOKEN_RESPONSE },
    ...errorResponses(400, 401, 413, 415, ...ANY_OPERATION_ERRORS),
    ...FORBIDDEN_ORIGIN_RESPONSE,
  },
} as const;

const LOGOUT_SCHEMA = {
  tags: ['auth'],
  operationId: 'logout',
  summary: 'Sign out',
  description:
    'Ends the session named by the access token (even expired), a `{ refreshToken }` body or the cookie, ' +
    'and clears the cookie. 204 whatever happens, but 403 `ForbiddenOrigin` (nothing ended) when a page ' +
    'of another origin sent it, and, with DPoP on, 401 `InvalidRefreshToken` (nothing ended, the cookie ' +
    'kept) when a refresh token names a session bound to a DPoP key without a proof of that key.',
  security: [{ bearerAuth: [] }, { refreshCookie: [] }, {}],
  body: TOKEN_BODY_SCHEMA,
  response: {
    204: { description: 'Signed out (or there was nothing to end).', type: 'null' },
    ...errorResponses(400, 401, 413, 415, ...ANY_OPERATION_ERRORS),
    ...FORBIDDEN_ORIGIN_RESPONSE,
  },
} as const;

/** One answer for unknown, expired and revoked tokens: which one it was is nobody's business. */
const UNUSABLE = 'The refresh token is unknown, expired or revoked; please sign in again.';

/** A sign-in refused because too many wait for a password check may try again this soon. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** The answer to a sign-in when too many already wait for a password check: nothing was counted. */
function busy(): HttpError {
  return new HttpError(503, 'ServiceUnavailable', 'Too many sign-ins at once; please try again in a moment.', {
    headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
  });
}

/** Housekeeping (ended sessions, rate-limit windows, forgotten attempts) runs at most this often, piggybacking on logins and refreshes. */
const CLEANUP_INTERVAL_MS = 60_000;

/**
 * `POST /auth/login`, `POST /auth/refresh` and `POST /auth/logout`, as the contract says:
 *
 * - login: `{ username, password }` → 200 `{ accessToken }` and the refresh cookie (a new token
 *   family). Wrong password and unknown user give the same 401 `InvalidCredentials` after the same
 *   scrypt work.
 * - refresh: the cookie, or `{ refreshToken }` in the body → 200 `{ accessToken }` and the token
 *   rotated. The rotated token goes back the way the old one came: a cookie for a cookie,
 *   `refreshToken` in the body for a body. Within `refreshTokenReuseIntervalSeconds` of a rotation,
 *   the live token and its immediate predecessor both get the live token again, unrotated (several
 *   tabs, a lost answer), so there is at most one rotation per window; an older token, or the
 *   predecessor after that window, revokes the whole family (reuse detection); expired, unknown,
 *   forged or revoked → 401 `InvalidRefreshToken`.
 * - logout: revokes the family, found from the access token's `sid` (`Authorization: Bearer`, even
 *   expired), a `{ refreshToken }` body, or the cookie; clears the cookie; 204 whatever happens (but
 *   see DPoP below).
 *
 * Refresh and logout, which the cookie authorizes, refuse a request from a page of another origin
 * (403 `ForbiddenOrigin`, before anything is touched; see check-request-origin.ts). Several refresh
 * cookies in one request (cookie tossing from a sibling subdomain) are sorted out by
 * {@link pickRefreshCookie}.
 *
 * With DPoP on (see dpop-proofs.ts), login and refresh check the request's DPoP proof first, before
 * the rate limits and before anything of the session (400 `invalid_dpop_proof` or `use_dpop_nonce`
 * with `DPoP-Nonce`; see prove-dpop-key.ts): a login with a proof binds its family to the proof's key,
 * and a refresh of a bound family must prove that key (401 `InvalidRefreshToken` otherwise, nothing
 * rotated, revoked or cleared); the access tokens they issue are bound to the proven key. Logout takes
 * `Authorization: DPoP` with a proof to name the session; a bound token sent as Bearer names none. A
 * refresh token (cookie or body) names a bound session only with a proof of its key, as a refresh
 * must bring (without `ath` when no DPoP token comes with it): otherwise 401 `InvalidRefreshToken`,
 * nothing ended, the cookie kept.
 *
 * Each is rate-limited (429 `TooManyRequests` with `Retry-After`), with its own limit from the
 * configuration, counted in the database so that every instance sees the same counts: login per
 * client address (a trusted device of the account named per device instead) and per account with
 * growing delays (see {@link LoginDevices}); refresh per session for a token this server made (with
 * DPoP on, only when the refresh proved the session's key), else per address; logout per address.
 * IPv6 addresses count by their /64.
 */
export async function registerAuthRoutes(app: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
  const {
    config,
    repository,
    accessTokens,
    refreshTokens,
    loginDevices,
    now,
    dummyPasswordHash,
    passwordChecks,
    dpop,
  } = options;
  const cookie = { secure: config.cookieSecure, path: config.refreshCookiePath };
  const sameOriginOnly = checkRequestOrigin(config.corsOrigins);
  const loginDelays: LoginDelayPolicy = {
    freeAttempts: config.loginAccountFreeAttempts,
    maxDelaySeconds: config.loginAccountMaxDelaySeconds,
    forgetAfterSeconds: config.loginAccountForgetSeconds,
  };
  let lastCleanup = 0;
  /** At most once a minute, from login and refresh: ended sessions, windows and forgotten attempts. */
  const cleanUpNowAndThen = async (nowMs: number): Promise<void> => {
    if (nowMs - lastCleanup <= CLEANUP_INTERVAL_MS) return;
    lastCleanup = nowMs;
    await repository.deleteExpiredRefreshFamilies(new Date(nowMs));
    await repository.deleteExpiredLimits(new Date(nowMs), new Date(nowMs - loginDelays.forgetAfterSeconds * 1000));
    if (dpop) await repository.deleteExpiredDpopProofs(new Date(nowMs));
  };
  // With DPoP on: the key each login or refresh proved (`null`: none), from the hook that checked its
  // proof before anything else of the route ran.
  const provenKeys = new WeakMap<FastifyRequest, string | null>();
  const proveKey = dpop ? createProveDpopKey(dpop) : null;
  // A logout's proof is optional (its access token may name the session), and asked for only when a
  // refresh token names a bound session: then its absence is that refusal's 401, not DPOP=required's 400.
  const proveLogoutKey = dpop ? createProveDpopKey({ mode: 'allowed', proofs: dpop.proofs }) : null;
  const familyKeys = createRefreshFamilyKeys(repository);
  const checkProof = proveKey
    ? async (request: FastifyRequest, reply: FastifyReply) => {
        provenKeys.set(request, await proveKey(request, reply));
      }
    : null;
  /** A device cookie of the request issued for the account the login names, or `null`. */
  const trustedDevice = (request: FastifyRequest): TrustedDevice | null => {
    const { username } = request.body as { username: string };
    return loginDevices.trusted(readLoginDeviceCookies(request, cookie), username);
  };

  /**
   * The account `username` names when `password` is its password, else `null`, after the same scrypt
   * work either way; 429 inside the account's (or trusted device's) delay, with nothing checked.
   */
  const checkCredentials = async (username: string, password: string, attemptKey: string, nowMs: number) => {
    await cleanUpNowAndThen(nowMs);
    // Taken before the password is checked: an attempt inside the delay gets no answer about the
    // password at all, and concurrent attempts cannot share one free slot.
    const reservation = await repository.reserveLoginAttempt(attemptKey, new Date(nowMs), loginDelays);
    if (!reservation.allowed) {
      const seconds = Math.max(1, Math.ceil((reservation.retryAt.getTime() - nowMs) / 1000));
      throw new HttpError(
        429,
        'TooManyRequests',
        `Too many failed sign-ins for this account; try again in ${seconds} s.`,
        {
          headers: { 'Retry-After': String(seconds) },
        },
      );
    }
    // A name PostgreSQL could not even compare (NUL, lone surrogates) belongs to no account, but
    // still costs the same scrypt work as any other attempt.
    const account = isStorableText(username) ? await repository.findAccount(username) : null;
    const matches = await verifyPassword(password, account?.passwordHash ?? dummyPasswordHash);
    return account && matches ? account : null;
  };

  /** Which queue a sign-in waits in for its password check; before validation, so any body. */
  const laneOf = (request: FastifyRequest): PasswordCheckLane => {
    const username = (request.body as { username?: unknown } | null)?.username;
    const device =
      typeof username === 'string' ? loginDevices.trusted(readLoginDeviceCookies(request, cookie), username) : null;
    return device ? 'trusted' : 'other';
  };

  app.post(
    '/auth/login',
    {
      schema: LOGIN_SCHEMA,
      // Before the body is read and before the rate limit: a nonce challenge costs no attempt.
      ...(checkProof ? { onRequest: checkProof } : {}),
      // Before the rate limit's count in the database: under a flood beyond the queue, each refusal
      // costs as little as possible, which leaves the cores to the password checks.
      preValidation: async (request) => {
        if (passwordChecks.full(laneOf(request))) throw busy();
      },
      config: {
        rateLimit: {
          max: config.loginRateLimitMax,
          timeWindow: config.loginRateLimitWindowSeconds * 1000,
          // After the body is read: a trusted device of the account named counts in a window of its
          // own instead of its address's (so a shared office's or mobile carrier's address, used up
          // by someone else, does not lock out the people who signed in there before), and still
          // at most `max` a window, successes included (each costs scrypt work and a session).
          hook: 'preHandler',
          keyGenerator: (request) => trustedDevice(request)?.attemptKey ?? clientAddressKey(request.ip),
        },
      },
    },
    async (request, reply) => {
      const { username, password } = request.body as { username: string; password: string };
      const device = trustedDevice(request);
      // Before anything is counted or looked up: a sign-in refused because too many wait for a
      // password check costs the account no attempt, and the person can simply try again.
      const slot = passwordChecks.acquire(device ? 'trusted' : 'other');
      if (slot === undefined) throw busy();
      const release = await slot;
      const nowMs = now();
      const attemptKey = device?.attemptKey ?? accountAttemptKey(username);
      let account: Account | null;
      try {
        account = await checkCredentials(username, password, attemptKey, nowMs);
      } finally {
        release();
      }
      if (!account) throw new HttpError(401, 'InvalidCredentials', 'The username or the password is wrong.');
      await repository.clearLoginAttempts(attemptKey);
      const familyId = createFamilyId();
      // The key of the login's proof, if any: the session is bound to it for good.
      const jkt = provenKeys.get(request) ?? null;
      await repository.createRefreshFamily({
        familyId,
        username: account.username,
        now: new Date(nowMs),
        expiresAt: new Date(nowMs + config.refreshTokenTtlSeconds * 1000),
        jkt,
      });
      familyKeys.remember(familyId, jkt);
      const refreshToken = refreshTokens.derive({ familyId, generation: 0 });
      const accessToken = accessTokens.issue({ username: account.username, role: account.role, familyId, jkt });
      setRefreshCookie(reply, refreshToken, { ...cookie, maxAgeSeconds: config.refreshTokenTtlSeconds });
      // A trusted device keeps its id (its delays stay its own); any other client becomes one.
      setLoginDeviceCookie(reply, device?.token ?? loginDevices.issue(account.username), cookie);
      return config.refreshTokenInBody ? { accessToken, refreshToken } : { accessToken };
    },
  );

  app.post(
    '/auth/refresh',
    {
      schema: REFRESH_SCHEMA,
      // The Origin check first, then the proof: both before the token is even read.
      onRequest: checkProof ? [sameOriginOnly, checkProof] : sameOriginOnly,
      config: {
        rateLimit: {
          max: config.refreshRateLimitMax,
          timeWindow: config.refreshRateLimitWindowSeconds * 1000,
          // After the body is read: a token this server made (live or not) counts for its session,
          // so neither another client behind the same address nor a storm of forged tokens can use
          // up a session's refreshes; anything else counts for the address. With DPoP on, only a
          // refresh that proved the session's key (or any, for a session bound to none) counts for
          // the session: a copy of the token with another key, or none, counts for its sender's
          // address like a forged token, so it cannot use up the owner's refreshes, and a sender
          // making a new key for every attempt still has only the address's `max` a window.
          hook: 'preHandler',
          keyGenerator: async (request) => {
            const tokens = [readBodyToken(request), ...readRefreshCookies(request, cookie)];
            const genuine = tokens.map((token) => refreshTokens.parse(token)).find((reference) => reference !== null);
            if (!genuine) return clientAddressKey(request.ip);
            if (!dpop) return `session:${genuine.familyId}`;
            const bound = await familyKeys.find(genuine.familyId);
            const key = { jkt: provenKeys.get(request) ?? null, requireBound: dpop.mode === 'required' };
            return bound !== undefined && provesKey(bound, key)
              ? `session:${genuine.familyId}`
              : clientAddressKey(request.ip);
          },
        },
      },
    },
    async (request, reply) => {
      const fromBody = readBodyToken(request);
      const cookies = fromBody === undefined ? readRefreshCookies(request, cookie) : [];
      const presented = fromBody ?? pickRefreshCookie(cookies, refreshTokens);
      // A definite "no" also tells the browser to drop a cookie that can never work again; a failure
      // of the server (a 500) leaves it alone, so the session survives a database hiccup. Only when the
      // request carried exactly one such cookie: with several, the refused one may be another host's,
      // and the clearing (host-only) would hit the server's own, which it did not read.
      const refuse = (message: string) => {
        if (fromBody === undefined && cookies.length === 1) clearRefreshCookie(reply, cookie);
        return new HttpError(401, 'InvalidRefreshToken', message);
      };
      if (presented === null) {
        throw refuse('Several refresh cookies came, of different sessions or none genuine; please sign in again.');
      }
      if (presented === undefined || presented === '') throw refuse('There is no refresh token; please sign in.');
      // Malformed, tampered with, or made with another key: refused without a database round trip.
      const reference = refreshTokens.parse(presented);
      if (reference === null) throw refuse(UNUSABLE);
      const nowMs = now();
      // Refreshes count in rate-limit windows too, and may come for days without a login.
      await cleanUpNowAndThen(nowMs);
      const key = dpop ? { jkt: provenKeys.get(request) ?? null, requireBound: dpop.mode === 'required' } : null;
      const result = await repository.rotateRefreshToken({
        ...reference,
        now: new Date(nowMs),
        reuseIntervalSeconds: config.refreshTokenReuseIntervalSeconds,
        key,
      });
      if (result.outcome === 'keyMismatch') {
        // Whoever sent it has the token but not the key (or a session from before DPoP was required):
        // refused, and nothing else. The cookie stays, since it is the session of whoever holds the key
        // (a render forwarding the cookie without a proof, say), which this request must not end.
        request.log.warn({ familyId: result.familyId }, 'refresh without the DPoP key of its session: refused');
        throw new HttpError(
          401,
          'InvalidRefreshToken',
          key?.jkt === null
            ? 'This session is bound to a DPoP key: refresh with a DPoP proof made with it, or sign in again.'
            : 'This session is bound to another DPoP key than the proof’s (or to none); please sign in again.',
        );
      }
      if (result.outcome === 'reused') {
        request.log.warn({ familyId: result.familyId }, 'refresh token reused: token family revoked');
        throw refuse('The refresh token was already used, so the session has been ended; please sign in again.');
      }
      if (result.outcome === 'invalid') throw refuse(UNUSABLE);
      if (result.outcome === 'reissued') {
        // Expected now and then (two tabs, a lost answer), but worth seeing when it piles up.
        request.log.info(
          { familyId: result.familyId, generation: result.generation, presentedGeneration: reference.generation },
          reference.generation === result.generation
            ? 'live refresh token presented again within the reuse interval of its rotation: reissued, not rotated'
            : 'refresh token presented again within the reuse interval: live token reissued',
        );
      }
      const { username, role, familyId, generation, expiresAt } = result;
      // Bound to the key the refresh proved: the session's, or, for a session bound to none
      // (DPOP=allowed), the key of this proof alone.
      const accessToken = accessTokens.issue({ username, role, familyId, jkt: key?.jkt ?? null });
      // A reissue answers the very value of the live token, so the browser's cookie jar ends up with the
      // live token whichever of several answers arrives last. Its Max-Age is, as after a rotation, what
      // is left of the session: the family's end never moves.
      const next = refreshTokens.derive({ familyId, generation });
      if (fromBody !== undefined) return { accessToken, refreshToken: next };
      setRefreshCookie(reply, next, { ...cookie, maxAgeSeconds: Math.floor((expiresAt.getTime() - nowMs) / 1000) });
      return { accessToken };
    },
  );

  app.post(
    '/auth/logout',
    {
      schema: LOGOUT_SCHEMA,
      onRequest: sameOriginOnly,
      config: {
        rateLimit: { max: config.logoutRateLimitMax, timeWindow: config.logoutRateLimitWindowSeconds * 1000 },
      },
    },
    async (request, reply) => {
      const families = new Set<string>();
      // With DPoP on: the key the request's proof proved, once checked (`null`: it came with none).
      let proven: { jkt: string | null } | null = null;
      if (dpop) {
        const named = await nameDpopLogout(request, reply, accessTokens, dpop.proofs);
        if (named.familyId !== null) families.add(named.familyId);
        if (named.jkt !== null) proven = { jkt: named.jkt };
      } else {
        const bearer = readBearerToken(request.headers.authorization);
        if (bearer) {
          // An expired access token still names the session it belonged to; only a genuine one counts.
          const check = accessTokens.verify(bearer, { allowExpired: true });
          if (check.ok) families.add(check.claims.sid);
        }
      }
      for (const token of [readBodyToken(request), ...readRefreshCookies(request, cookie)]) {
        // Any genuine token of the family names it, rotated ones too; a forged one names nothing.
        const reference = refreshTokens.parse(token);
        if (reference === null || families.has(reference.familyId)) continue;
        // A session bound to a DPoP key is ended by a refresh token only with a proof of that key: a
        // copy of the token alone (stolen from the cookie jar, say) must not end its owner's session.
        // Checked for every family before any is ended, so a refusal touches nothing; a family's key
        // never changes, so nothing can come between this check and the revocation below.
        const bound = dpop ? await familyKeys.find(reference.familyId) : null;
        if (dpop && bound !== null && bound !== undefined) {
          proven ??= { jkt: proveLogoutKey ? await proveLogoutKey(request, reply) : null };
          if (proven.jkt !== bound) {
            request.log.warn({ familyId: reference.familyId }, 'logout without the DPoP key of its session: refused');
            throw new HttpError(
              401,
              'InvalidRefreshToken',
              proven.jkt === null
                ? 'This session is bound to a DPoP key: sign out with a DPoP proof made with it; nothing was ended.'
                : 'This session is bound to another DPoP key than the proof’s; nothing was ended.',
            );
          }
        }
        families.add(reference.familyId);
      }
      for (const familyId of families) await repository.revokeRefreshFamily(familyId, new Date(now()));
      clearRefreshCookie(reply, cookie);
      return sendNoContent(reply);
    },
  );
}

/**
 * What a logout's credentials say with DPoP on. `familyId`: the session its access token names: a
 * Bearer token not bound to a key (even expired, as without DPoP), or a DPoP token with a valid proof
 * of its key (`ath` included; even expired); `null` for anything else, a bound token without its proof
 * among them (whoever sends it may have stolen it, and must not end the session). `jkt`: the key of
 * the proof that came with a DPoP token, checked and recorded (`null`: no such proof was checked).
 * A DPoP token whose proof fails is refused with the token requests' 400 (`use_dpop_nonce`,
 * `invalid_dpop_proof`), before anything is ended or cleared, so the client can sign out again with a
 * good proof.
 */
async function nameDpopLogout(
  request: FastifyRequest,
  reply: FastifyReply,
  accessTokens: AccessTokens,
  proofs: DpopProofs,
): Promise<{ readonly familyId: string | null; readonly jkt: string | null }> {
  const none = { familyId: null, jkt: null };
  const credentials = readAuthorization(request.headers.authorization);
  if (credentials === null || credentials.scheme === null) return none;
  const token = accessTokens.verify(credentials.token, { allowExpired: true });
  if (credentials.scheme === 'Bearer') {
    return { familyId: token.ok && token.claims.jkt === null ? token.claims.sid : null, jkt: null };
  }
  if (request.headers['dpop'] === undefined) return none;
  const check = proofs.check(request, credentials.token);
  if (!check.ok) throw tokenRequestProofError(check.problem, check.reason, proofs.nonce());
  proofs.sendNonce(reply, check.proof);
  if (!(await proofs.record(check.proof))) {
    throw tokenRequestProofError(
      'invalid_dpop_proof',
      'it was used before (each request needs a new proof)',
      proofs.nonce(),
    );
  }
  const familyId = token.ok && token.claims.jkt === check.proof.jkt ? token.claims.sid : null;
  return { familyId, jkt: check.proof.jkt };
}

/**
 * Which of the request's refresh cookies to use. One: that one. Several (a cookie of the same name
 * placed ahead of the server's own, e.g. by a sibling subdomain for the parent domain): only those
 * this server signed count, so a planted junk value never hides the genuine one. Genuine ones of
 * more than one session cannot be told apart (one may be the planter's own session, which must not
 * replace the victim's), so the request is refused, without touching either; genuine copies of one
 * session: the newest generation. `null`: refuse.
 */
function pickRefreshCookie(cookies: readonly string[], refreshTokens: RefreshTokens): string | undefined | null {
  if (cookies.length <= 1) return cookies[0];
  const genuine = cookies
    .map((value) => ({ value, reference: refreshTokens.parse(value) }))
    .filter((entry) => entry.reference !== null);
  const families = new Set(genuine.map((entry) => entry.reference?.familyId));
  if (genuine.length === 0 || families.size > 1) return null;
  return genuine.reduce((best, entry) =>
    (entry.reference?.generation ?? 0) > (best.reference?.generation ?? 0) ? entry : best,
  ).value;
}

function readBodyToken(request: FastifyRequest): string | undefined {
  const body = request.body as { refreshToken?: string } | null | undefined;
  return body?.refreshToken;
}

function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/** Text PostgreSQL can store and compare: well-formed Unicode without NUL. */
function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}
