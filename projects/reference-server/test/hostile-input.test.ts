import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { type TestServer, login, rawRequest, readError, startTestServer } from './start-test-server.js';

// Hostile and broken requests get a 4xx with the uniform error body, never a 500, and change
// nothing: the database is compared whole before and after.

interface Attempt {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: string | Buffer;
  readonly contentType?: string;
  readonly status: number;
}

const JSON_TYPE = 'application/json';
const PATCH_TYPE = 'application/merge-patch+json';

const attempts: Attempt[] = [
  // wrong types
  ...[
    ['a number as name', '{"name": 42, "email": "a@example.com"}'],
    ['a boolean as email', '{"name": "A", "email": true}'],
    ['an array as name', '{"name": ["A"], "email": "a@example.com"}'],
    ['an object as email', '{"name": "A", "email": {"$gt": ""}}'],
    ['a string id', '{"id": "1", "name": "A", "email": "a@example.com"}'],
    ['a fractional id', '{"id": 1.5, "name": "A", "email": "a@example.com"}'],
    ['a huge id', '{"id": 1e308, "name": "A", "email": "a@example.com"}'],
    ['null as body', 'null'],
    ['a JSON string as body', '"name"'],
    ['a JSON number as body', '12'],
    ['deeply nested arrays', `${'['.repeat(5000)}${']'.repeat(5000)}`],
    ['a deeply nested name', `{"name": ${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}, "email": "a@example.com"}`],
  ].flatMap(([name, body]) => writes(`wrong type: ${name}`, body as string, 400)),
  // unknown fields and prototype tricks
  ...writes('an unknown field (role)', '{"name": "A", "email": "a@example.com", "role": "admin"}', 400),
  ...writes('__proto__', '{"name": "A", "email": "a@example.com", "__proto__": {"isAdmin": true}}', 400),
  ...writes('constructor.prototype', '{"name": "A", "email": "a@example.com", "constructor": {"prototype": {}}}', 400),
  // huge strings and bodies
  ...writes('a 1000-character name', JSON.stringify({ name: 'x'.repeat(1000), email: 'a@example.com' }), 400),
  ...writes('a 300-character e-mail', JSON.stringify({ name: 'A', email: `${'x'.repeat(290)}@example.com` }), 400),
  ...writes('a 100 kB body', JSON.stringify({ name: 'x'.repeat(100_000), email: 'a@example.com' }), 413),
  ...writes('a 2 MB body', JSON.stringify({ name: 'A', email: 'a@example.com', pad: 'x'.repeat(2_000_000) }), 413),
  // control characters and broken Unicode inside valid JSON
  ...writes('NUL in the name', '{"name": "A\\u0000B", "email": "nul@example.com"}', 400),
  ...writes('NUL in the e-mail', '{"name": "A", "email": "a\\u0000@example.com"}', 400),
  ...writes('a lone surrogate in the name', '{"name": "A\\ud800", "email": "surrogate@example.com"}', 400),
  ...writes('a line feed in the name', '{"name": "A\\nB", "email": "lf@example.com"}', 400),
  // invalid UTF-8 on the wire
  ...writes('invalid UTF-8 (C3 28)', utf8Body([0xc3, 0x28]), 400),
  ...writes('an overlong encoding (C0 AF)', utf8Body([0xc0, 0xaf]), 400),
  ...writes('an encoded surrogate (ED A0 80)', utf8Body([0xed, 0xa0, 0x80]), 400),
  ...writes('a truncated sequence (E2 82)', utf8Body([0xe2, 0x82]), 400),
  // not JSON
  ...writes('broken JSON', '{"name": "A", "email": ', 400),
  ...writes('a trailing comma', '{"name": "A", "email": "a@example.com",}', 400),
  ...writes('JavaScript, not JSON', "{name: 'A', email: 'a@example.com'}", 400),
  {
    name: 'create as text/plain',
    method: 'POST',
    path: '/api/v1/users',
    body: '{}',
    contentType: 'text/plain',
    status: 415,
  },
  {
    name: 'create as XML',
    method: 'POST',
    path: '/api/v1/users',
    body: '<user/>',
    contentType: 'application/xml',
    status: 415,
  },
  {
    name: 'create as form data',
    method: 'POST',
    path: '/api/v1/users',
    body: 'name=A&email=a%40example.com',
    contentType: 'application/x-www-form-urlencoded',
    status: 415,
  },
  // SQL metacharacters where a number belongs
  ...['1;DROP TABLE users', "1' OR '1'='1", '1--', '1)%20OR%20(1=1', '(SELECT%201)'].flatMap((id) => [
    { name: `GET id ${id}`, method: 'GET', path: `/api/v1/users/${encodeURIComponent(id)}`, status: 400 },
    { name: `DELETE id ${id}`, method: 'DELETE', path: `/api/v1/users/${encodeURIComponent(id)}`, status: 400 },
    {
      name: `PUT id ${id}`,
      method: 'PUT',
      path: `/api/v1/users/${encodeURIComponent(id)}`,
      body: '{"name": "A", "email": "a@example.com"}',
      contentType: JSON_TYPE,
      status: 400,
    },
  ]),
  { name: 'SQL in page', method: 'GET', path: `/api/v1/users?page=${encodeURIComponent('1 OR 1=1')}`, status: 400 },
  {
    name: 'SQL in pageSize',
    method: 'GET',
    path: `/api/v1/users?pageSize=${encodeURIComponent('1;DELETE FROM users')}`,
    status: 400,
  },
  // broken URLs
  { name: 'a bad percent-encoding in the path', method: 'GET', path: '/api/v1/users/%E0%A4%A', status: 400 },
  { name: 'a bad percent-encoding in the query', method: 'GET', path: '/api/v1/users?page=%FF', status: 400 },
  { name: 'a 600-character id', method: 'GET', path: `/api/v1/users/${'9'.repeat(600)}`, status: 414 },
  { name: 'a path of 4000 characters', method: 'GET', path: `/api/${'a/'.repeat(2000)}`, status: 404 },
  { name: 'an unknown route', method: 'POST', path: '/api/v1/admin', body: '{}', contentType: JSON_TYPE, status: 404 },
  { name: 'a dot-dot path', method: 'GET', path: '/api/v1/users/../../etc/passwd', status: 404 },
];

