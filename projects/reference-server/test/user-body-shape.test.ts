import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { checkUserBodyShape, invalidRequest } from '#contract';

import { type TestServer, api, login, readError, startTestServer } from './start-test-server.js';

/**
 * The server checks a user body's shape with its JSON schema (Ajv); the showcase's in-memory backend,
 * which has none, with the contract's `checkUserBodyShape`. Both must answer alike: every body here
 * goes to the server, and its answer must be what the contract gives.
 */
const BODIES: readonly unknown[] = [
  { name: 'Ada', email: 'ada@example.com', extra: 1 },
  { extra: 1 },
  { extra: 1, name: 5 },
  { name: 'Ada', email: 'ada@example.com', x1: 1, x2: 2 },
  { name: 5, email: 'ada@example.com' },
  { name: null, email: null },
  { id: 1.5, name: 'Ada', email: 'ada@example.com' },
  { id: '1', name: 'Ada' },
  { name: 'A'.repeat(1001), email: 'ada@example.com' },
  { name: '😀'.repeat(1000), email: ['ada@example.com'] },
  Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`k${i}`, i])),
  [],
  [{ name: 'Ada' }],
  'Ada',
  42,
  null,
  {},
];

describe('the shape of a user body: the server and the contract agree', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = (await login(server)).accessToken;
  });
  after(() => server.close());

  const modes = [
    { mode: 'create', method: 'POST', path: '/api/v1/users', headers: {} },
    { mode: 'replace', method: 'PUT', path: '/api/v1/users/1', headers: {} },
    {
      mode: 'patch',
      method: 'PATCH',
      path: '/api/v1/users/1',
      headers: { 'Content-Type': 'application/merge-patch+json' },
    },
  ] as const;

  for (const { mode, method, path, headers } of modes) {
    it(`answers ${method} as checkUserBodyShape(body, '${mode}') says, for ${BODIES.length} bodies`, async () => {
      let refused = 0;
      for (const body of BODIES) {
        const problems = checkUserBodyShape(body, mode);
        const response = await api(server, method, path, token, { body, headers });
        if (problems.length === 0) {
          // The shape passes; whatever the content rules then say, it is not a shape refusal.
          if (response.status === 400) {
            assert.doesNotMatch((await readError(response)).message, /^The request is not valid/, JSON.stringify(body));
          }
          continue;
        }
        refused++;
        assert.equal(response.status, 400, JSON.stringify(body));
        const { message, details } = invalidRequest(problems);
        assert.deepEqual(await readError(response), { code: 'InvalidRequest', message, details }, JSON.stringify(body));
      }
      assert.ok(refused >= 10, `${refused} bodies refused by their shape`);
    });
  }
});
