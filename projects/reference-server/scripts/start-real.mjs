// `npm run start:real`: the showcase against the reference server, in development. Starts the built
// server (dist/main.js, see `npm run build:server`) on 127.0.0.1:3000 with the embedded database,
// waits until it answers, then runs `ng serve showcase -c real`, whose proxy (projects/showcase/
// proxy.real.json) forwards /auth and /api to it: one origin, http://localhost:4200. Ctrl+C stops
// both; so does either one ending.
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const serverUrl = 'http://127.0.0.1:3000';

const server = spawn(process.execPath, ['projects/reference-server/dist/main.js'], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    // Where proxy.real.json points.
    PORT: '3000',
    HOST: '127.0.0.1',
    // The dev server is plain HTTP; browsers other than Chrome and Firefox drop a Secure cookie there.
    COOKIE_SECURE: process.env.COOKIE_SECURE ?? 'false',
    // Nor does it speak HTTPS, whatever NODE_ENV says.
    HTTPS_ONLY: process.env.HTTPS_ONLY ?? 'false',
  },
});
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
  ng = spawn(process.execPath, ['node_modules/@angular/cli/bin/ng.js', 'serve', 'showcase', '-c', 'real'], {
    cwd: root,
    stdio: 'inherit',
  });
  ng.on('exit', (code) => stop(code ?? 0));
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
