import { readFileSync } from 'node:fs';
import { register } from 'node:module';

import type * as NgxTokenRefresh from 'ngx-token-refresh';
import type * as NgxTokenRefreshClient from 'ngx-token-refresh/client';

/**
 * The COMPILED library, as `npm run build:lib` leaves it in dist/: the bench never measures the
 * sources. Imported by file URL, so no tsconfig path mapping can swap in the sources instead.
 */
export const LIBRARY_DIR = new URL('../../../dist/ngx-token-refresh/', import.meta.url);

/** The library's FESM bundle (the file applications import). */
export const LIBRARY_FESM = new URL('fesm2022/ngx-token-refresh.mjs', LIBRARY_DIR);

/** The FESM of the secondary entry point `ngx-token-refresh/client` (the service client). */
export const CLIENT_FESM = new URL('fesm2022/ngx-token-refresh-client.mjs', LIBRARY_DIR);

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly exports: Readonly<Record<string, string | { readonly default?: string }>>;
}

const manifest = JSON.parse(readFileSync(new URL('package.json', LIBRARY_DIR), 'utf8')) as Manifest;

/**
 * The client FESM imports the main entry point by its bare name (`from 'ngx-token-refresh'`), which
 * plain Node resolves by the package's self-reference (dist/ngx-token-refresh/package.json has `name`
 * and `exports`) to LIBRARY_FESM. But the bench runs under tsx, which applies the root tsconfig's
 * `paths` to every import outside node_modules, dist/ included, and those map `ngx-token-refresh` to
 * the SOURCES: the client would then run against a second copy of the library, with injection tokens
 * of its own. So this hook, which runs before tsx's, resolves the library's own entry points, imported
 * from dist/ngx-token-refresh/, by its `exports` as Node would: ONE instance of each FESM.
 */
const entryPoints: Record<string, string> = {};
for (const [subpath, target] of Object.entries(manifest.exports)) {
  const file = typeof target === 'string' ? target : target.default;
  if (file?.endsWith('.mjs')) entryPoints[`${manifest.name}${subpath.slice(1)}`] = new URL(file, LIBRARY_DIR).href;
}
const SELF_REFERENCE_HOOK = `
let root, entryPoints;
export function initialize(data) { ({ root, entryPoints } = data); }
export function resolve(specifier, context, next) {
  if (context.parentURL?.startsWith(root) && Object.hasOwn(entryPoints, specifier)) {
    return { url: entryPoints[specifier], shortCircuit: true };
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(SELF_REFERENCE_HOOK)}`, {
  data: { root: LIBRARY_DIR.href, entryPoints },
});
if (entryPoints[manifest.name] !== LIBRARY_FESM.href || entryPoints[`${manifest.name}/client`] !== CLIENT_FESM.href) {
  throw new Error(`bench: unexpected exports in ${new URL('package.json', LIBRARY_DIR).pathname}`);
}

export const lib = (await import(LIBRARY_FESM.href)) as typeof NgxTokenRefresh;

/** `ngx-token-refresh/client`: `provideAuth`, `AuthClient`, `UsersService`, ... */
export const client = (await import(CLIENT_FESM.href)) as typeof NgxTokenRefreshClient;

/** The version in dist/ngx-token-refresh/package.json. */
export function libraryVersion(): string {
  return manifest.version;
}
