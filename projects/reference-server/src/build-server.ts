import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';

import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify';

import { type AccessTokens, createAccessTokens } from './access-tokens.js';
import { createRateLimitStore } from './create-rate-limit-store.js';
import { registerAuthRoutes } from './auth-routes.js';
import { createDpopAuthenticate } from './authenticate-dpop.js';
import { capConnectionsPerAddress } from './cap-connections-per-address.js';
import { createDpopProofs } from './dpop-proofs.js';
import { handleClientError, handleFrameworkError, registerErrorHandling } from './error-handling.js';
import { HttpError } from './http-error.js';
import { registerLabRoutes } from './lab-routes.js';
import { createLoginDevices } from './login-devices.js';
import { createPasswordChecks } from './password-checks.js';
import { hashPassword } from './password-hash.js';
import type { ServerConfig } from './read-config.js';
import { refreshCookieName } from './refresh-cookie.js';
import { createRefreshTokens } from './refresh-tokens.js';
import { registerJsonBody } from './register-json-body.js';
import { registerOpenApi } from './register-openapi.js';
import type { Repository } from './repository.js';
import { registerUsersRoutes } from './users-routes.js';

/** What {@link buildServer} assembles. */
export interface BuildServerOptions {
  readonly config: ServerConfig;
  readonly repository: Repository;
  /** The clock in milliseconds; tests move it forward to expire tokens. Default: `Date.now`. */
  readonly now?: () => number;
}

/**
 * The whole HTTP server, ready to `listen`: HTTPS when the configuration names a certificate, the
 * timeouts and the cap on connections per address, security headers (helmet), plain HTTP refused
 * when `httpsOnly`, CORS for the configured origins only, the strict JSON body parser with its size
 * limit, `Cache-Control: no-store` on every answer, the rate limits of login, refresh and logout,
 * the auth and users routes (and, with DEV_LAB_ROUTES=true only, the auth lab's development route),
 * DPoP's proofs, nonces and bound tokens when DPOP is `allowed` or `required` (with DPOP=off, the
 * default, nothing of it is registered: the hooks, CORS and document are what they are without it),
 * the OpenAPI document (`/openapi.json`) and its reference page (`/docs`) when API_DOCS is on (the
 * default outside production; `app.swagger()` builds the document either way), and the uniform error
 * body for every error.
 * It owns nothing it was given: closing it leaves the repository open.
 *
 * @example
 * const app = await buildServer({ config: readConfig(process.env), repository });
 * await app.listen({ port: 3000, host: '127.0.0.1' });
 */
