import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

// `npm run server` on a fresh clone: no configuration at all (the embedded in-memory database, a
// generated key), the demo accounts seeded, and a clean exit on SIGTERM.
describe('main (npm run server)', () => {
  it('starts with no configuration, serves the demo accounts, says what it generated, and stops on SIGTERM', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'info' };
    for (const name of ['DATABASE_URL', 'PGLITE_DATA_DIR', 'JWT_SECRET', 'HOST']) delete env[name];
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const lines = await readLinesUntil(child, /reference server on (http:\/\/\S+)/);
      const url = /reference server on (http:\/\/\S+) with PGlite \(in memory\)/.exec(lines.join('\n'))?.[1];
      assert.ok(url, lines.join('\n'));
      assert.match(lines.join('\n'), /demo accounts ada\/lovelace \(admin\), alan\/turing \(viewer\)/);
      assert.match(lines.join('\n'), /JWT_SECRET is not set/);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);

      const response = await fetch(`${url}/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'alan', password: 'turing' }),
      });
      assert.equal(response.status, 200);

      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('refuses a bad configuration with a one-line message and exit code 1', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      env: { ...process.env, JWT_SECRET: 'too-short' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 1);
    assert.equal(
      stderr.trim(),
      'reference-server: JWT_SECRET must be at least 32 bytes long (e.g. openssl rand -base64 48)',
    );
  });

  for (const [name, env, message] of [
    [
      'COOKIE_SECURE=false in production',
      { NODE_ENV: 'production', COOKIE_SECURE: 'false' },
      'reference-server: COOKIE_SECURE must not be false when NODE_ENV=production ' +
        '(the refresh cookie would travel over plain HTTP)',
    ],
    [
      'COOKIE_SECURE=false with NODE_ENV=Production (production in any case)',
      { NODE_ENV: 'Production', COOKIE_SECURE: 'false' },
      'reference-server: COOKIE_SECURE must not be false when NODE_ENV=production ' +
        '(the refresh cookie would travel over plain HTTP)',
    ],
    [
      'DEV_LAB_ROUTES=true in production',
      { NODE_ENV: 'production', DEV_LAB_ROUTES: 'true' },
      'reference-server: DEV_LAB_ROUTES must not be true when NODE_ENV=production ' +
        '(POST /auth/lab/expire-access-token is for development only; unset DEV_LAB_ROUTES)',
    ],
    [
      'NODE_ENV=prod (a value it does not know)',
      { NODE_ENV: 'prod' },
      'reference-server: NODE_ENV must be production, development or test ' +
        '(in any case; unset means development), got "prod"',
    ],
  ] as const) {
    it(`refuses ${name}, naming the setting, before opening anything`, async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
        env: { ...process.env, ...env, JWT_SECRET: 's'.repeat(32), PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // A server that starts anyway would serve forever: stop it, and fail.
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      clearTimeout(timer);
      assert.equal(code, 1);
      assert.equal(stderr.trim(), message);
    });
  }
});

/** Collects the child's output lines (log messages) until one matches; fails after 60 s or on exit. */
function readLinesUntil(child: ChildProcess, pattern: RegExp): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`no "${pattern}" in:\n${lines.join('\n')}`)), 60_000);
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const part of parts) {
        let line = part;
        try {
          line = String((JSON.parse(part) as { msg?: unknown }).msg ?? part);
        } catch {
          // not a log line: keep it as it is
        }
        lines.push(line);
        if (pattern.test(line)) {
          clearTimeout(timer);
          resolve(lines);
        }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${lines.join('\n')}${buffer}`));
    });
  });
}
