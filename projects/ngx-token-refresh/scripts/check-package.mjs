// Checks the package as users get it: packs the built library (dist/ngx-token-refresh, after
// `npm run build:lib`) with `npm pack`, then lints the tarball with publint (package.json fields,
// exports, files) and @arethetypeswrong/cli (whether every entry point resolves to JavaScript and
// types). attw runs with the `esm-only` profile: the Angular Package Format ships ES modules only, so
// `require()` from CommonJS and node10 resolution (which has no `exports`, and so no
// `ngx-token-refresh/client`, `ngx-token-refresh/testing` or `ngx-token-refresh/router`) are not supported, as for every Angular package.
// Last, the bff entry point's bundle must import nothing but oauth4webapi, its one optional peer: it
// runs in the app's Node server, and `pg`, `express` or a `node:` module there would be a dependency
// that the package does not declare (ng-packagr leaves every bare import as it is).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const dist = join(dirname(fileURLToPath(import.meta.url)), '../../../dist/ngx-token-refresh');
if (!existsSync(join(dist, 'package.json'))) {
  console.error('check-package: build the library first (npm run build:lib).');
  process.exit(1);
}

const folder = mkdtempSync(join(tmpdir(), 'ngx-token-refresh-pack-'));
try {
  const [{ filename }] = JSON.parse(
    execFileSync('npm', ['pack', dist, '--pack-destination', folder, '--json'], { encoding: 'utf8' }),
  );
  const tarball = join(folder, filename);
  // Run through `npm run check:package`, which puts node_modules/.bin on the PATH.
  const run = (command, args) => {
    console.log(`== ${command} ${args.join(' ')}`);
    execFileSync(command, args, { stdio: 'inherit' });
  };
  run('publint', [tarball, '--strict']);
  run('attw', [tarball, '--profile', 'esm-only']);
} finally {
  rmSync(folder, { recursive: true, force: true });
}

const BFF_IMPORTS_ALLOWED = new Set(['oauth4webapi']);
const bffBundleName = 'fesm2022/ngx-token-refresh-bff.mjs';
const bffBundle = join(dist, bffBundleName);
const bffImports = ts
  .preProcessFile(readFileSync(bffBundle, 'utf8'), true, true)
  .importedFiles.map((file) => file.fileName);
const unexpected = bffImports.filter((name) => !BFF_IMPORTS_ALLOWED.has(name));
if (unexpected.length > 0) {
  console.error(`check-package: ${bffBundleName} imports ${unexpected.join(', ')}; it may import only oauth4webapi.`);
  process.exit(1);
}
console.log(`== the bff bundle imports ${bffImports.length === 0 ? 'nothing' : [...new Set(bffImports)].join(', ')}`);
