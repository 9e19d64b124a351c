// `npm run start:real`: the showcase against the reference server, in development. Starts the built
// server (dist/main.js, see `npm run build:server`) on 127.0.0.1:3000 with the embedded database,
// waits until it answers, then runs `ng serve showcase -c real`, whose proxy (projects/showcase/
// proxy.real.mjs) forwards /auth and /api to it: one origin, http://localhost:4200. SERVER_PORT and
// PORT move them (`SERVER_PORT=3001 PORT=4201 npm run start:real`). Ctrl+C stops both; so does
// either one ending.
//
// Made to show the mechanism within a minute, as the in-memory showcase does: access tokens live
// 30 seconds (ACCESS_TOKEN_TTL_SECONDS, unless set), and the server offers the auth lab's "Expire
// access token now" (DEV_LAB_ROUTES=true, development only). The server's JSON log goes to a file,
// so it does not bury ng serve's output; its warnings and errors are also printed here, one line each,
// except the two about settings this script chose for development (no JWT_SECRET, COOKIE_SECURE=false):
// the first line printed here says what they mean instead.
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
const serverPort = port('SERVER_PORT', 3000);
const pagePort = port('PORT', 4200);
const serverUrl = `http://127.0.0.1:${serverPort}`;
const logFile = join(root, 'test-results', 'start-real', 'server.log');
const accessTokenTtl = process.env.ACCESS_TOKEN_TTL_SECONDS ?? '30';
const dpop = process.argv.includes('--dpop');
// The dev server is plain HTTP; browsers other than Chrome and Firefox drop a Secure cookie there.
const cookieSecure = process.env.COOKIE_SECURE ?? 'false';
// No JWT_SECRET: the server makes a signing key at each start.
const randomKey = !process.env.JWT_SECRET;

mkdirSync(join(root, 'test-results', 'start-real'), { recursive: true });
const log = createWriteStream(logFile, { flags: 'w' });
const server = spawn(process.execPath, ['projects/reference-server/dist/main.js'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: {
    ...process.env,
    // A development server, whatever NODE_ENV the shell has: production refuses the plain-HTTP cookie below.
    NODE_ENV: 'development',
    // Where proxy.real.mjs points (it reads SERVER_PORT too).
    PORT: String(serverPort),
    HOST: '127.0.0.1',
    COOKIE_SECURE: cookieSecure,
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
// What the server warns about at every start in this setup, said once here as what it means.
const development = [
  randomKey
    ? 'tokens signed with a key made at start-up (a restart signs everyone out; set JWT_SECRET to keep it)'
    : '',
  cookieSecure === 'false' ? 'the refresh cookie without Secure, since the dev server is plain HTTP' : '',
].filter(Boolean);
if (development.length > 0) console.log(`[server] for development: ${development.join('; ')}`);
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
    [
      'node_modules/@angular/cli/bin/ng.js',
      'serve',
      'showcase',
      '-c',
      dpop ? 'real-dpop' : 'real',
      '--port',
      String(pagePort),
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, SERVER_PORT: String(serverPort) },
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
  if (entry.level === 40 && expectedWarning(String(entry.msg ?? ''))) return null;
  const level = entry.level >= 50 ? 'ERROR' : 'WARN';
  const request = entry.req ? ` (${entry.req.method} ${entry.req.url})` : '';
  const error = entry.err?.message && entry.err.message !== entry.msg ? `: ${entry.err.message}` : '';
  return `${level} ${entry.msg ?? ''}${request}${error}`;
}

/** The server's warnings about the development settings announced at start (they stay in the log file). */
function expectedWarning(message) {
  return (
    (randomKey && message.startsWith('JWT_SECRET is not set')) ||
    (cookieSecure === 'false' && message.startsWith('COOKIE_SECURE=false'))
  );
}

/** The port in the environment variable `name`, or `fallback`; exits with a message if it is no port. */
function port(name, fallback) {
  const text = process.env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (Number.isInteger(value) && value > 0 && value < 65536) return value;
  console.error(`start:real: ${name} must be a TCP port (1 to 65535), got ${JSON.stringify(text)}`);
  process.exit(1);
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
