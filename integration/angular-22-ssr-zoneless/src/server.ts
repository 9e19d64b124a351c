import {
  AngularNodeAppEngine,
  createNodeRequestHandler,
  createWebRequestFromNodeRequest,
  isMainModule,
  writeResponseToNodeResponse,
} from '@angular/ssr/node';
import express from 'express';
import { createBff, createBffMemoryStore } from 'ngx-token-refresh/bff';
import { request } from 'node:http';
import { join } from 'node:path';

const browserDistFolder = join(import.meta.dirname, '../browser');

const app = express();
const angularApp = new AngularNodeAppEngine();

/**
 * Example Express Rest API endpoints can be defined here.
 * Uncomment and define endpoints as necessary.
 *
 * Example:
 * ```ts
 * app.get('/api/{*splat}', (req, res) => {
 *   // Handle API request
 * });
 * ```
 */

/**
 * The backend for frontend (ngx-token-refresh/bff), when `BFF_ISSUER` is set: this server signs the
 * user in at the OpenID Provider, keeps the tokens and calls the API for the page; the browser holds
 * only an HttpOnly session cookie. Mounted before the static files and the Angular engine, so that
 * its routes (`/bff/login`, `/bff/callback`, `/bff/session`, `/bff/logout`, `/api/me`) reach it.
 */
const bffIssuer = process.env['BFF_ISSUER'];
if (bffIssuer) {
  const bff = createBff({
    issuer: bffIssuer,
    clientId: process.env['BFF_CLIENT_ID'] ?? '',
    // A confidential client: the secret stays on this server, which is why a BFF exists.
    clientSecret: process.env['BFF_CLIENT_SECRET'],
    // The origin the browser sees: the redirect URI is <baseUrl>/bff/callback, and requests whose
    // Origin is another are refused.
    baseUrl: process.env['BFF_BASE_URL'] ?? '',
    // What the page may call through the BFF, which adds the session's access token: `/api/me`
    // goes to BFF_API_URL (in the tests, the provider's userinfo endpoint).
    apis: { '/api/me': process.env['BFF_API_URL'] ?? '' },
    // oidc-provider, like some others, issues a refresh token only after a consent prompt.
    authorizationParams: { prompt: 'consent' },
    // One server process: sessions in memory. Several instances share createBffPostgresStore.
    store: createBffMemoryStore(),
  });
  app.use((req, res, next) => {
    // The BFF speaks web Request and Response (any server fits): Express's request converted, the
    // answer written back, or, for any other route (`null`), on to the next handler.
    bff
      .handle(createWebRequestFromNodeRequest(req))
      .then((response) => (response ? writeResponseToNodeResponse(response, res) : next()))
      .catch(next);
  });
  // On SIGTERM, let the refreshes under way finish: the provider has spent their old refresh tokens.
  process.once('SIGTERM', () => void bff.close().finally(() => process.exit(0)));
}

/**
 * `/api` and `/auth` go to the API server that `API_URL` names (a plain proxy, for the tests with
 * the stub API and the reference server), so the browser and the server renders call one origin.
 */
const apiUrl = process.env['API_URL'];
if (apiUrl) {
  app.use(['/api', '/auth'], (req, res) => {
    const target = new URL(req.originalUrl, apiUrl);
    const headers = { ...req.headers, host: target.host };
    const upstream = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.sendStatus(502));
    req.pipe(upstream);
  });
}

/**
 * Serve static files from /browser
 */
app.use(
  express.static(browserDistFolder, {
    maxAge: '1y',
    index: false,
    redirect: false,
  }),
);

/**
 * Handle all other requests by rendering the Angular application.
 */
app.use((req, res, next) => {
  angularApp
    .handle(req)
    .then((response) =>
      response ? writeResponseToNodeResponse(response, res) : next(),
    )
    .catch(next);
});

/**
 * Start the server if this module is the main entry point, or it is ran via PM2.
 * The server listens on the port defined by the `PORT` environment variable, or defaults to 4000.
 */
if (isMainModule(import.meta.url) || process.env['pm_id']) {
  const port = process.env['PORT'] || 4000;
  app.listen(port, (error) => {
    if (error) {
      throw error;
    }

    console.log(`Node Express server listening on http://localhost:${port}`);
  });
}

/**
 * Request handler used by the Angular CLI (for dev-server and during build) or Firebase Cloud Functions.
 */
export const reqHandler = createNodeRequestHandler(app);
