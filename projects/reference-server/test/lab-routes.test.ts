import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { readConfig } from '../src/read-config.js';
import {
  type TestServer,
  api,
  login,
  readCookie,
  readError,
  refreshWithCookie,
  startTestServer,
} from './start-test-server.js';

const EXPIRE = '/auth/lab/expire-access-token';

describe('the auth lab’s development route', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('is off unless DEV_LAB_ROUTES=true: the default server answers 404 and documents no such route', async () => {
    assert.equal(readConfig({}).devLabRoutes, false);
    assert.equal(readConfig({ NODE_ENV: 'development' }).devLabRoutes, false);
    const { accessToken } = await login(server);

    const response = await api(server, 'POST', EXPIRE, accessToken);

    assert.equal(response.status, 404);
    // The token is untouched.
    assert.equal((await api(server, 'GET', '/api/v1/users/1', accessToken)).status, 200);
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.equal(document.paths[EXPIRE], undefined);
  });

  it('with DEV_LAB_ROUTES=true, expires the presented token only, and a refresh brings a working one', async () => {
    const lab = await startTestServer({ database: server.database, env: { DEV_LAB_ROUTES: 'true' } });
    try {
      const session = await login(lab);
      const other = await login(lab, 'alan', 'turing');

      assert.equal((await api(lab, 'POST', EXPIRE, session.accessToken)).status, 204);

      const refused = await api(lab, 'GET', '/api/v1/users/1', session.accessToken);
      assert.equal(refused.status, 401);
      assert.equal((await readError(refused)).code, 'TokenExpired');
      assert.equal((await api(lab, 'GET', '/api/v1/users/1', other.accessToken)).status, 200);
      const refreshed = await refreshWithCookie(lab, session.refreshToken);
      assert.equal(refreshed.status, 200);
      assert.ok(readCookie(refreshed, '__Secure-refreshToken'));
      const { accessToken } = (await refreshed.json()) as { accessToken: string };
      assert.equal((await api(lab, 'GET', '/api/v1/users/1', accessToken)).status, 200);
    } finally {
      await lab.close();
    }
  });

  it('with DEV_LAB_ROUTES=true, wants a valid access token', async () => {
    const lab = await startTestServer({ database: server.database, env: { DEV_LAB_ROUTES: 'true' } });
    try {
      const response = await fetch(`${lab.url}${EXPIRE}`, { method: 'POST' });
      assert.equal(response.status, 401);
      assert.equal((await readError(response)).code, 'Unauthorized');
    } finally {
      await lab.close();
    }
  });
});
