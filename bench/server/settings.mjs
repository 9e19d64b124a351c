// The settings of `npm run bench:server` (see run.mjs), read from its command line, and the routes it loads.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspace root. */
export const root = fileURLToPath(new URL('../../', import.meta.url));
const args = process.argv.slice(2);
export const smoke = args.includes('--smoke');
const option = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
export const out = resolve(
  root,
  option('out') ?? (smoke ? 'test-results/bench-server-smoke.md' : 'bench/SERVER-RESULTS.md'),
);
export const duration = Number(option('duration') ?? (smoke ? 1 : 5));
export const rounds = Number(option('rounds') ?? (smoke ? 1 : 30));
export const roundSeconds = 1;
export const connections = 10;
export const databaseUrl = process.env.DATABASE_URL || null;
export const vendorType = 'application/vnd.showcase.v1+json';
/** The server's JWT_SECRET here, so this script can sign tokens the server accepts. */
export const jwtSecret = 'benchmark-secret-of-the-reference-server-0123456789';
/**
 * Distinct tokens sent in turn on the "new token" route: twice the 1,000 the server remembers, so in
 * this order every call is a token it has forgotten (a server that forgets each client's token between
 * two of its calls).
 */
export const NEW_TOKEN_POOL = 2000;

/** Sessions the refresh routes take turns with (fewer in --smoke: more than its connections still). */
export const REFRESH_SESSIONS = smoke ? 24 : 200;

/**
 * Every route, in order; `token: true` adds the demo admin's access token, `token: 'new'` a
 * different one on every call; `flow: 'login'` signs the demo admin in from a trusted device,
 * `flow: 'refresh'` refreshes {@link REFRESH_SESSIONS} sessions in turn, each with its latest cookie.
 * `connections` overrides the default.
 */
const ALL_ROUTES = [
  {
    name: 'no-token',
    label: 'GET /api/v1/users/0, no token → 401',
    path: '/api/v1/users/0',
    token: false,
    status: 401,
  },
  {
    name: 'jwt-only',
    label: 'GET /api/v1/users/0, valid token → 400 (JWT checked, no database)',
    path: '/api/v1/users/0',
    token: true,
    status: 400,
  },
  {
    name: 'jwt-new',
    label: 'GET /api/v1/users/0, a token not seen before on every call → 400 (signature checked each time)',
    path: '/api/v1/users/0',
    token: 'new',
    status: 400,
  },
  {
    name: 'get-user',
    label: 'GET /api/v1/users/1 → 200 (JWT + database)',
    path: '/api/v1/users/1',
    token: true,
    status: 200,
  },
  {
    name: 'list-page',
    label: 'GET /api/v1/users?page=2&pageSize=10 → 200',
    path: '/api/v1/users?page=2&pageSize=10',
    token: true,
    status: 200,
  },
  {
    name: 'accept-get',
    label: `GET /api/users/1, Accept: ${vendorType} → 200`,
    path: '/api/users/1',
    token: true,
    status: 200,
    headers: { Accept: vendorType },
  },
  {
    name: 'login',
    label:
      'POST /auth/login from a trusted device → 200 (scrypt; the rate limit and the attempts counted in the database; a new session)',
    path: '/auth/login',
    flow: 'login',
    status: 200,
  },
  {
    name: 'refresh-16',
    label: `POST /auth/refresh, ${REFRESH_SESSIONS} sessions, every refresh rotating → 200 (16 connections)`,
    path: '/auth/refresh',
    flow: 'refresh',
    connections: 16,
    status: 200,
  },
  {
    name: 'refresh-64',
    label: `POST /auth/refresh, ${REFRESH_SESSIONS} sessions, every refresh rotating → 200 (64 connections)`,
    path: '/auth/refresh',
    flow: 'refresh',
    connections: 64,
    status: 200,
  },
];

/**
 * The routes loaded: {@link ALL_ROUTES}, less the second refresh route in --smoke (CI keeps the refresh
 * flow working with one; its figures are never quoted).
 */
export const ROUTES = smoke ? ALL_ROUTES.filter((route) => route.name !== 'refresh-64') : ALL_ROUTES;
