/* global setTimeout */
// A stub of the API the integration apps call: plain node:http, no framework, all state in memory.
//
//   GET  /api/profile    Authorization: Bearer at.<user>.<n>: 200 { user, token } when <n> is the
//                        user's current token (n >= 1), else 401. at.<user>.0 is the expired token a
//                        session starts with.
//   POST /auth/refresh   cookie rt=rt.<user>: 200 { accessToken: at.<user>.<n+1> } and Set-Cookie
//                        rt=rt.<user> after REFRESH_DELAY_MS (so that concurrent renders overlap),
//                        else 401.
//   GET  /__calls        every call above, in arrival order: { method, path, token, refreshUser,
//                        cookie, status, start, end }
//   POST /__reset        forgets the tokens and the calls.
//
// Usage: node stub-api.mjs [port]  (0 or none: a free port), prints "stub-api listening on <url>".
// Or import { startStubApi } and await it: { url, calls(), reset(), close() }.
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

export const REFRESH_DELAY_MS = 300;

export function parseToken(token) {
  const match = /^at\.([a-z]+)\.(\d+)$/.exec(token ?? '');
  return match ? { user: match[1], n: Number(match[2]) } : null;
}

function readCookie(header, name) {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return null;
}

export function startStubApi(port = 0) {
  /** user -> number of the user's current access token (0: none valid yet) */
  const current = new Map();
  const calls = [];

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const send = (status, body, record, headers = {}) => {
      if (record) Object.assign(record, { status, end: Date.now() });
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
      res.end(JSON.stringify(body));
    };
    req.resume();

    if (url.pathname === '/__calls' && req.method === 'GET') return send(200, calls);
    if (url.pathname === '/__reset' && req.method === 'POST') {
      current.clear();
      calls.length = 0;
      return send(200, { reset: true });
    }

    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
    const refreshCookie = readCookie(req.headers.cookie, 'rt');
    const record = {
      method: req.method,
      path: url.pathname,
      token: bearer,
      refreshUser: /^rt\.([a-z]+)$/.exec(refreshCookie ?? '')?.[1] ?? null,
      cookie: req.headers.cookie ?? null,
      status: 0,
      start: Date.now(),
      end: 0,
    };
    calls.push(record);

    if (url.pathname === '/api/profile' && req.method === 'GET') {
      const token = parseToken(bearer);
      if (token && token.n >= 1 && current.get(token.user) === token.n) {
        return send(200, { user: token.user, token: bearer }, record);
      }
      return send(401, { error: { code: 'Unauthorized', message: 'expired or unknown token' } }, record);
    }
    if (url.pathname === '/auth/refresh' && req.method === 'POST') {
      const user = record.refreshUser;
      if (!user) return send(401, { error: { code: 'Unauthorized', message: 'no refresh cookie' } }, record);
      const n = (current.get(user) ?? 0) + 1;
      current.set(user, n);
      // The cookie set again, as a rotating server does: a render must pass it on to the browser.
      const cookie = `rt=rt.${user}; Path=/; HttpOnly; SameSite=Strict`;
      setTimeout(
        () => send(200, { accessToken: `at.${user}.${n}` }, record, { 'set-cookie': cookie }),
        REFRESH_DELAY_MS,
      );
      return;
    }
    return send(404, { error: { code: 'NotFound', message: 'no such route' } }, record);
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: actual } = server.address();
      resolve({
        url: `http://127.0.0.1:${actual}`,
        calls: () => calls.map((call) => ({ ...call })),
        reset: () => {
          current.clear();
          calls.length = 0;
        },
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const stub = await startStubApi(Number(process.argv[2] ?? 0));
  console.log(`stub-api listening on ${stub.url}`);
}
