import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { SECURITY_HEADERS } from '../src/security-headers.js';
import { type TestServer, parseRawAnswer, rawRequest, readError, startTestServer } from './start-test-server.js';

// Answers made before any hook runs (the router cannot read the URL, Node's HTTP parser refuses the
// request) still have the uniform body and every security header.

/** Headers of an answer that are not about security, and differ from answer to answer. */
const PER_ANSWER = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'vary']);

describe('early errors', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('use the same security headers as every other answer', async () => {
    const ordinary = await fetch(`${server.url}/nowhere`);
    const security = [...ordinary.headers.keys()].filter((name) => !PER_ANSWER.has(name));
    assert.deepEqual(
      Object.fromEntries(security.map((name) => [name, ordinary.headers.get(name)])),
      Object.fromEntries(Object.entries(SECURITY_HEADERS).map(([name, value]) => [name.toLowerCase(), value])),
    );
  });

  for (const [name, path, status, code] of [
    ['a malformed percent-encoding', '/api/v1/users/%zz', 400, 'InvalidRequest'],
    ['an id longer than the router takes', `/api/v1/users/${'9'.repeat(600)}`, 414, 'UriTooLong'],
  ] as const) {
    it(`answers ${name} with ${status}, the uniform body and the security headers`, async () => {
      const response = await fetch(server.url + path);
      assert.equal(response.status, status);
      assertSecurityHeaders(response.headers);
      assert.equal((await readError(response)).code, code);
    });
  }

  for (const [name, request, status, code] of [
    [
      'headers over 16 KB',
      `GET /api/v1/users HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'HeadersTooLarge',
    ],
    [
      'a URL over 16 KB (counted with the headers)',
      `GET /api/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      431,
      'HeadersTooLarge',
    ],
    [
      'an HTTP/1.1 request without Host',
      'GET /api/v1/users HTTP/1.1\r\nConnection: close\r\n\r\n',
      400,
      'InvalidRequest',
    ],
    ['a request line that is no HTTP', 'HELLO THERE\r\n\r\n', 400, 'BadRequest'],
    ['a header without a colon', 'GET /api/v1/users HTTP/1.1\r\nHost: x\r\nbroken\r\n\r\n', 400, 'BadRequest'],
    ['an unknown HTTP version', 'GET /api/v1/users HTTP/3.7\r\nHost: x\r\n\r\n', 400, 'BadRequest'],
  ] as const) {
    it(`answers ${name} with ${status}, the uniform body and the security headers`, async () => {
      const answer = parseRawAnswer(await rawRequest(server, request));
      assert.equal(answer.status, status);
      assertSecurityHeaders(answer.headers);
      assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
      const body = JSON.parse(answer.body) as { error: { code: string } };
      assert.equal(body.error.code, code);
      assert.deepEqual(Object.keys(body), ['error']);
    });
  }

  it('takes an HTTP/1.0 request without Host, which that version allows', async () => {
    const answer = parseRawAnswer(await rawRequest(server, 'GET /api/v1/users HTTP/1.0\r\n\r\n'));
    assert.equal(answer.status, 401);
  });

  it('never writes its 400 into an answer already being sent (a malformed request pipelined behind it)', async () => {
    // The reference page's 1.7 MB script is streamed from disk in chunks: its headers are out long
    // before its body. A malformed request arriving then must not put "HTTP/1.1 400" into that body
    // (the connection is closed instead, as Node's own handler does); it did, without the guard.
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await pipelineAfterHeaders(
        server,
        'GET /docs/static/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n',
      );
      assert.ok(answer.startsWith('HTTP/1.1 200 OK'), answer.slice(0, 40));
      assert.equal(
        answer.indexOf('HTTP/1.1 400'),
        -1,
        `a 400 inside the first answer, at ${answer.indexOf('HTTP/1.1 400')}`,
      );
    }
  });
});

/** Sends `request`, then a malformed one as soon as the first bytes of its answer arrive; all the server sent. */
function pipelineAfterHeaders(server: TestServer, request: string): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const limit = setTimeout(() => {
      reject(new Error('the server kept the connection open'));
      socket.destroy();
    }, 20_000);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      if (chunks.length === 0) socket.write('NOT HTTP AT ALL\r\n\r\n');
      chunks.push(chunk);
    });
    // A reset after the answers is the server closing on the malformed request.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(limit);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
}

function assertSecurityHeaders(headers: { get(name: string): string | null | undefined }): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.equal(headers.get(name.toLowerCase()), value, name);
  }
}