describe('hostile input', () => {
  let server: TestServer;
  let admin: string;
  let before_: string;
  before(async () => {
    server = await startTestServer();
    admin = (await login(server)).accessToken;
    before_ = await snapshot(server);
  });
  after(() => server.close());

  for (const attempt of attempts) {
    it(`answers ${attempt.name} (${attempt.method}) with ${attempt.status} and the error body`, async () => {
      const headers: Record<string, string> = { Authorization: `Bearer ${admin}` };
      if (attempt.contentType) headers['Content-Type'] = attempt.contentType;
      const response = await fetch(server.url + attempt.path, { method: attempt.method, headers, body: attempt.body });

      assert.equal(response.status, attempt.status, await response.clone().text());
      await readError(response);
    });
  }

  it('answers a body of unknown length (chunked) beyond the limit with 413', async () => {
    const chunks = (async function* () {
      for (let chunk = 0; chunk < 64; chunk++) yield new TextEncoder().encode(`"${'x'.repeat(1024)}",`);
    })();
    const response = await fetch(`${server.url}/api/v1/users`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': JSON_TYPE },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    assert.equal(response.status, 413);
    await readError(response);
  });

  it('answers headers beyond Node’s limit with 431 and the error body', async () => {
    const response = await fetch(`${server.url}/api/v1/users`, {
      headers: { Authorization: `Bearer ${admin}`, 'X-Padding': 'x'.repeat(20_000) },
    });
    assert.equal(response.status, 431);
    assert.equal((await readError(response)).code, 'HeadersTooLarge');
  });

  it('answers a malformed request line with 400 and the error body', async () => {
    const answer = await rawRequest(server, 'GARBAGE\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /\{"error":\{"code":"BadRequest","message":"[^"]+"\}\}$/);
  });

  it('answers a Content-Length larger than the body it announces with an error, not a hang or a 500', async () => {
    const { host } = new URL(server.url);
    const answer = await rawRequest(
      server,
      `POST /api/v1/users HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${admin}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{"name": "A"}`,
    );
    assert.doesNotMatch(answer, /^HTTP\/1\.1 5/);
  });

  it('stores SQL metacharacters in a name as plain text', async () => {
    const name = `Robert'); DROP TABLE users;-- \\ " %_`;
    const created = await fetch(`${server.url}/api/v1/users`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': JSON_TYPE },
      body: JSON.stringify({ name, email: 'bobby.tables@example.com' }),
    });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: number };
    const read = await fetch(`${server.url}/api/v1/users/${id}`, { headers: { Authorization: `Bearer ${admin}` } });
    assert.equal(((await read.json()) as { name: string }).name, name);
    await fetch(`${server.url}/api/v1/users/${id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${admin}` },
    });
  });

  it('changed nothing: users and accounts are as before', async () => {
    assert.equal(await snapshot(server), before_);
  });
});

/** The same body as create (POST), replace (PUT) and merge patch (PATCH). */
function writes(name: string, body: string | Buffer, status: number): Attempt[] {
  return [
    { name: `create with ${name}`, method: 'POST', path: '/api/v1/users', body, contentType: JSON_TYPE, status },
    { name: `replace with ${name}`, method: 'PUT', path: '/api/v1/users/1', body, contentType: JSON_TYPE, status },
    { name: `patch with ${name}`, method: 'PATCH', path: '/api/v1/users/1', body, contentType: PATCH_TYPE, status },
  ];
}

/** A user body whose name holds these raw bytes. */
function utf8Body(bytes: number[]): Buffer {
  return Buffer.concat([
    Buffer.from('{"name": "A'),
    Buffer.from(bytes),
    Buffer.from('", "email": "bytes@example.com"}'),
  ]);
}

async function snapshot(server: TestServer): Promise<string> {
  const { engine } = server.database;
  const users = await engine.query('SELECT id, name, email FROM users ORDER BY id');
  const accounts = await engine.query('SELECT username, password_hash, role FROM accounts ORDER BY username');
  return JSON.stringify({ users, accounts });
}
