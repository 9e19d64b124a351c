import { SchematicsException, type Tree } from '@angular-devkit/schematics';
import { findBootstrapModuleCall, getAppModulePath } from '@schematics/angular/utility/ng-ast-utils';
import { findAppConfig } from '@schematics/angular/utility/standalone/app_config';
import { findBootstrapApplicationCall } from '@schematics/angular/utility/standalone/util';
import type * as TS from 'typescript';

import { findProvidersProperty } from './find-providers-property';
import { refuse } from './refuse';
import type { Setup } from './resolve-setup';
import { showPath } from './show-path';
import { ts } from './ts';

/** The application config of the app, found as Angular's own schematics find it. */
export interface LocatedConfig {
  /** The file holding the config: app.config.ts, or main.ts for one written inline. */
  readonly filePath: string;
  readonly source: TS.SourceFile;
  /** The config object; null when `bootstrapApplication` has none yet (one is then added to it). */
  readonly config: TS.ObjectLiteralExpression | null;
  /** Its `providers` array; null when it has none yet. */
  readonly providers: TS.ArrayLiteralExpression | null;
}

/**
 * Follows the `bootstrapApplication(App, config)` call of the main file to the application config and
 * its `providers: [...]`, as they are in `tree` now (each rule that edits the config locates it again).
 * Refuses an NgModule app, a main file without `bootstrapApplication`, a config it cannot follow, and
 * providers not written as an array literal.
 */
export function locateConfig(tree: Tree, mainPath: string, setup: Setup): LocatedConfig {
  let bootstrapCall: TS.CallExpression;
  try {
    bootstrapCall = findBootstrapApplicationCall(tree, mainPath);
  } catch (error) {
    if (!(error instanceof SchematicsException)) throw error;
    if (findBootstrapModuleCall(tree, mainPath)) {
      let modulePath = 'the root NgModule';
      try {
        modulePath = `the root NgModule (${showPath(getAppModulePath(tree, mainPath))})`;
      } catch {
        // Named without its file.
      }
      throw refuse(
        `${showPath(mainPath)} bootstraps an NgModule (bootstrapModule), and ng add only edits the application ` +
          `config of a standalone app (app.config.ts). Add the providers to the providers of ${modulePath}, ` +
          `and remove HttpClientModule from its imports if it is there.`,
        setup,
      );
    }
    throw refuse(
      `found no bootstrapApplication call (imported from '@angular/platform-browser') in ${showPath(mainPath)}, ` +
        `so there is no application config to edit.`,
      setup,
    );
  }
  const main = bootstrapCall.getSourceFile();
  if (bootstrapCall.arguments.length < 2) {
    return { filePath: mainPath, source: main, config: null, providers: null };
  }
  let resolved: ReturnType<typeof findAppConfig> = null;
  try {
    resolved = findAppConfig(bootstrapCall, tree, mainPath);
  } catch {
    // A config file that is not there: reported below.
  }
  if (!resolved) {
    const argument = bootstrapCall.arguments[1];
    const expected = importedConfigPath(main, argument, mainPath);
    throw refuse(
      `could not find the application config: ${showPath(mainPath)} passes ${argument.getText()} to ` +
        `bootstrapApplication, and ng add ` +
        (expected
          ? `looked for \`export const ${argument.getText()}: ApplicationConfig = { providers: [...] }\` in ${showPath(expected)}.`
          : `follows only an object literal, or a variable holding one in main.ts or in a file it imports by a relative path.`),
      setup,
    );
  }
  const source = resolved.node.getSourceFile();
  const property = findProvidersProperty(resolved.node);
  if (!property) return { filePath: resolved.filePath, source, config: resolved.node, providers: null };
  if (
    !ts.isPropertyAssignment(property) ||
    !ts.isIdentifier(property.name) ||
    !ts.isArrayLiteralExpression(property.initializer)
  ) {
    throw refuse(
      `the providers of the application config in ${showPath(resolved.filePath)} are not written as ` +
        `providers: [...], so ng add cannot add to them.`,
      setup,
    );
  }
  return { filePath: resolved.filePath, source, config: resolved.node, providers: property.initializer };
}

/** Where a config identifier passed to `bootstrapApplication` is imported from, by a relative path. */
function importedConfigPath(main: TS.SourceFile, argument: TS.Expression, mainPath: string): string | null {
  if (!ts.isIdentifier(argument)) return null;
  for (const statement of main.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    if (bindings.elements.some((element) => element.name.text === argument.text)) {
      const specifier = statement.moduleSpecifier.text;
      if (!specifier.startsWith('.')) return null;
      const segments = mainPath.split('/').slice(0, -1);
      for (const segment of specifier.split('/')) {
        if (segment === '..') segments.pop();
        else if (segment !== '.') segments.push(segment);
      }
      return `${segments.join('/')}.ts`;
    }
  }
  return null;
}
