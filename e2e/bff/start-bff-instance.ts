import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** One running instance of the showcase's BFF server; see {@link startBffInstance}. */
export interface BffInstance {
  readonly name: string;
  readonly port: number;
  /** Kills the process at once (SIGKILL: a crash, no graceful shutdown) and waits for it to be gone. */
  kill(): Promise<void>;
  /** Stops it as a deployment would (SIGTERM: the refreshes under way finish first). */
  stop(): Promise<void>;
}

/**
 * Starts projects/showcase/bff/serve-bff.ts as a process of its own (so that a test can kill it in the
 * middle of a request), on 127.0.0.1:`port`, with `env` (its settings: bff-server-settings.ts), and
 * waits for its ready line. Its warnings go to this process's stderr, named.
 */
export async function startBffInstance(
  name: string,
  port: number,
  env: Readonly<Record<string, string>>,
): Promise<BffInstance> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'projects/showcase/bff/serve-bff.ts'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', INSTANCE_NAME: name },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await ready(child, name);
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  };
  return { name, port, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}

/** Resolves at the child's ready line (its other lines are passed on, named), rejects if it exits first. */
function ready(child: ChildProcess, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`${name} exited with code ${code} before it was ready`));
    child.once('exit', exited);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('bff ready ')) {
        console.log(`${name}: ${line}`);
        return;
      }
      child.off('exit', exited);
      resolve();
    });
  });
}
