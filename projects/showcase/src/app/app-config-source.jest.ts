import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Jest's stand-in for app-config-source.ts (see there): the same text, read from disk.

/** The source text of app.config.ts. */
export function loadAppConfigSource(): Promise<string> {
  return Promise.resolve(readFileSync(join(__dirname, 'app.config.ts'), 'utf8'));
}
