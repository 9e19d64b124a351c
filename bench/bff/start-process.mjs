import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

import { root } from './settings.mjs';

/** Lines that every start of oidc-provider on Node 20 writes, and that say nothing about the run. */
const NOISE = [/Unsupported runtime/, /devInteractions is enabled/, /^\s*$/];

/**
 * Starts `script` (a path from the workspace root) in a Node process of its own, with `config` in its
 * environment as `BENCH_CONFIG` (JSON), and waits for the line `ready <json>` on its stdout: the
 * process's address and whatever else it reports. Its stderr passes through, less oidc-provider's
 * start-up notices. `stop()` sends SIGTERM and waits for the exit.
 *
 * Each part of the bench runs in its own process (the load, the BFF, the provider and API), as it
 * would in production: one event loop does not slow the others' timing.
 */
export async function startProcess(script, config, { nodeArgs = [], name = script } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BENCH_CONFIG: JSON.stringify(config) },
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (!NOISE.some((pattern) => pattern.test(line))) console.error(`[${name}] ${line}`);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const ready = new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('ready ')) resolve(JSON.parse(line.slice('ready '.length)));
      else console.log(`[${name}] ${line}`);
    });
    void exited.then((code) => reject(new Error(`${name} exited (${code}) before it was ready`)));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    return { child, info: await ready, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
