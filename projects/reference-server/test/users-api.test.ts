import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';

import { type TestServer, api, login, readError, startTestServer } from './start-test-server.js';

const V1 = 'application/vnd.showcase.v1+json';

interface User {
  id: number;
  name: string;
  email: string;
}

describe('users API', () => {
  let server: TestServer;
  let admin: string;
  let viewer: string;
  before(async () => {
    server = await startTestServer();
    admin = (await login(server)).accessToken;
    viewer = (await login(server, 'alan', 'turing')).accessToken;
  });
  after(() => server.close());

  describe('list', () => {
    it('answers a plain array of every user in id order without paging parameters', async () => {
      const response = await api(server, 'GET', '/api/v1/users', viewer);

      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const users = (await response.json()) as User[];
      assert.ok(Array.isArray(users));
      assert.ok(users.length >= 40);
      assert.deepEqual(
        users.map((user) => user.id),
        [...users.map((user) => user.id)].sort((a, b) => a - b),
      );
      assert.deepEqual(Object.keys(users[0] as User), ['id', 'name', 'email']);
    });

    it('answers the envelope with page and pageSize', async () => {
      const total = ((await (await api(server, 'GET', '/api/v1/users', admin)).json()) as User[]).length;

      const response = await api(server, 'GET', '/api/v1/users?page=2&pageSize=5', admin);

      assert.equal(response.status, 200);
      const body = (await response.json()) as { data: User[]; pagination: Record<string, number> };
      assert.equal(body.data.length, 5);
      assert.deepEqual(body.pagination, {
        currentPage: 2,
        pageSize: 5,
        totalPages: Math.ceil(total / 5),
        totalItems: total,
      });
    });

    it('defaults to page 1 and page size 10', async () => {
      const onlyPage = (await (await api(server, 'GET', '/api/v1/users?page=1', admin)).json()) as {
        pagination: { pageSize: number };
        data: User[];
      };
      const onlySize = (await (await api(server, 'GET', '/api/v1/users?pageSize=3', admin)).json()) as {
        pagination: { currentPage: number };
        data: User[];
      };
      assert.equal(onlyPage.pagination.pageSize, 10);
      assert.equal(onlyPage.data.length, 10);
      assert.equal(onlySize.pagination.currentPage, 1);
      assert.equal(onlySize.data.length, 3);
    });

    it('pages without gaps or overlaps, in a stable order', async () => {
      const all = (await (await api(server, 'GET', '/api/v1/users', admin)).json()) as User[];
      const paged: User[] = [];
      for (let page = 1; paged.length < all.length; page++) {
        const body = (await (await api(server, 'GET', `/api/v1/users?page=${page}&pageSize=7`, admin)).json()) as {
          data: User[];
        };
        assert.ok(body.data.length > 0, `page ${page} is empty`);
        paged.push(...body.data);
      }
      assert.deepEqual(paged, all);
    });

    it('answers an empty page past the end, and a last partial page', async () => {
      const total = ((await (await api(server, 'GET', '/api/v1/users', admin)).json()) as User[]).length;
      const last = Math.ceil(total / 100);
      const partial = (await (await api(server, 'GET', `/api/v1/users?page=${last}&pageSize=100`, admin)).json()) as {
        data: User[];
      };
      const past = (await (
        await api(server, 'GET', '/api/v1/users?page=999999999999999&pageSize=100', admin)
      ).json()) as {
        data: User[];
        pagination: Record<string, number>;
      };
      assert.equal(partial.data.length, total - (last - 1) * 100);
      assert.deepEqual(past.data, []);
      assert.equal(past.pagination['currentPage'], 999999999999999);
    });

    it('accepts the maximum page size, 100', async () => {
      assert.equal((await api(server, 'GET', '/api/v1/users?pageSize=100', admin)).status, 200);
    });

    for (const [query, target, message] of [
      ['page=0', 'page', 'must be a whole number from 1'],
      ['page=-1', 'page', 'must be a whole number from 1'],
      ['page=1.5', 'page', 'must be a whole number from 1'],
      ['page=abc', 'page', 'must be a whole number from 1'],
      ['page=', 'page', 'must be a whole number from 1'],
      ['page=01', 'page', 'must be a whole number from 1'],
      ['page=1e3', 'page', 'must be a whole number from 1'],
      ['page=1&page=2', 'page', 'must be given once'],
      ['pageSize=101', 'pageSize', 'must be at most 100'],
      ['pageSize=0', 'pageSize', 'must be a whole number from 1'],
      ['page=1000000000000000', 'page', 'must be a whole number from 1'],
      ["page=1'%20OR%20'1'='1", 'page', 'must be a whole number from 1'],
    ] as const) {
      it(`refuses ?${query} with 400 and target ${target}`, async () => {
        const response = await api(server, 'GET', `/api/v1/users?${query}`, admin);
        assert.equal(response.status, 400);
        const error = await readError(response);
        assert.equal(error.code, 'InvalidRequest');
        assert.deepEqual(error.details, [{ target, message }]);
      });
    }
  });

  describe('get', () => {
    it('answers the user', async () => {
      const response = await api(server, 'GET', '/api/v1/users/1', viewer);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { id: 1, name: 'Ada Lovelace', email: 'ada.lovelace@example.com' });
    });

    it('answers 404 NotFound for an unknown id', async () => {
      const response = await api(server, 'GET', '/api/v1/users/999999', viewer);
      assert.equal(response.status, 404);
      assert.deepEqual(await readError(response), { code: 'NotFound', message: 'There is no user with id 999999.' });
    });

    for (const id of ['0', '-1', 'abc', '1.5', '01', '1e3', '1000000000000000', "1'%20OR%201=1", '%00']) {
      it(`refuses the id ${decodeURIComponent(id)} with 400 and target id`, async () => {
        const response = await api(server, 'GET', `/api/v1/users/${id}`, viewer);
        assert.equal(response.status, 400);
        const error = await readError(response);
        assert.deepEqual(error.details, [{ target: 'id', message: 'must be a whole number from 1' }]);
      });
    }
  });

  describe('create', () => {
    it('answers 201 with the user and its Location', async () => {
      const response = await api(server, 'POST', '/api/v1/users', admin, {
        body: { name: '  Grace Hopper ', email: 'grace@navy.example' },
      });

      assert.equal(response.status, 201);
      const user = (await response.json()) as User;
      assert.equal(user.name, 'Grace Hopper');
      assert.equal(user.email, 'grace@navy.example');
      assert.ok(Number.isSafeInteger(user.id) && user.id > 42);
      assert.equal(response.headers.get('location'), `/api/v1/users/${user.id}`);
      assert.deepEqual(await (await api(server, 'GET', `/api/v1/users/${user.id}`, viewer)).json(), user);
    });

    it('never reuses the id of a deleted user', async () => {
      const first = (await (await api(server, 'POST', '/api/v1/users', admin, { body: newUser() })).json()) as User;
      await api(server, 'DELETE', `/api/v1/users/${first.id}`, admin);
      const second = (await (await api(server, 'POST', '/api/v1/users', admin, { body: newUser() })).json()) as User;
      assert.ok(second.id > first.id);
    });

    it('answers 409 Conflict for a taken e-mail, whatever its case', async () => {
      const response = await api(server, 'POST', '/api/v1/users', admin, {
        body: { name: 'Copy', email: 'ADA.Lovelace@example.com' },
      });
      assert.equal(response.status, 409);
      assert.deepEqual(await readError(response), {
        code: 'Conflict',
        message: 'The e-mail address is already taken.',
        details: [{ target: 'email', message: 'is already taken' }],
      });
    });

    it('lets exactly one of two concurrent creates with one e-mail win', async () => {
      const body = newUser();
      const statuses = await Promise.all(
        [1, 2].map(async () => (await api(server, 'POST', '/api/v1/users', admin, { body })).status),
      );
      assert.deepEqual(statuses.sort(), [201, 409]);
    });

    for (const [name, body, details] of [
      [
        'an empty object',
        {},
        [
          { target: 'name', message: 'is required' },
          { target: 'email', message: 'is required' },
        ],
      ],
      [
        'a malformed e-mail',
        { name: 'X', email: 'not-an-email' },
        [{ target: 'email', message: 'is not a well-formed e-mail address' }],
      ],
      ['a blank name', { name: '   ', email: 'blank@example.com' }, [{ target: 'name', message: 'must not be empty' }]],
      [
        'an id',
        { id: 5, name: 'X', email: 'x@example.com' },
        [{ target: 'id', message: 'is assigned by the server; leave it out' }],
      ],
      [
        'a 101-character name',
        { name: 'n'.repeat(101), email: 'long@example.com' },
        [{ target: 'name', message: 'must be at most 100 characters long' }],
      ],
    ] as const) {
      it(`refuses ${name} with 400 and a detail per field`, async () => {
        const response = await api(server, 'POST', '/api/v1/users', admin, { body });
        assert.equal(response.status, 400);
        const error = await readError(response);
        assert.equal(error.code, 'InvalidRequest');
        assert.deepEqual(error.details, details);
      });
    }

    it('counts characters, not UTF-16 units: 100 emoji make a valid name', async () => {
      const response = await api(server, 'POST', '/api/v1/users', admin, {
        body: { name: '🙂'.repeat(100), email: `emoji-${Date.now()}@example.com` },
      });
      assert.equal(response.status, 201);
    });

    it('refuses a viewer with 403 Forbidden', async () => {
      const response = await api(server, 'POST', '/api/v1/users', viewer, { body: newUser() });
      assert.equal(response.status, 403);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer error="insufficient_scope"');
      assert.equal((await readError(response)).code, 'Forbidden');
    });

    it('refuses another media type with 415', async () => {
      const response = await api(server, 'POST', '/api/v1/users', admin, {
        body: newUser(),
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      assert.equal(response.status, 415);
      assert.equal((await readError(response)).code, 'UnsupportedMediaType');
    });
  });

  describe('replace (PUT)', () => {
    let user: User;
    beforeEach(async () => {
      user = (await (await api(server, 'POST', '/api/v1/users', admin, { body: newUser() })).json()) as User;
    });

    it('answers 204 and stores the new fields', async () => {
      const response = await api(server, 'PUT', `/api/v1/users/${user.id}`, admin, {
        body: { id: user.id, name: 'Replaced', email: `replaced-${user.id}@example.com` },
      });
      assert.equal(response.status, 204);
      assert.equal(await response.text(), '');
      assert.deepEqual(await (await api(server, 'GET', `/api/v1/users/${user.id}`, admin)).json(), {
        id: user.id,
        name: 'Replaced',
        email: `replaced-${user.id}@example.com`,
      });
    });

    it('is idempotent: the same PUT twice gives 204 twice and the same user', async () => {
      const body = { name: 'Twice', email: `twice-${user.id}@example.com` };
      const first = await api(server, 'PUT', `/api/v1/users/${user.id}`, admin, { body });
      const stored = await (await api(server, 'GET', `/api/v1/users/${user.id}`, admin)).json();
      const second = await api(server, 'PUT', `/api/v1/users/${user.id}`, admin, { body });
      assert.deepEqual([first.status, second.status], [204, 204]);
      assert.deepEqual(await (await api(server, 'GET', `/api/v1/users/${user.id}`, admin)).json(), stored);
    });

    it('keeps its own e-mail (no conflict with itself)', async () => {
      const response = await api(server, 'PUT', `/api/v1/users/${user.id}`, admin, {
        body: { name: 'Same mail', email: user.email.toUpperCase() },
      });
      assert.equal(response.status, 204);
    });

    it('needs every field', async () => {
      const response = await api(server, 'PUT', `/api/v1/users/${user.id}`, admin, { body: { name: 'Only a name' } });
      assert.equal(response.status, 400);
      assert.deepEqual((await readError(response)).details, [{ target: 'email', message: 'is required' }]);
    });

    it('refuses an id in the body other than the path id', async () => {
      const response = await api(server, 'PUT', `/api/v1/users/${user.id}`, admin, {
        body: { id: user.id + 1, name: 'X', email: 'x@example.com' },
      });
      assert.equal(response.status, 400);
      assert.deepEqual((await readError(response)).details, [
        { target: 'id', message: `must match the id in the path (${user.id})` },
      ]);
    });

    it('answers 409 for another user’s e-mail and 404 for an unknown id', async () => {
      const conflict = await api(server, 'PUT', `/api/v1/users/${user.id}`, admin, {
        body: { name: 'X', email: 'alan.turing@example.com' },
      });
      const missing = await api(server, 'PUT', '/api/v1/users/987654', admin, { body: newUser() });
      assert.equal(conflict.status, 409);
      assert.equal(missing.status, 404);
      assert.equal((await readError(missing)).code, 'NotFound');
    });

    it('refuses a viewer with 403', async () => {
      assert.equal((await api(server, 'PUT', `/api/v1/users/${user.id}`, viewer, { body: newUser() })).status, 403);
    });
  });

  describe('patch (JSON Merge Patch)', () => {
    let user: User;
    beforeEach(async () => {
      user = (await (await api(server, 'POST', '/api/v1/users', admin, { body: newUser() })).json()) as User;
    });

    const patch = (id: number, body: unknown, token = admin) =>
      api(server, 'PATCH', `/api/v1/users/${id}`, token, {
        body,
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });

    it('changes only the given fields and answers 200 with the user', async () => {
      const response = await patch(user.id, { name: 'Patched' });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { ...user, name: 'Patched' });
    });

    it('accepts an empty patch and changes nothing', async () => {
      const response = await patch(user.id, {});
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), user);
    });

    it('refuses null (removing a required field)', async () => {
      const response = await patch(user.id, { email: null });
      assert.equal(response.status, 400);
      assert.deepEqual((await readError(response)).details, [
        { target: 'email', message: 'is required and cannot be removed' },
      ]);
    });

    it('refuses application/json with 415 UnsupportedMediaType', async () => {
      const response = await api(server, 'PATCH', `/api/v1/users/${user.id}`, admin, { body: { name: 'X' } });
      assert.equal(response.status, 415);
      assert.equal((await readError(response)).code, 'UnsupportedMediaType');
    });

    it('answers 409 for a taken e-mail, 404 for an unknown id, 403 for a viewer', async () => {
      assert.equal((await patch(user.id, { email: 'ada.lovelace@example.com' })).status, 409);
      assert.equal((await patch(987654, { name: 'X' })).status, 404);
      assert.equal((await patch(user.id, { name: 'X' }, viewer)).status, 403);
    });
  });

  describe('delete', () => {
    it('answers 204, then 404 for the same id', async () => {
      const user = (await (await api(server, 'POST', '/api/v1/users', admin, { body: newUser() })).json()) as User;
      const first = await api(server, 'DELETE', `/api/v1/users/${user.id}`, admin);
      const second = await api(server, 'DELETE', `/api/v1/users/${user.id}`, admin);
      assert.equal(first.status, 204);
      assert.equal(second.status, 404);
      assert.equal((await api(server, 'GET', `/api/v1/users/${user.id}`, admin)).status, 404);
    });

    it('refuses a viewer with 403 and keeps the user', async () => {
      assert.equal((await api(server, 'DELETE', '/api/v1/users/2', viewer)).status, 403);
      assert.equal((await api(server, 'GET', '/api/v1/users/2', viewer)).status, 200);
    });
  });

  describe('versioning', () => {
    it('serves /api/users with Accept: application/vnd.showcase.v1+json, answering in that media type', async () => {
      const response = await api(server, 'GET', '/api/users/1', viewer, { headers: { Accept: V1 } });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/vnd\.showcase\.v1\+json(;|$)/);
      assert.equal(((await response.json()) as User).id, 1);
    });

    it('runs every operation through the Accept style too, with Location under /api/users', async () => {
      const headers = { Accept: V1 };
      const created = await api(server, 'POST', '/api/users', admin, { body: newUser(), headers });
      assert.equal(created.status, 201);
      const user = (await created.json()) as User;
      assert.equal(created.headers.get('location'), `/api/users/${user.id}`);
      const list = await api(server, 'GET', '/api/users?page=1&pageSize=2', admin, { headers });
      assert.equal(list.status, 200);
      const put = await api(server, 'PUT', `/api/users/${user.id}`, admin, { body: newUser(), headers });
      assert.equal(put.status, 204);
      const patched = await api(server, 'PATCH', `/api/users/${user.id}`, admin, {
        body: { name: 'Via Accept' },
        headers: { ...headers, 'Content-Type': 'application/merge-patch+json' },
      });
      assert.equal(patched.status, 200);
      assert.equal((await api(server, 'DELETE', `/api/users/${user.id}`, admin, { headers })).status, 204);
    });

    it('takes the media type among others, with parameters and in any case', async () => {
      const accept = `text/html, Application/Vnd.Showcase.V1+JSON; charset=utf-8;q=0.9`;
      assert.equal((await api(server, 'GET', '/api/users/1', viewer, { headers: { Accept: accept } })).status, 200);
    });

    for (const [accept, message] of [
      [undefined, /Say which version/],
      ['application/json', /Say which version/],
      ['application/vnd.showcase.v2+json', /Version 2 of the users API does not exist/],
      [`${V1};q=0`, /Say which version/],
    ] as const) {
      it(`answers /api/users with Accept: ${accept ?? '(none)'} with 406 NotAcceptable`, async () => {
        const response = await fetch(`${server.url}/api/users`, {
          headers: { Authorization: `Bearer ${viewer}`, ...(accept ? { Accept: accept } : {}) },
        });
        assert.equal(response.status, 406);
        const error = await readError(response);
        assert.equal(error.code, 'NotAcceptable');
        assert.match(error.message, message);
      });
    }

    it('answers an unknown path version with 404', async () => {
      for (const path of ['/api/v2/users', '/api/v2/users/1', '/api/v0/users']) {
        const response = await api(server, 'GET', path, viewer);
        assert.equal(response.status, 404, path);
        assert.match((await readError(response)).message, /Version v\d of the users API does not exist/);
      }
    });

    it('negotiates the version before checking the token (406 without a token)', async () => {
      const response = await fetch(`${server.url}/api/users`, {
        headers: { Accept: 'application/vnd.showcase.v9+json' },
      });
      assert.equal(response.status, 406);
    });
  });

  describe('methods', () => {
    for (const [path, method, allow] of [
      ['/api/v1/users', 'PUT', 'GET, HEAD, POST'],
      ['/api/v1/users', 'DELETE', 'GET, HEAD, POST'],
      ['/api/v1/users/1', 'POST', 'GET, HEAD, PUT, PATCH, DELETE'],
      ['/api/users/1', 'POST', 'GET, HEAD, PUT, PATCH, DELETE'],
    ] as const) {
      it(`answers ${method} ${path} with 405 and Allow: ${allow}`, async () => {
        const response = await api(server, method, path, admin);
        assert.equal(response.status, 405);
        assert.equal(response.headers.get('allow'), allow);
        assert.equal((await readError(response)).code, 'MethodNotAllowed');
      });
    }

    it('answers HEAD like GET without a body', async () => {
      const response = await api(server, 'HEAD', '/api/v1/users/1', admin);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), '');
    });

    it('takes a trailing slash as the same resource', async () => {
      assert.equal((await api(server, 'GET', '/api/v1/users/', viewer)).status, 200);
      assert.equal((await api(server, 'GET', '/api/v1/users/1/', viewer)).status, 200);
    });
  });
});

let counter = 0;
function newUser(): { name: string; email: string } {
  counter++;
  return { name: `Test User ${counter}`, email: `test-${process.pid}-${Date.now()}-${counter}@example.com` };
}
