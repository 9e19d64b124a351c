// npm run bench [-- --only=happy,burst,soak,round-trips,bundle,dpop] [--variants=<bundle ids>] [--skip-build] [--out=<dir>]
// npm run bench -- --only=bundle --merge   (the bundle table again, put into the earlier run's results)
// npm run bench -- --only=dpop --merge     (the DPoP suite alone, Node and Chromium, put in likewise)
// npm run bench -- --render   (RESULTS.md and the chart again from results/results.json; measures nothing)
// npm run bench:smoke
//
// Builds the library first (the bench measures dist/, not the sources), then loads the bench itself:
// its modules import the compiled library, so they must not be evaluated before the build.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
if (!args.includes('--skip-build') && !args.includes('--render')) {
  console.log('== build the library (ng build ngx-token-refresh)');
  const ng = createRequire(import.meta.url).resolve('@angular/cli/bin/ng.js');
  const build = spawnSync(process.execPath, [ng, 'build', 'ngx-token-refresh'], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    encoding: 'utf8',
    env: { ...process.env, NG_CLI_ANALYTICS: 'false' },
  });
  if (build.status !== 0) {
    console.error(build.stdout, build.stderr);
    process.exit(1);
  }
}

if (args.includes('--smoke')) {
  // The smoke run is what CI runs: it also type-checks the bench against the built library's types.
  console.log('== type-check the bench (tsc -p bench/tsconfig.json)');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const check = spawnSync(process.execPath, [tsc, '-p', 'bench/tsconfig.json', '--noEmit'], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    encoding: 'utf8',
  });
  if (check.status !== 0) {
    console.error(check.stdout, check.stderr);
    process.exit(1);
  }
}

const { main } = await import('./main');
await main(args);
// The worker processes are gone by now; the apps of this process must not keep it alive.
process.exit(0);
