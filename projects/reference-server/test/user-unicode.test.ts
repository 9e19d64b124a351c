import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { type TestServer, api, login, readError, startTestServer } from './start-test-server.js';

interface User {
  id: number;
  name: string;
  email: string;
}

const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };

describe('users API: Unicode in names and e-mail addresses', () => {
  let server: TestServer;
  let admin: string;
  let serial = 0;
  /** A mailbox no other test uses, so every case starts from a free address. */
  const fresh = (prefix: string) => `${prefix}${++serial}`;
  before(async () => {
    server = await startTestServer();
    admin = (await login(server)).accessToken;
  });
  after(() => server.close());

  const create = (body: unknown) => api(server, 'POST', '/api/v1/users', admin, { body });

  describe('one address, written two ways, is one user (409 for the second)', () => {
    for (const [name, first, second] of [
      [
        'NFC, then NFD',
        (box: string) => `jos\u00e9${box}@example.com`,
        (box: string) => `jose\u0301${box}@example.com`,
      ],
      [
        'NFD, then NFC',
        (box: string) => `jose\u0301${box}@example.com`,
        (box: string) => `jos\u00e9${box}@example.com`,
      ],
      [
        'ASCII, then fullwidth letters',
        (box: string) => `jose${box}@example.com`,
        (box: string) => `\uff4a\uff4f\uff53\uff45${box}@example.com`,
      ],
      [
        'fullwidth letters, then ASCII',
        (box: string) => `\uff4a\uff4f\uff53\uff45${box}\uff20example.com`,
        (box: string) => `jose${box}@example.com`,
      ],
      [
        'lower, then upper case beyond ASCII',
        (box: string) => `jos\u00e9${box}@example.com`,
        (box: string) => `JOS\u00c9${box}@EXAMPLE.COM`,
      ],
      ['ß, then ss', (box: string) => `stra\u00dfe${box}@example.com`, (box: string) => `STRASSE${box}@example.com`],
    ] as const) {
      it(`on create: ${name}`, async () => {
        const box = fresh('.c');
        const created = await create({ name: 'José', email: first(box) });
        assert.equal(created.status, 201);

        const again = await create({ name: 'José 2', email: second(box) });
        assert.equal(again.status, 409);
        assert.deepEqual((await readError(again)).details, [{ target: 'email', message: 'is already taken' }]);
      });
    }

    it('on replace and patch: another user’s address in another form is taken, the own one is not', async () => {
      const box = fresh('.u');
      const owner = (await (await create({ name: 'José', email: `jos\u00e9${box}@example.com` })).json()) as User;
      const other = (await (await create({ name: 'Other', email: `other${box}@example.com` })).json()) as User;
      const nfd = `JOSE\u0301${box}@example.com`;

      const put = await api(server, 'PUT', `/api/v1/users/${other.id}`, admin, { body: { name: 'Other', email: nfd } });
      assert.equal(put.status, 409);
      const patch = await api(server, 'PATCH', `/api/v1/users/${other.id}`, admin, {
        body: { email: nfd },
        headers: MERGE_PATCH,
      });
      assert.equal(patch.status, 409);
      const own = await api(server, 'PUT', `/api/v1/users/${owner.id}`, admin, { body: { name: 'José', email: nfd } });
      assert.equal(own.status, 204);
    });

    it('frees the address when its user changes to another one', async () => {
      const box = fresh('.f');
      const user = (await (await create({ name: 'José', email: `jos\u00e9${box}@example.com` })).json()) as User;
      await api(server, 'PATCH', `/api/v1/users/${user.id}`, admin, {
        body: { email: `moved${box}@example.com` },
        headers: MERGE_PATCH,
      });
      assert.equal((await create({ name: 'José', email: `jose\u0301${box}@example.com` })).status, 201);
    });
  });

  it('stores the address in compatibility form (NFKC) with the case as typed, and the name in NFC', async () => {
    const box = fresh('.s');
    const response = await create({
      name: 'Jose\u0301 Garci\u0301a',
      email: `\uff2a\uff4f\uff53\uff45${box}\uff20Example.com`,
    });
    assert.equal(response.status, 201);
    const user = (await response.json()) as User;
    assert.equal(user.name, 'Jos\u00e9 Garc\u00eda');
    assert.equal(user.email, `Jose${box}@Example.com`);
    assert.deepEqual(await (await api(server, 'GET', `/api/v1/users/${user.id}`, admin)).json(), user);
  });

  it('refuses an e-mail mixing Latin with a Cyrillic or Greek look-alike: 400, no second account', async () => {
    const box = fresh('.s');
    assert.equal((await create({ name: 'Ada', email: `ada${box}@example.com` })).status, 201);
    const count = async () => ((await (await api(server, 'GET', '/api/v1/users', admin)).json()) as User[]).length;
    const before = await count();
    // Cyrillic а (U+0430), Greek α (U+03B1), Cyrillic о (U+043E) for Latin a, a and o.
    for (const email of [`\u0430da${box}@example.com`, `ad\u03b1${box}@example.com`, `j\u043ehn${box}@example.com`]) {
      const response = await create({ name: 'Ada', email });
      assert.equal(response.status, 400, email);
      const error = await readError(response);
      assert.equal(error.code, 'InvalidRequest');
      assert.deepEqual(error.details, [{ target: 'email', message: 'must not mix Latin, Greek and Cyrillic letters' }]);
    }
    assert.equal(await count(), before);
    // One script alone is fine, Cyrillic included (digits and dots belong to none).
    const cyrillic = `\u0438\u0432\u0430\u043d.${serial}@example.com`;
    assert.equal((await create({ name: 'Иван', email: cyrillic })).status, 201);
  });

  describe('an address that looks like a taken one is taken (UTS #39 skeleton): 409 Conflict', () => {
    // The demo data's user 1 is ada.lovelace@example.com.
    for (const [name, email] of [
      ['Armenian օ (U+0585)', 'ada.l\u0585velace@example.com'],
      ['Latin alpha ɑ (U+0251)', '\u0251da.lovelace@example.com'],
      ['small capital ᴀ (U+1D00)', '\u1d00da.lovelace@example.com'],
      ['Cherokee Ꭺ (U+13AA)', '\u13aada.lovelace@example.com'],
      ['a digit 1 for l, and a look-alike domain', 'ada.1ovelace@examp1e.com'],
    ] as const) {
      it(`on create: ${name}`, async () => {
        const response = await create({ name: 'Ada', email });
        assert.equal(response.status, 409, email);
        const error = await readError(response);
        assert.equal(error.code, 'Conflict');
        assert.deepEqual(error.details, [{ target: 'email', message: 'is already taken' }]);
      });
    }

    it('on create and patch: a wholly Cyrillic look-alike of a Latin address', async () => {
      const box = ++serial;
      assert.equal((await create({ name: 'Coco', email: `coco${box}@example.com` })).status, 201);
      // с, о, с, о: Cyrillic ES and O, one script, so the mixed-script rule lets it through.
      const cyrillic = `\u0441\u043e\u0441\u043e${box}@example.com`;
      const response = await create({ name: 'Coco', email: cyrillic });
      assert.equal(response.status, 409);
      assert.equal((await readError(response)).code, 'Conflict');

      const other = (await (await create({ name: 'Other', email: `other${fresh('.k')}@example.com` })).json()) as User;
      const patch = await api(server, 'PATCH', `/api/v1/users/${other.id}`, admin, {
        body: { email: cyrillic },
        headers: MERGE_PATCH,
      });
      assert.equal(patch.status, 409);
    });

    it('keeps addresses that only share a prefix apart: ada.lovelace2@ is a user of its own', async () => {
      assert.equal((await create({ name: 'Ada 2', email: 'ada.lovelace2@example.com' })).status, 201);
    });
  });

  describe('refuses invisible format characters with 400 InvalidRequest and a detail', () => {
    for (const [name, field, value, codePoint] of [
      ['a zero-width space in a name', 'name', 'Ada\u200bLovelace', 'U+200B'],
      ['a right-to-left override in a name', 'name', 'Ada \u202eecalevoL', 'U+202E'],
      ['a byte-order mark inside a name', 'name', 'Ada\ufeffLovelace', 'U+FEFF'],
      ['a word joiner in a name', 'name', 'Ada\u2060Lovelace', 'U+2060'],
      ['a soft hyphen in a name', 'name', 'Love\u00adlace', 'U+00AD'],
      ['a zero-width joiner between spaces in a name', 'name', 'Ada \u200d Lovelace', 'U+200D'],
      ['a zero-width space in an e-mail', 'email', 'ada\u200b@example.com', 'U+200B'],
      ['a zero-width non-joiner in an e-mail', 'email', 'a\u200cb@example.com', 'U+200C'],
      ['a right-to-left override in an e-mail', 'email', '\u202emoc.elpmaxe@ada', 'U+202E'],
      ['a byte-order mark inside an e-mail', 'email', 'ada\ufeff@example.com', 'U+FEFF'],
    ] as const) {
      it(`on create: ${name}`, async () => {
        const body = { name: 'Ok', email: `ok${fresh('.i')}@example.com`, [field]: value };
        const response = await create(body);
        assert.equal(response.status, 400);
        const error = await readError(response);
        assert.equal(error.code, 'InvalidRequest');
        assert.deepEqual(error.details, [
          { target: field, message: `must not contain invisible characters (${codePoint})` },
        ]);
      });
    }

    it('on patch too, changing nothing', async () => {
      const user = (await (await create({ name: 'Plain', email: `plain${fresh('.p')}@example.com` })).json()) as User;
      const response = await api(server, 'PATCH', `/api/v1/users/${user.id}`, admin, {
        body: { name: 'Pl\u200bain' },
        headers: MERGE_PATCH,
      });
      assert.equal(response.status, 400);
      assert.deepEqual(await (await api(server, 'GET', `/api/v1/users/${user.id}`, admin)).json(), user);
    });
  });

  for (const [name, value] of [
    ['an emoji sequence', '\u{1f469}\u200d\u{1f4bb} Ada'],
    ['a Persian word with a non-joiner', '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645'],
    ['a flag of a subdivision', '\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f} Ada'],
  ] as const) {
    it(`accepts the joiners writing needs in a name: ${name}`, async () => {
      const response = await create({ name: value, email: `ok${fresh('.j')}@example.com` });
      assert.equal(response.status, 201);
      assert.equal(((await response.json()) as User).name, value);
    });
  }
});
