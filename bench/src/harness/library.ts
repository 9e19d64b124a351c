import { readFileSync } from 'node:fs';

import type * as NgxTokenRefresh from 'ngx-token-refresh';

/**
 * The COMPILED library, as `npm run build:lib` leaves it in dist/: the bench never measures the
 * sources. Imported by file URL, so no tsconfig path mapping can swap in the sources instead.
 */
export const LIBRARY_DIR = new URL('../../../dist/ngx-token-refresh/', import.meta.url);

/** The library's FESM bundle (the file applications import). */
export const LIBRARY_FESM = new URL('fesm2022/ngx-token-refresh.mjs', LIBRARY_DIR);

export const lib = (await import(LIBRARY_FESM.href)) as typeof NgxTokenRefresh;

/** The version in dist/ngx-token-refresh/package.json. */
export function libraryVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('package.json', LIBRARY_DIR), 'utf8')) as { version: string };
  return manifest.version;
}
