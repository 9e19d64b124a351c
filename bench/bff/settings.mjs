// The settings of `npm run bench:bff` (see run.mjs), read from its command line.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspace root. */
export const root = fileURLToPath(new URL('../../', import.meta.url));
const args = process.argv.slice(2);
export const smoke = args.includes('--smoke');
const option = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const numbers = (text) => text.split(',').map(Number);

export const out = resolve(root, option('out') ?? (smoke ? 'test-results/bench-bff-smoke.md' : 'bench/BFF-RESULTS.md'));
export const databaseUrl = process.env.DATABASE_URL || null;
/**
 * Whether the BFF comes from the built package (dist/, `npm run build:lib` first) rather than from the
 * library's source through tsx (the default: no build needed, and the same code as its specs run).
 */
export const dist = args.includes('--dist');
/** `overhead` or `grants`: run that part alone (a partial report, for trying things out). */
export const only = option('only') ?? null;
/** A sentence about the run's circumstances, written under the machine line (`--note=...`). */
export const note = option('note') ?? null;

/** The proxy's overhead: autocannon's connections, and the rounds that alternate direct and BFF calls. */
export const OVERHEAD = {
  connections: option('connections') ? numbers(option('connections')) : smoke ? [10] : [1, 10],
  rounds: Number(option('rounds') ?? (smoke ? 1 : 8)),
  roundSeconds: Number(option('round-seconds') ?? (smoke ? 1 : 2)),
  /** Seconds of each path before the rounds, not counted (none in --smoke). */
  warmUpSeconds: smoke ? 0 : 1,
};

/**
 * Grants per expiry: sessions at once, each calling `callsPerSecond` times a second in bursts of
 * `burst` calls at once (a page that loads several things), for `seconds`, with access tokens of
 * `accessTokenTtl` seconds. The BFF refreshes a quarter of a lifetime ahead: the bursts come more often
 * than that (every `burst / callsPerSecond` s), so no call ever holds a token past its expiry.
 */
export const GRANTS = {
  sessions: option('sessions') ? numbers(option('sessions')) : smoke ? [2] : [10, 50],
  callsPerSecond: Number(option('rate') ?? 10),
  burst: 5,
  seconds: Number(option('seconds') ?? (smoke ? 5 : 30)),
  accessTokenTtl: smoke ? 4 : 6,
};

/** The secret of the provider's confidential client `bff` here. */
export const CLIENT_SECRET = 'benchmark-secret-of-the-bff-client';
/** The API route both paths call: a small JSON answer. */
export const API_PATH = '/api/items/7';
