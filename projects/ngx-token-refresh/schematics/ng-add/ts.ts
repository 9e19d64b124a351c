import { createRequire } from 'node:module';
import type * as TypeScript from 'typescript';

/**
 * The TypeScript compiler that `@schematics/angular`'s helpers parse the app with. Angular 21 ships its
 * own copy under `third_party/`; from Angular 22 `@schematics/angular` depends on the `typescript`
 * package instead and the copy is gone. Syntax kinds are numbers that differ between TypeScript
 * versions, so the guards used on the parsed nodes must come from that same compiler: it is loaded
 * from where `@schematics/angular` is installed, whichever of the two it is.
 */
function loadTypeScript(): typeof TypeScript {
  const fromSchematics = createRequire(require.resolve('@schematics/angular/package.json'));
  try {
    return fromSchematics('@schematics/angular/third_party/github.com/Microsoft/TypeScript/lib/typescript');
  } catch {
    return fromSchematics('typescript');
  }
}

/**
 * The TypeScript module `@schematics/angular` parses the app with, loaded once by {@link loadTypeScript}:
 * use its guards (`ts.isCallExpression`, ...) on the nodes that parse gives, not the `typescript` package's.
 */
export const ts = loadTypeScript();
