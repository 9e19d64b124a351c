import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';

/**
 * The API both paths call, on 127.0.0.1: `GET /api/items/<id>` answers a small JSON for a live access
 * token of `provider` (oidc-provider, in this process), and 401 `invalid_token` for any other (an
 * expired, revoked or unknown one, or none). The check is a look-up in the provider's own token store
 * (a few µs), so the API costs the same on both paths and little on either: what the BFF adds stands out.
 *
 * It also notes, for each account, every access token it saw: when it first came, and when the provider
 * issued it and ends it. That is how the bench counts expiries (see `countExpiries`).
 * - `GET /__stub/report`: `{ answers: { <status>: n }, sightings: { <account>: [{ firstSeen, iat, exp }] } }`
 * - `POST /__stub/reset`: forgets both.
 */
export async function createApiStub(provider) {
  let answers = {};
  let seen = new Map();
  const answer = (res, status, body, headers = {}) => {
    answers[status] = (answers[status] ?? 0) + 1;
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  };
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://stub.invalid');
    if (pathname === '/__stub/report') {
      const sightings = {};
      for (const sighting of seen.values()) (sightings[sighting.account] ??= []).push(sighting);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answers, sightings }));
      return;
    }
    if (pathname === '/__stub/reset') {
      [answers, seen] = [{}, new Map()];
      res.writeHead(204).end();
      return;
    }
    const item = /^\/api\/items\/(\d+)$/.exec(pathname);
    if (req.method !== 'GET' || item === null) {
      answer(res, 404, { error: { code: 'NotFound', message: 'no such route' } });
      return;
    }
    const [scheme, value] = (req.headers.authorization ?? '').split(' ');
    const found = scheme === 'Bearer' && value ? provider.AccessToken.find(value) : Promise.resolve(undefined);
    found.then(
      (token) => {
        if (token === undefined) {
          answer(
            res,
            401,
            { error: { code: 'Unauthorized', message: 'token refused' } },
            {
              'www-authenticate': 'Bearer error="invalid_token"',
            },
          );
          return;
        }
        if (!seen.has(value)) {
          seen.set(value, { account: token.accountId, firstSeen: Date.now(), iat: token.iat, exp: token.exp });
        }
        answer(res, 200, { id: Number(item[1]), name: `item ${item[1]}`, owner: token.accountId });
      },
      (error) => answer(res, 500, { error: { code: 'StubError', message: String(error) } }),
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}
