import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import type { BundleResults, BundleVariant } from '../report/results';

const WORKSPACE = new URL('../../bundle/', import.meta.url);
const OUTPUT = new URL('../../../dist/bench-bundle/', import.meta.url);
const GZIP_LEVEL = 9;

/** The applications of bench/bundle/angular.json, each built for production. */
export const BUNDLE_VARIANTS: readonly { id: string; description: string; baseline: string | null }[] = [
  { id: 'base', description: '`provideHttpClient()` only (the baseline)', baseline: null },
  { id: 'attach-only', description: 'attach-only functional interceptor', baseline: 'base' },
  { id: 'auth0-jwt', description: '@auth0/angular-jwt `JwtModule.forRoot` (JwtInterceptor)', baseline: 'base' },
  { id: 'behavior-subject', description: 'BehaviorSubject pattern (tutorial)', baseline: 'base' },
  { id: 'ngx-auth', description: 'ngx-auth 6 `AuthModule`', baseline: 'base' },
  {
    id: 'ntr-interceptor',
    description: 'ngx-token-refresh: the interceptor alone (`provideTokenRefresh` + `tokenRefreshInterceptor`)',
    baseline: 'base',
  },
  {
    id: 'ntr-cross-tab',
    description: 'ngx-token-refresh: the interceptor with cross-tab sync (`withCrossTabSync`)',
    baseline: 'ntr-interceptor',
  },
  {
    id: 'ntr-proactive',
    description: 'ngx-token-refresh: the interceptor with proactive refresh (`withProactiveRefresh`)',
    baseline: 'ntr-interceptor',
  },
  {
    id: 'ntr-client',
    description:
      'ngx-token-refresh: interceptor + service client (`provideAuth` with no feature, `AuthClient`, `UsersService`)',
    baseline: 'base',
  },
  {
    id: 'ntr-client-cross-tab',
    description:
      'ngx-token-refresh: interceptor + service client with cross-tab sync (`provideAuth(config, withCrossTabSync())`)',
    baseline: 'ntr-client',
  },
  {
    id: 'ntr-client-idle',
    description:
      'ngx-token-refresh: as ntr-client-cross-tab, with an idle timeout (`withIdleTimeout`): what that feature costs under `provideAuth`',
    baseline: 'ntr-client-cross-tab',
  },
  {
    id: 'ntr-oauth',
    description:
      'ngx-token-refresh/oauth: the OAuth preset with no feature (`provideOAuthRefresh` + `tokenRefreshInterceptor`, `OAuthSession.restore()` at start-up)',
    baseline: 'base',
  },
  {
    id: 'ntr-oauth-oauth4webapi',
    description:
      'ngx-token-refresh/oauth + the sign-in with oauth4webapi 3 (discovery, code flow with PKCE, code exchange, `setTokens`), as projects/oidc-demo does it',
    baseline: 'base',
  },
  {
    id: 'ntr-oauth-oauth4webapi-proactive',
    description:
      'ngx-token-refresh/oauth + the oauth4webapi sign-in, with `withProactiveRefresh()` (refreshes ahead of expiry, as `setupAutomaticSilentRefresh` does)',
    baseline: 'base',
  },
  {
    id: 'angular-oauth2-oidc',
    description:
      'angular-oauth2-oidc 21: its interceptor (`sendAccessToken`), discovery, code flow with PKCE, refresh tokens (`setupAutomaticSilentRefresh`)',
    baseline: 'base',
  },
  {
    id: 'base-router',
    description: '`provideHttpClient()` + `provideRouter([])` (baseline with routing)',
    baseline: 'base',
  },
  { id: 'ngx-auth-router', description: 'ngx-auth 6, in an app that routes', baseline: 'base-router' },
  {
    id: 'ntr-client-router',
    description: 'ngx-token-refresh: interceptor + service client, in an app that routes (+ `navigateToLogin`)',
    baseline: 'base-router',
  },
];

interface Built {
  readonly raw: number;
  readonly gzip: number;
  readonly byPackage: Map<string, number>;
  readonly text: string;
}

/**
 * The `ɵkind` of every feature (lib/core/token-refresh-feature.ts): string literals only a `withX()`
 * carries in a production build, searched for with their quotes.
 */
const FEATURE_KINDS = ['CrossTabSync', 'NoCrossTabSync', 'ProactiveRefresh', 'ServerSession', 'DPoP', 'IdleTimeout'];
/**
 * A literal of the feature's own code to look for instead of its kind, where the kind's word is also
 * an error code the core and the client name (`IdleTimeout`): the message type its tabs post.
 */
const FEATURE_MARKERS: Readonly<Record<string, string>> = { IdleTimeout: 'idleActivity' };

/**
 * The builds that pass no feature, checked for every feature kind: the interceptor alone, the
 * service client, whose `provideAuth` no longer turns cross-tab sync on by itself, and the OAuth
 * preset, whose `provideOAuthRefresh` looks at the features' kinds in dev mode only.
 */
