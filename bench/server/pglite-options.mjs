import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { root } from './settings.mjs';

/** PGlite alone (no server): time to a first query and resident memory, per option. */
export async function pgliteOptions() {
  const dataDir = await mkdtemp(join(tmpdir(), 'pglite-bench-'));
  const variants = [
    ["in memory, PGlite's defaults (shared_buffers=128MB)", 'undefined', '{}'],
    ['in memory, relaxedDurability: true', 'undefined', '{ relaxedDurability: true }'],
    ['in memory, initialMemory: 128 MiB (the least it takes)', 'undefined', `{ initialMemory: ${128 * 2 ** 20} }`],
    [
      'in memory, shared_buffers=16MB (what the server runs with)',
      'undefined',
      "{ postgresqlconf: 'shared_buffers=16MB' }",
    ],
    ['data folder, first start (initdb)', JSON.stringify(dataDir), '{}'],
    ['data folder, second start', JSON.stringify(dataDir), '{}'],
    // The server's engine (dist/pglite-engine.js): a new database is a copy of its template.
    ["the server's engine, in memory (from the template)", 'null', 'engine'],
    ["the server's engine, new data folder (from the template)", JSON.stringify(join(dataDir, 'new')), 'engine'],
  ];
  const rows = [];
  try {
    for (const [label, dir, options] of variants) {
      const create =
        options === 'engine'
          ? "const { createPgliteEngine } = await import('./projects/reference-server/dist/pglite-engine.js');" +
            `const db = await createPgliteEngine(${dir});`
          : `const db = await PGlite.create(${dir}, ${options});`;
      const script =
        "import { PGlite } from '@electric-sql/pglite';" +
        'const t = performance.now();' +
        create +
        "await db.query('select 1');" +
        'const ms = performance.now() - t;' +
        "const rss = /VmRSS:\\s+(\\d+)/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'))[1];" +
        'console.log(JSON.stringify({ ms, rss: Number(rss) }));' +
        'await db.close();';
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
      const line = run.stdout.trim().split('\n').pop() ?? '';
      if (run.status !== 0 || !line.startsWith('{')) {
        rows.push(`| ${label} | failed: ${(run.stderr.trim().split('\n').pop() ?? '').slice(0, 120)} | |`);
        continue;
      }
      const { ms, rss } = JSON.parse(line);
      rows.push(`| ${label} | ${Math.round(ms)} | ${Math.round(rss / 1024)} |`);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  return [
    '## PGlite options',
    '',
    "PGlite alone in a fresh Node process: `PGlite.create(dataDir, options)` (or the server's `createPgliteEngine`, " +
      'its template made by an earlier start) then `select 1`.',
    '',
    '| configuration | start-up ms | resident MB |',
    '|---|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}
