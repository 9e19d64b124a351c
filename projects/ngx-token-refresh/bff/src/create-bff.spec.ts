import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createBff } from './public-api';

// The routing of createBff: its own paths answered, every other request left to the app's server.

const bff = createBff({
  issuer: 'https://login.example',
  clientId: 'shop',
  clientSecret: 'secret',
  baseUrl: 'https://shop.example',
  basePath: '/auth',
  apis: { '/api': 'https://api.example/v1' },
});

describe('createBff: routes', () => {
  it('resolves null for requests that are not its own', async () => {
    for (const path of ['/', '/account', '/apis', '/api-docs', '/authx', '/assets/app.js']) {
      assert.equal(await bff.handle(new Request(`https://shop.example${path}`)), null, path);
    }
  });

  it('answers 404 for an unknown path under basePath, and 405 for a route of another method', async () => {
    const unknown = await bff.handle(new Request('https://shop.example/auth/nothing'));
    assert.equal(unknown?.status, 404);
    assert.deepEqual(await unknown?.json(), {
      error: { code: 'NotFound', message: 'No route /auth/nothing in the BFF.' },
    });
    const wrongMethod = await bff.handle(new Request('https://shop.example/auth/logout'));
    assert.equal(wrongMethod?.status, 405);
    assert.equal(wrongMethod?.headers.get('allow'), 'POST');
    assert.equal((await bff.handle(new Request('https://shop.example/auth/login', { method: 'POST' })))?.status, 405);
  });

  it('answers the API prefix itself and every path under it', async () => {
    // No session cookie: the BFF's own answer, so these were routed to the proxy.
    for (const path of ['/api', '/api/users', '/api/users/7?expand=1']) {
      const response = await bff.handle(new Request(`https://shop.example${path}`, { headers: { 'x-csrf': '1' } }));
      assert.equal(response?.status, 401, path);
      assert.equal(((await response?.json()) as { error: { code: string } }).error.code, 'NoSession');
    }
  });
});
