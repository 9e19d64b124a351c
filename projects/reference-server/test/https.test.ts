import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import {
  type TestServer,
  createTestDatabase,
  readError,
  startTestServer,
  type TestDatabase,
} from './start-test-server.js';

// HTTPS served by the server itself, and plain HTTP refused when the server is told to answer over
// HTTPS only, believing X-Forwarded-Proto from trusted proxies alone.

describe('HTTPS', () => {
  let folder: string;
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database.close();
  });

  describe('with a certificate and key', () => {
    let server: TestServer;
    let ca: Buffer;
    let certFile: string;
    let keyFile: string;
    before(async () => {
      folder = mkdtempSync(join(tmpdir(), 'reference-server-tls-'));
      certFile = join(folder, 'cert.pem');
      keyFile = join(folder, 'key.pem');
      // A self-signed certificate for 127.0.0.1, valid for a day.
      execFileSync(
        'openssl',
        [
          ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
          ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
          ...['-keyout', keyFile, '-out', certFile],
        ],
        { stdio: 'ignore' },
      );
      ca = readFileSync(certFile);
      server = await startTestServer({
        database,
        env: { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, HTTPS_ONLY: 'true' },
      });
    });
    after(async () => {
      await server.close();
      rmSync(folder, { recursive: true, force: true });
    });

    it('serves HTTPS, and signs in with a Secure cookie', async () => {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const unauthorized = await httpsRequest(`${server.url}/api/v1/users`, ca);
      assert.equal(unauthorized.status, 401);
      assert.equal(JSON.parse(unauthorized.body).error.code, 'Unauthorized');
      assert.match(String(unauthorized.headers['strict-transport-security']), /^max-age=\d+/);

      const signedIn = await httpsRequest(`${server.url}/auth/login`, ca, {
        method: 'POST',
        body: JSON.stringify({ username: 'ada', password: 'lovelace' }),
      });
      assert.equal(signedIn.status, 200);
      assert.match(String(signedIn.headers['set-cookie']), /; Secure/);
    });

    it('counts connections per address before their TLS handshake, and closes the one too many at once', async () => {
      const capped = await startTestServer({
        database,
        env: {
          TLS_CERT_FILE: certFile,
          TLS_KEY_FILE: keyFile,
          MAX_CONNECTIONS_PER_ADDRESS: '1',
          HEADERS_TIMEOUT_MS: '3000',
        },
      });
      const { port } = new URL(capped.url);
      try {
        // One connection that never starts its handshake holds the only place...
        const held = connect(Number(port), '127.0.0.1');
        await once(held, 'connect');
        // ...so the next is closed without a handshake spent on it, long before the handshake timeout.
        const started = performance.now();
        const refused = connect(Number(port), '127.0.0.1');
        refused.on('error', () => undefined);
        await once(refused, 'close');
        assert.ok(performance.now() - started < 1000, 'the connection over the cap was held');
        held.destroy();
        await once(held, 'close');
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal((await httpsRequest(`${capped.url}/api/v1/users`, ca)).status, 401);
      } finally {
        await capped.close();
      }
    });
  });

  describe('plain HTTP when HTTPS_ONLY=true', () => {
    const servers = new Map<string, TestServer>();
    const server = (name: string): TestServer => {
      const found = servers.get(name);
      if (!found) throw new Error(`no server ${name}`);
      return found;
    };
    before(async () => {
      for (const [name, trustProxy] of [
        ['direct', 'false'],
        ['behind a proxy on loopback', '127.0.0.1'],
        ['behind a proxy elsewhere', '10.0.0.0/8, fd00::/8'],
      ] as const) {
        servers.set(name, await startTestServer({ database, env: { HTTPS_ONLY: 'true', TRUST_PROXY: trustProxy } }));
      }
    });
    after(async () => {
      for (const each of servers.values()) await each.close();
    });

    it('is refused with 403 HttpsRequired, the uniform body and the security headers', async () => {
      const response = await fetch(`${server('direct').url}/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'ada', password: 'lovelace' }),
      });
      assert.equal(response.status, 403);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.deepEqual(response.headers.getSetCookie(), []);
      assert.deepEqual(await readError(response), {
        code: 'HttpsRequired',
        message: 'This server answers over HTTPS only.',
      });
    });

    for (const [name, status, title] of [
      ['direct', 403, 'ignores X-Forwarded-Proto: https when no proxy is trusted'],
      ['behind a proxy elsewhere', 403, 'ignores X-Forwarded-Proto: https from an address that is no trusted proxy'],
      ['behind a proxy on loopback', 401, 'believes X-Forwarded-Proto: https from a trusted proxy'],
    ] as const) {
      it(title, async () => {
        const response = await fetch(`${server(name).url}/api/v1/users`, { headers: { 'X-Forwarded-Proto': 'https' } });
        assert.equal(response.status, status);
        assert.equal((await readError(response)).code, status === 401 ? 'Unauthorized' : 'HttpsRequired');
      });
    }

    it('refuses a trusted proxy’s request that came in over plain HTTP', async () => {
      const response = await fetch(`${server('behind a proxy on loopback').url}/api/v1/users`, {
        headers: { 'X-Forwarded-Proto': 'http' },
      });
      assert.equal(response.status, 403);
    });
  });
});

/** A request over HTTPS trusting `ca` only (fetch cannot be given a certificate authority). */
function httpsRequest(
  url: string,
  ca: Buffer | undefined,
  options: { readonly method?: string; readonly body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: options.method ?? 'GET',
        ca,
        headers: options.body === undefined ? {} : { 'Content-Type': 'application/json' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