const FEATURELESS_BUILDS = ['ntr-interceptor', 'ntr-client', 'ntr-oauth'];

/** Production builds (Angular CLI, `@angular/build:application`) of every variant; sizes of their JavaScript. */
export function runBundles(log: (line: string) => void, only?: readonly string[]): BundleResults {
  const ng = createRequire(import.meta.url).resolve('@angular/cli/bin/ng.js');
  const built = new Map<string, Built>();
  // The variants asked for, and the baselines they are compared with.
  const wanted = new Set(only ?? BUNDLE_VARIANTS.map((v) => v.id));
  for (const variant of [...BUNDLE_VARIANTS].reverse()) {
    if (wanted.has(variant.id) && variant.baseline) wanted.add(variant.baseline);
  }
  const variants = BUNDLE_VARIANTS.filter((v) => wanted.has(v.id));
  for (const variant of variants) {
    const started = performance.now();
    const out = new URL(`${variant.id}/`, OUTPUT);
    rmSync(out, { recursive: true, force: true });
    const result = spawnSync(process.execPath, [ng, 'build', variant.id, '--stats-json'], {
      cwd: fileURLToPath(WORKSPACE),
      encoding: 'utf8',
      env: { ...process.env, NG_CLI_ANALYTICS: 'false', NG_FORCE_TTY: 'false', FORCE_COLOR: '0' },
    });
    if (result.status !== 0) {
      throw new Error(`bench: ng build ${variant.id} failed:\n${result.stdout}\n${result.stderr}`);
    }
    built.set(variant.id, measure(out));
    const b = built.get(variant.id)!;
    log(`  ${variant.id}: ${b.raw} B, ${b.gzip} B gzip (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  const rows: BundleVariant[] = variants.map((variant) => {
    const own = built.get(variant.id)!;
    const base = variant.baseline ? built.get(variant.baseline) : undefined;
    const addedByPackage: Record<string, number> = {};
    if (base) {
      const names = new Set([...own.byPackage.keys(), ...base.byPackage.keys()]);
      for (const name of [...names].sort()) {
        const delta = (own.byPackage.get(name) ?? 0) - (base.byPackage.get(name) ?? 0);
        if (delta !== 0) addedByPackage[name] = delta;
      }
    }
    return {
      id: variant.id,
      description: variant.description,
      baseline: variant.baseline,
      rawBytes: own.raw,
      gzipBytes: own.gzip,
      addedRawBytes: base ? own.raw - base.raw : null,
      addedGzipBytes: base ? own.gzip - base.gzip : null,
      addedByPackage,
    };
  });
  // Judged only when every featureless build was built (a run of some variants leaves it null).
  const featureKindsFound: Record<string, string[]> = {};
  for (const id of FEATURELESS_BUILDS) {
    const b = built.get(id);
    // As a literal of its own: the word alone also appears inside messages ("DPoP tokens need withDPoP()").
    if (b)
      featureKindsFound[id] = FEATURE_KINDS.filter((kind) =>
        ['"', "'", '`'].some((q) => b.text.includes(`${q}${FEATURE_MARKERS[kind] ?? kind}${q}`)),
      );
  }
  const checked = FEATURELESS_BUILDS.every((id) => id in featureKindsFound);
  return {
    builder: '@angular/build:application (production, esbuild)',
    gzipLevel: GZIP_LEVEL,
    variants: rows,
    unusedFeaturesAbsent: checked ? Object.values(featureKindsFound).every((kinds) => kinds.length === 0) : null,
    featureKindsFound,
  };
}

function measure(out: URL): Built {
  const browser = new URL('browser/', out);
  let raw = 0;
  let gzip = 0;
  let text = '';
  for (const file of readdirSync(browser)
    .filter((f) => f.endsWith('.js'))
    .sort()) {
    const content = readFileSync(new URL(file, browser));
    raw += content.length;
    text += content.toString('utf8');
    gzip += gzipSync(content, { level: GZIP_LEVEL }).length;
  }
  const byPackage = new Map<string, number>();
  const statsFile = new URL('stats.json', out);
  if (existsSync(statsFile)) {
    const stats = JSON.parse(readFileSync(statsFile, 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
    };
    for (const [file, output] of Object.entries(stats.outputs)) {
      if (!file.endsWith('.js')) continue;
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        const name = packageOf(input);
        byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
      }
    }
  }
  return { raw, gzip, byPackage, text };
}

/**
 * The package an input of the build belongs to: `rxjs`, `@angular/core`, `ngx-token-refresh` (its main
 * entry point), `ngx-token-refresh/client` or another of its entry points, or `app`.
 */
function packageOf(input: string): string {
  const entryPoint = /dist\/ngx-token-refresh\/fesm2022\/ngx-token-refresh-(\w+)\.mjs$/.exec(input);
  if (entryPoint) return `ngx-token-refresh/${entryPoint[1]}`;
  if (input.includes('dist/ngx-token-refresh/')) return 'ngx-token-refresh';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match ? match[1] : 'app';
}
