import type { Tree } from '@angular-devkit/schematics';
import { readWorkspace } from '@schematics/angular/utility';

/**
 * Whether the `provideHttpClient` that ng add writes should get `withFetch()`: only for an app that
 * renders on the server (`ssr` or `server` in its build options), as Angular 21 advises for server
 * rendering (NG02801 otherwise), and only before Angular 22, where fetch is the default backend and
 * `withFetch()` is deprecated.
 */
export async function shouldAddFetch(tree: Tree, project: string): Promise<boolean> {
  return (await rendersOnServer(tree, project)) && !fetchIsDefault(tree);
}

async function rendersOnServer(tree: Tree, project: string): Promise<boolean> {
  const options = (await readWorkspace(tree)).projects.get(project)?.targets.get('build')?.options ?? {};
  return Boolean(options['ssr'] || options['server']);
}

/**
 * Whether the app's Angular makes fetch the default backend (22 and later). Read from the installed
 * `@angular/common`, else from the range in package.json; unknown counts as no.
 */
function fetchIsDefault(tree: Tree): boolean {
  interface Manifest {
    version?: unknown;
    dependencies?: Record<string, unknown>;
  }
  const read = (file: string): Manifest => {
    try {
      return JSON.parse(tree.readText(file)) as Manifest;
    } catch {
      return {};
    }
  };
  const version =
    read('/node_modules/@angular/common/package.json').version ??
    read('/package.json').dependencies?.['@angular/common'];
  const major = Number(/\d+/.exec(typeof version === 'string' ? version : '')?.[0]);
  return major >= 22;
}
