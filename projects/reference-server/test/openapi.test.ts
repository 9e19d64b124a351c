import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { createOpenApiResponseCheck } from './openapi-response-check.js';
import { type TestServer, readError, startTestServer } from './start-test-server.js';

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { security?: object[]; responses: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
}

describe('the OpenAPI document', () => {
  let server: TestServer;
  let document: Document;
  before(async () => {
    server = await startTestServer({ env: { API_VENDOR: 'acme' } });
    document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
  });
  after(async () => {
    await server.close();
  });

  it('is OpenAPI 3.1 with both mountings of the users API and the auth endpoints', () => {
    assert.equal(document.openapi, '3.1.0');
    assert.deepEqual(Object.keys(document.paths).sort(), [
      '/api/users',
      '/api/users/{id}',
      '/api/v1/users',
      '/api/v1/users/{id}',
      '/auth/login',
      '/auth/logout',
      '/auth/refresh',
    ]);
    const byAccept = document.paths['/api/users/{id}']?.['get']?.responses['200'] as { content: object };
    assert.deepEqual(Object.keys(byAccept.content), ['application/vnd.acme.v1+json']);
    assert.ok(document.paths['/api/users']?.['get']?.responses['406']);
  });

  it('names the bearer and cookie schemes, the error body and the paging envelope', () => {
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['bearerAuth', 'refreshCookie']);
    assert.deepEqual(document.paths['/api/v1/users']?.['get']?.security, [{ bearerAuth: [] }]);
    for (const name of ['ErrorBody', 'User', 'UserPage', 'AccessToken'])
      assert.ok(document.components.schemas[name], name);
  });

  it('serves a reference page whose CSP lets it load itself, while the API keeps default-src none', async () => {
    const page = await fetch(`${server.url}/docs/static/index.html`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    const api = await fetch(`${server.url}/api/v1/users`);
    assert.equal(api.headers.get('content-security-policy'), "default-src 'none';frame-ancestors 'none'");
    const json = await fetch(`${server.url}/openapi.json`);
    assert.equal(json.headers.get('content-security-policy'), "default-src 'none';frame-ancestors 'none'");
  });

  it('is what the suite checks every answer against: an answer off the document fails', async () => {
    const check = createOpenApiResponseCheck(document);
    const json = { 'Content-Type': 'application/json; charset=utf-8' };
    const url = `${server.url}/api/v1/users/1`;
    const user = JSON.stringify({ id: 1, name: 'Ada', email: 'ada@example.com' });
    await check('GET', url, new Response(user, { status: 200, headers: json }));
    const offDocument: [string, Response][] = [
      ['an extra field', new Response(JSON.stringify({ id: 1, name: 'A', email: 'a@b.co', x: 1 }), { headers: json })],
      ['an undocumented status', new Response(user, { status: 202, headers: json })],
      ['another content type', new Response(user, { status: 200, headers: { 'Content-Type': 'text/plain' } })],
      ['an error without the uniform body', new Response('{"message":"no"}', { status: 404, headers: json })],
    ];
    for (const [name, response] of offDocument) {
      await assert.rejects(check('GET', url, response), /not described by the OpenAPI document/, name);
    }
    await assert.rejects(
      check('GET', `${server.url}/nowhere`, new Response('{}', { status: 404, headers: json })),
      /not described/,
    );
  });
});

describe('API_DOCS', () => {
  const DOC_PATHS = ['/openapi.json', '/docs', '/docs/', '/docs/json', '/docs/static/index.html'];
  // Production behind a TLS-terminating proxy on loopback: the server believes its X-Forwarded-Proto.
  const behindProxy = { headers: { 'X-Forwarded-Proto': 'https' } };

  it('is off by default in production: the document and the page answer the uniform 404', async () => {
    const server = await startTestServer({ env: { NODE_ENV: 'production', TRUST_PROXY: '127.0.0.1' } });
    try {
      assert.equal(server.config.apiDocs, false);
      for (const path of DOC_PATHS) {
        const response = await fetch(`${server.url}${path}`, behindProxy);
        assert.equal(response.status, 404, path);
        assert.equal((await readError(response)).code, 'NotFound', path);
      }
      // The API itself is there: 401 without a token, not 404.
      assert.equal((await fetch(`${server.url}/api/v1/users`, behindProxy)).status, 401);
    } finally {
      await server.close();
    }
  });

  it('serves both in production when API_DOCS=true, and neither outside production when API_DOCS=false', async () => {
    const production = await startTestServer({
      env: { NODE_ENV: 'production', TRUST_PROXY: '127.0.0.1', API_DOCS: 'true' },
    });
    try {
      assert.equal((await fetch(`${production.url}/openapi.json`, behindProxy)).status, 200);
      assert.equal((await fetch(`${production.url}/docs/static/index.html`, behindProxy)).status, 200);
    } finally {
      await production.close();
    }
    const development = await startTestServer({ env: { API_DOCS: 'false' } });
    try {
      for (const path of DOC_PATHS) assert.equal((await fetch(`${development.url}${path}`)).status, 404, path);
    } finally {
      await development.close();
    }
  });
});
