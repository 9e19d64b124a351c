// Builds the schematics (ng add) into the built package: run after `ng build ngx-token-refresh`.
// ng-packagr builds the library's ES modules; the Angular CLI loads schematics with require(), so they
// are compiled to CommonJS of their own, next to their JSON files, under a package.json that says so
// (the package itself is "type": "module", and Node would load them as ES modules).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const source = dirname(fileURLToPath(import.meta.url));
const dist = join(source, '../../../dist/ngx-token-refresh');
const out = join(dist, 'schematics');

function fail(message) {
  console.error(`schematics: ${message}`);
  process.exit(1);
}

const packageJson = join(dist, 'package.json');
if (!existsSync(packageJson)) fail('build the library first (ng build ngx-token-refresh).');
const { schematics } = JSON.parse(readFileSync(packageJson, 'utf8'));
if (schematics !== './schematics/collection.json') {
  fail(`the built package.json should point "schematics" at ./schematics/collection.json, found ${schematics}.`);
}

rmSync(out, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(source, 'tsconfig.json')], { stdio: 'inherit' });
if (compiled.status !== 0) fail('tsc failed.');

function copyJson(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) copyJson(path);
    else if (entry.name.endsWith('.json') && entry.name !== 'tsconfig.json') {
      const target = join(out, relative(source, path));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(path, target);
    }
  }
}
copyJson(source);
writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);

// ng-packagr's .npmignore leaves nested package.json files out of the tarball ("only needed for
// development"); this one is needed at run time.
const npmignore = join(dist, '.npmignore');
const keep = '!/schematics/package.json';
if (existsSync(npmignore) && !readFileSync(npmignore, 'utf8').split(/\r?\n/).includes(keep)) {
  const text = readFileSync(npmignore, 'utf8');
  writeFileSync(npmignore, `${text}${text.endsWith('\n') ? '' : '\n'}${keep}\n`);
}
// Load the factory the way the Angular CLI does (require), so a module-format mistake fails here.
if (typeof createRequire(import.meta.url)(join(out, 'ng-add/index.js')).ngAdd !== 'function') {
  fail('the compiled ng-add/index.js does not export ngAdd.');
}
console.log(`schematics: built into ${relative(process.cwd(), out) || '.'}`);
