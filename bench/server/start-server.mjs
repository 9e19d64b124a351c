/* global fetch */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';

import { freePort } from './process-stats.mjs';
import { jwtSecret, root } from './settings.mjs';

/**
 * Starts the built server (dist/main.js) on a free loopback port as `npm run server` would, with the
 * demo data, `env` added to the bench's own settings, and waits for its first answer.
 * `stop()` ends it and waits for its exit.
 */
export async function startServer(env = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, ['projects/reference-server/dist/main.js'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      JWT_SECRET: jwtSecret,
      COOKIE_SECURE: 'false',
      ...env,
    },
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
  };
  try {
    await waitUntilUp(url, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, child, startupMs: performance.now() - started, stop };
}

async function waitUntilUp(url, child) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      await fetch(`${url}/openapi.json`);
      return;
    } catch {
      await delay(20);
    }
  }
  throw new Error('the server did not answer within 120 s');
}
