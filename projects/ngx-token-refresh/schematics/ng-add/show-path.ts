/**
 * A tree path as messages show it: relative to the workspace (`src/app/app.config.ts`), without the
 * leading `/` that the schematic's tree puts in front of every path.
 */
export function showPath(path: string): string {
  return path.replace(/^\/+/, '');
}
