import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';

/** User and system CPU time of a process so far, in milliseconds (/proc/<pid>/stat, clock ticks of 10 ms). */
export async function cpuMs(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A line of /proc/<pid>/status, in MB. */
export async function memory(pid, field) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
}

/** A free TCP port on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The machine in one sentence, for the report. */
export function describeMachine() {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return (
    `Machine: ${cpus().length} cores (${model}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ` +
    `${process.platform}, load average ${loadavg()[0].toFixed(1)} at the start (the cores are shared)`
  );
}
