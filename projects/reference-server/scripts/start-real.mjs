// `npm run start:real`: the showcase against the reference server, in development. Starts the built
// server (dist/main.js, see `npm run build:server`) on 127.0.0.1:3000 with the embedded database,
// waits until it answers, then runs `ng serve showcase -c real`, whose proxy (projects/showcase/
// proxy.real.json) forwards /auth and /api to it: one origin, http://localhost:4200. Ctrl+C stops
// both; so does either one ending.
//
// Made to show the mechanism within a minute, as the in-memory showcase does: access tokens live
// 30 seconds (ACCESS_TOKEN_TTL_SECONDS, unless set), and the server offers the auth lab's "Expire
// access token now" (DEV_LAB_ROUTES=true, development only). The server's JSON log goes to a file,
// so it does not bury ng serve's output; its warnings and errors are also printed here, one line each.
//
// `npm run start:real -- --dpop`: DPoP (RFC 9449) end to end: the server with DPOP=required, and the
// showcase's `real-dpop` build, which signs every call with `withDPoP()` and whose auth lab shows the
// last proof, decoded.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const serverUrl = 'http://127.0.0.1:3000';
const logFile = join(root, 'test-results', 'start-real', 'server.log');
const accessTokenTtl = process.env.ACCESS_TOKEN_TTL_SECONDS ?? '30';
const dpop = process.argv.includes('--dpop');

mkdirSync(join(root, 'test-results', 'start-real'), { recursive: true });
const log = createWriteStream(logFile, { flags: 'w' });
const server = spawn(process.execPath, ['projects/reference-server/dist/main.js'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: {
    ...process.env,
    // A development server, whatever NODE_ENV the shell has: production refuses the plain-HTTP cookie below.
    NODE_ENV: 'development',
    // Where proxy.real.json points.
    PORT: '3000',
    HOST: '127.0.0.1',
    // The dev server is plain HTTP; browsers other than Chrome and Firefox drop a Secure cookie there.
    COOKIE_SECURE: process.env.COOKIE_SECURE ?? 'false',
    // Nor does it speak HTTPS, whatever NODE_ENV says.
    HTTPS_ONLY: process.env.HTTPS_ONLY ?? 'false',
    // Short enough to watch a token expire and be refreshed; the production default is 15 minutes.
    ACCESS_TOKEN_TTL_SECONDS: accessTokenTtl,
    // The auth lab's "Expire access token now", backed by the server: never on unless asked for.
    DEV_LAB_ROUTES: 'true',
    // Tokens bound to the browser's key; without --dpop, whatever the shell says (off by default).
    ...(dpop ? { DPOP: 'required' } : {}),
  },
});
for (const stream of [server.stdout, server.stderr]) {
  createInterface({ input: stream }).on('line', (line) => {
    log.write(`${line}\n`);
    const summary = summarize(line);
    if (summary !== null) console.error(`[server] ${summary}`);
  });
}
console.log(
  `[server] ${serverUrl}: access tokens live ${accessTokenTtl} s, the auth lab can expire them; ` +
    `${dpop ? 'DPoP required; ' : ''}full log in ${logFile} (warnings and errors also here)`,
);
let ng = null;
let stopping = false;

const stop = (code) => {
  if (stopping) return;
  stopping = true;
  for (const child of [ng, server]) if (child && child.exitCode === null) child.kill('SIGTERM');
  process.exitCode = code;
};
server.on('exit', (code) => stop(code ?? 1));
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

for (let attempt = 0; attempt < 240 && !stopping && !(await answers(serverUrl)); attempt++) await delay(250);
if (!stopping) {
  ng = spawn(
    process.execPath,
    ['node_modules/@angular/cli/bin/ng.js', 'serve', 'showcase', '-c', dpop ? 'real-dpop' : 'real'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  ng.on('exit', (code) => stop(code ?? 0));
}

/**
 * One line for the terminal, or `null` to keep it in the file only: the server's JSON log lines
 * below warn (pino's level 40) stay in the file; anything else (a warning, an error, a crash's stack
 * on stderr) is shown, a JSON line shortened to its level, message, request and error.
 */
function summarize(line) {
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return line.trim() === '' ? null : line;
  }
  if (typeof entry !== 'object' || entry === null || typeof entry.level !== 'number') return line;
  if (entry.level < 40) return null;
  const level = entry.level >= 50 ? 'ERROR' : 'WARN';
  const request = entry.req ? ` (${entry.req.method} ${entry.req.url})` : '';
  const error = entry.err?.message && entry.err.message !== entry.msg ? `: ${entry.err.message}` : '';
  return `${level} ${entry.msg ?? ''}${request}${error}`;
}

/** Whether anything answers HTTP at `url` (a 401 from the users API counts). */
function answers(url) {
  return new Promise((resolve) => {
    const request = get(`${url}/api/v1/users`, (response) => {
      response.resume();
      resolve(true);
    });
    request.on('error', () => resolve(false));
    request.setTimeout(1000, () => request.destroy());
  });
}