export async function buildServer(options: BuildServerOptions): Promise<FastifyInstance> {
  const { config, repository, now = Date.now } = options;
  const nodeServerOptions = {
    headersTimeout: config.headersTimeoutMs,
    // Node checks the header and request deadlines on this beat (30 s by default, which would let
    // a 10-second deadline slip to 40).
    connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(config.headersTimeoutMs / 4))),
    // Node would answer a missing Host with an empty 400 of its own; the hook below answers it uniformly.
    requireHostHeader: false,
  };
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: typeof config.trustProxy === 'boolean' ? config.trustProxy : [...config.trustProxy],
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionTimeout: config.connectionTimeoutMs,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Bodies are validated exactly as sent: no type coercion ("1" is no integer), nothing removed
    // silently (an unknown field is an error), every problem reported at once (up to
    // MAX_ERROR_DETAILS of them in the answer: the contract's).
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: true } },
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
    ...(config.tls === null
      ? { http: nodeServerOptions }
      : {
          https: {
            ...nodeServerOptions,
            cert: readTlsFile('TLS_CERT_FILE', config.tls.certFile),
            key: readTlsFile('TLS_KEY_FILE', config.tls.keyFile),
            // A handshake that never ends holds a connection as long as slow headers would.
            handshakeTimeout: config.headersTimeoutMs,
          },
        }),
    // The https variant is typed apart; both serve the same Node request and reply objects.
  } as FastifyHttpOptions<Server>);
  capConnectionsPerAddress(app.server, {
    max: config.maxConnectionsPerAddress,
    exempt: config.trustProxy,
    tls: config.tls !== null,
  });

  registerErrorHandling(app);
  registerJsonBody(app);
  await app.register(fastifyHelmet, {
    // A JSON API serves no documents: the strictest policy, no framing, no referrer.
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  // After helmet's hook, so these refusals carry the security headers too.
  app.addHook('onRequest', async (request) => {
    if (config.httpsOnly && request.protocol !== 'https') {
      // No redirect: whatever the client sent (a password, a token) has crossed the network in clear
      // already, and a redirect would teach it to go on doing so unnoticed.
      throw new HttpError(403, 'HttpsRequired', 'This server answers over HTTPS only.');
    }
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new HttpError(400, 'InvalidRequest', 'The Host header is missing.');
    }
  });
  await app.register(fastifyCors, {
    // Exact origins only; for any other, no CORS headers at all, so the browser keeps the answer from the page.
    origin: (origin, callback) => callback(null, origin !== undefined && config.corsOrigins.includes(origin)),
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // With DPoP on, pages of those origins send proofs and must read the nonces (RFC 9449 §8, §7.1).
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', ...(config.dpop === 'off' ? [] : ['DPoP'])],
    exposedHeaders: ['Location', 'WWW-Authenticate', ...(config.dpop === 'off' ? [] : ['DPoP-Nonce'])],
    maxAge: 600,
    strictPreflight: false,
  });
  await app.register(fastifyCookie);
  await app.register(fastifyRateLimit, {
    global: false,
    // In the database, so instances behind a load balancer count together.
    store: createRateLimitStore(repository, now),
    errorResponseBuilder: (_request, context) =>
      new HttpError(429, 'TooManyRequests', `Too many attempts; try again in ${context.after}.`),
  });
  app.addHook('onSend', async (_request, reply) => {
    // Tokens and personal data must not stay in shared or browser caches (RFC 6749 §5.1 for tokens).
    reply.header('Cache-Control', 'no-store');
  });

  // Before the routes: the document is built from the routes registered after it.
  await registerOpenApi(app, {
    apiVendor: config.apiVendor,
    serve: config.apiDocs,
    refreshCookieName: refreshCookieName({ secure: config.cookieSecure, path: config.refreshCookiePath }),
    dpop: config.dpop,
  });

  const issuedTokens = createAccessTokens({
    secret: config.jwtSecret,
    ttlSeconds: config.accessTokenTtlSeconds,
    now,
    expiredGraceSeconds: config.refreshTokenTtlSeconds,
  });
  // Proofs are checked against a nonce key derived from the same secret (through HKDF), so instances
  // sharing JWT_SECRET accept each other's nonces, and remembered in the database, which they share.
  const dpop =
    config.dpop === 'off'
      ? null
      : { mode: config.dpop, proofs: createDpopProofs({ jwtSecret: config.jwtSecret, now, repository }) };
  const dpopAuthenticateWith = dpop
    ? (tokens: AccessTokens) => createDpopAuthenticate({ mode: dpop.mode, accessTokens: tokens, proofs: dpop.proofs })
    : null;
  // Development only, and only when asked for (DEV_LAB_ROUTES=true): the auth lab's "expire now".
  const accessTokens = config.devLabRoutes ? registerLabRoutes(app, issuedTokens, dpopAuthenticateWith) : issuedTokens;
  // A real hash of a random password, made with the same cost as the stored ones, so a login with an
  // unknown username does the same scrypt work as one with a wrong password.
  const dummyPasswordHash = await hashPassword(crypto.randomUUID());
  // Derived from the same secret (through HKDF), so instances sharing JWT_SECRET accept each other's.
  const refreshTokens = createRefreshTokens(config.jwtSecret);
  const loginDevices = createLoginDevices(config.jwtSecret);
  await registerAuthRoutes(app, {
    config,
    repository,
    accessTokens,
    refreshTokens,
    loginDevices,
    now,
    dummyPasswordHash,
    passwordChecks: createPasswordChecks({
      concurrency: config.passwordCheckConcurrency,
      queueLength: config.passwordCheckQueue,
    }),
    dpop,
  });
  await registerUsersRoutes(app, {
    repository,
    accessTokens,
    apiVendor: config.apiVendor,
    dpopAuthenticate: dpopAuthenticateWith?.(accessTokens) ?? null,
  });
  return app;
}

function readTlsFile(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`reference-server: ${variable} names a file that cannot be read (${(error as Error).message})`);
  }
}
