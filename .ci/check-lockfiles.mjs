// Fails when a lockfile in the repository would not install for a user, whatever the registry
// answers today.
//
//   node .ci/check-lockfiles.mjs [--static | --fix]
//
// 1. Every entry of every package-lock.json (tracked, or new and not ignored) has a `version` and an
//    `integrity`, the root and links aside. npm writes an entry as `{ "optional": true }` alone when
//    a registry answered for another platform's package without a version; once the registry
//    answers in full, `npm ci` stops with `Invalid Version:` (npm/cli#9343). A CI run whose registry
//    answered the same way as the writer's stays green: only this check catches it every time.
// 2. `npm ci --dry-run` of each lockfile with each npm in NPM_VERSIONS, in a scratch folder holding
//    just package.json and the lockfile, with an empty cache: the install a user gets on a fresh
//    machine, without downloading a tarball (about 2 s each). `--static` skips this step.
// --fix (`npm run lock`) repairs instead of failing: it deletes the entries without a version or an
// integrity, lets the latest npm of NPM_VERSIONS write each lockfile again (`npm install
// --package-lock-only`, which also brings it in line with its package.json), names every release
// that was not in it before, then checks as above.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * The npm releases a user is likely to have: 10.8.2 ships with Node 20, 10.9.4 with Node 22, and
 * 11.19.1 is the latest npm 11 (what `npm install -g npm` gives today). The one place they are pinned.
 */
const NPM_VERSIONS = ['10.8.2', '10.9.4', '11.19.1'];

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const staticOnly = process.argv.includes('--static');
const fix = process.argv.includes('--fix');

const { stdout } = await run(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', '--', 'package-lock.json', '**/package-lock.json'],
  { cwd: root },
);
const lockfiles = [...new Set(stdout.split('\n').filter(Boolean))].sort();
if (lockfiles.length === 0) fail('no package-lock.json found (is this a git checkout?)');

if (fix) {
  for (const lockfile of lockfiles) await repair(lockfile);
}
const problems = lockfiles.flatMap(findProblems);
if (problems.length > 0) {
  const shown = problems.slice(0, 20).join('\n  ');
  const more = problems.length > 20 ? `\n  ... and ${problems.length - 20} more` : '';
  fail(
    `${problems.length} lockfile entries would not install:\n  ${shown}${more}\n` +
      'Fix: `npm run lock` (deletes those entries, lets npm write them again, names any version that moved).',
  );
}
console.log(`lockfiles: ${lockfiles.length} checked, every entry has a version and an integrity`);
if (staticOnly) process.exit(0);

// Two at a time: each dry run is mostly waiting on the registry, and CI machines have 2 cores.
const jobs = lockfiles.flatMap((lockfile) => NPM_VERSIONS.map((npm) => ({ lockfile, npm })));
const failures = [];
const scratch = mkdtempSync(join(tmpdir(), 'check-lockfiles-'));
try {
  const queue = [...jobs];
  await Promise.all(
    [1, 2].map(async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const error = await dryRun(job, join(scratch, String(jobs.indexOf(job))));
        console.log(`${error ? 'FAIL' : 'ok  '} npm ${job.npm} ci --dry-run  ${job.lockfile}`);
        if (error) failures.push(`${job.lockfile} with npm ${job.npm}:\n${error}`);
      }
    }),
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (failures.length > 0) {
  fail(
    `npm ci would fail:\n\n${failures.join('\n\n')}\n\n` +
      'Fix: `npm run lock` (npm install --package-lock-only in each folder), then commit the lockfiles it writes.',
  );
}

/** The entries of one lockfile that npm could not install, as messages; `[]` when there are none. */
function findProblems(lockfile) {
  let lock;
  try {
    lock = JSON.parse(readFileSync(join(root, lockfile), 'utf8'));
  } catch (error) {
    return [`${lockfile}: not JSON (${error.message})`];
  }
  if (lock.lockfileVersion !== 3 || typeof lock.packages !== 'object' || lock.packages === null) {
    return [`${lockfile}: lockfileVersion ${lock.lockfileVersion} (npm 9+ writes 3, with "packages")`];
  }
  return brokenEntries(lock).map(({ path, missing }) => `${lockfile}: "${path}" has no ${missing.join(' and no ')}`);
}

/** Entries other than the root and links that lack a `version` or an `integrity`. */
function brokenEntries(lock) {
  return Object.entries(lock.packages).flatMap(([path, entry]) => {
    if (path === '' || entry.link) return [];
    const missing = ['version', 'integrity'].filter((key) => typeof entry[key] !== 'string' || entry[key] === '');
    return missing.length > 0 ? [{ path, missing }] : [];
  });
}

/** `--fix`: deletes one lockfile's broken entries and lets npm write it again. */
async function repair(lockfile) {
  const file = join(root, lockfile);
  const lock = JSON.parse(readFileSync(file, 'utf8'));
  const broken = new Set(brokenEntries(lock).map((entry) => entry.path));
  const before = releases(lock.packages);
  lock.packages = Object.fromEntries(Object.entries(lock.packages).filter(([path]) => !broken.has(path)));
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  const npm = NPM_VERSIONS.at(-1);
  console.log(`${lockfile}: ${broken.size} entries deleted; npm ${npm} install --package-lock-only`);
  await run(
    'npx',
    ['--yes', `npm@${npm}`, 'install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'],
    { cwd: dirname(file), maxBuffer: 64 * 1024 * 1024 },
  );
  // npm may place a package elsewhere (hoisted), which changes nothing installed; a release that
  // was not in the lockfile before, other than the ones just deleted, is a change someone should see.
  const rewritten = new Set([...broken].map((path) => path.replace(/^.*node_modules\//, '')));
  for (const release of releases(JSON.parse(readFileSync(file, 'utf8')).packages)) {
    if (!before.has(release) && !rewritten.has(release.slice(0, release.lastIndexOf('@')))) {
      console.log(`  new in the lockfile: ${release} (check that it is wanted)`);
    }
  }
}

/** `name@version` of every entry that has a version. */
function releases(packages) {
  return new Set(
    Object.entries(packages)
      .filter(([path, entry]) => path !== '' && entry.version)
      .map(([path, entry]) => `${path.replace(/^.*node_modules\//, '')}@${entry.version}`),
  );
}

/** Runs one dry install; resolves to npm's error lines, or `undefined` when it would install. */
async function dryRun({ lockfile, npm }, dir) {
  mkdirSync(join(dir, 'cache'), { recursive: true });
  copyFileSync(join(root, dirname(lockfile), 'package.json'), join(dir, 'package.json'));
  copyFileSync(join(root, lockfile), join(dir, 'package-lock.json'));
  const args = ['--yes', `npm@${npm}`, 'ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'];
  try {
    await run('npx', [...args, '--cache', join(dir, 'cache')], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_loglevel: 'error' },
    });
    return undefined;
  } catch (error) {
    const lines = `${error.stderr ?? ''}${error.stdout ?? ''}`.split('\n').filter((line) => /error/i.test(line));
    return (lines.length > 0 ? lines.slice(0, 10) : [String(error.message)]).map((line) => `  ${line}`).join('\n');
  }
}

function fail(message) {
  console.error(`check-lockfiles: ${message}`);
  process.exit(1);
}
