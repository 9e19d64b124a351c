import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';

import { createAccessTokens } from './access-tokens.js';
import { registerAuthRoutes } from './auth-routes.js';
import { handleClientError, handleFrameworkError, registerErrorHandling } from './error-handling.js';
import { HttpError } from './http-error.js';
import { hashPassword } from './password-hash.js';
import type { ServerConfig } from './read-config.js';
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
 * The whole HTTP server, ready to `listen`: security headers (helmet), CORS for the configured
 * origins only, the strict JSON body parser with its size limit, `Cache-Control: no-store` on every
 * answer, the login rate limit, the auth and users routes, the OpenAPI document (`/openapi.json`) and
 * its reference page (`/docs`), and the uniform error body for every error.
 * It owns nothing it was given: closing it leaves the repository open.
 *
 * @example
 * const app = await buildServer({ config: readConfig(process.env), repository });
 * await app.listen({ port: 3000, host: '127.0.0.1' });
 */
export async function buildServer(options: BuildServerOptions): Promise<FastifyInstance> {
  const { config, repository, now = Date.now } = options;
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Bodies are validated exactly as sent: no type coercion ("1" is no integer), nothing removed
    // silently (an unknown field is an error), every problem reported at once.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: true } },
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
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
  await app.register(fastifyCors, {
    // Exact origins only; for any other, no CORS headers at all, so the browser keeps the answer from the page.
    origin: (origin, callback) => callback(null, origin !== undefined && config.corsOrigins.includes(origin)),
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept'],
    exposedHeaders: ['Location', 'WWW-Authenticate'],
    maxAge: 600,
    strictPreflight: false,
  });
  await app.register(fastifyCookie);
  await app.register(fastifyRateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new HttpError(429, 'TooManyRequests', `Too many attempts; try again in ${context.after}.`),
  });
  app.addHook('onSend', async (_request, reply) => {
    // Tokens and personal data must not stay in shared or browser caches (RFC 6749 §5.1 for tokens).
    reply.header('Cache-Control', 'no-store');
  });

  // Before the routes: the document is built from the routes registered after it.
  await registerOpenApi(app, { apiVendor: config.apiVendor });

  const accessTokens = createAccessTokens({
    secret: config.jwtSecret,
    ttlSeconds: config.accessTokenTtlSeconds,
    now,
    expiredGraceSeconds: config.refreshTokenTtlSeconds,
  });
  // A real hash of a random password, made with the same cost as the stored ones, so a login with an
  // unknown username does the same scrypt work as one with a wrong password.
  const dummyPasswordHash = await hashPassword(crypto.randomUUID());
  // Derived from the same secret (through HKDF), so instances sharing JWT_SECRET accept each other's.
  const refreshTokens = createRefreshTokens(config.jwtSecret);
  await registerAuthRoutes(app, { config, repository, accessTokens, refreshTokens, now, dummyPasswordHash });
  await registerUsersRoutes(app, { repository, accessTokens, apiVendor: config.apiVendor });
  return app;
}
