import {
  chain,
  noop,
  type Rule,
  type SchematicContext,
  SchematicsException,
  type Tree,
} from '@angular-devkit/schematics';
import type * as TS from 'typescript';
import { ts } from './typescript';
import { addRootProvider, readWorkspace } from '@schematics/angular/utility';
import { hasTopLevelIdentifier, insertImport } from '@schematics/angular/utility/ast-utils';
import { applyToUpdateRecorder, type Change, InsertChange } from '@schematics/angular/utility/change';
import { findBootstrapModuleCall, getAppModulePath } from '@schematics/angular/utility/ng-ast-utils';
import { findAppConfig } from '@schematics/angular/utility/standalone/app_config';
import { findBootstrapApplicationCall, getMainFilePath } from '@schematics/angular/utility/standalone/util';

import { appendToList, findCalls, findProvidersProperty, importedNames, indentAt, isCallOf, isMultiLine } from './ast';
import type { NgAddOptions } from './schema';
import {
  HTTP,
  httpClientCode,
  interceptorsFeatureCode,
  LIBRARY,
  manualInstructions,
  providerCode,
  resolveSetup,
  ROUTER,
  type Setup,
  type SymbolRef,
} from './setup';

/**
 * `ng add ngx-token-refresh`: adds `provideHttpClient(withInterceptors([tokenRefreshInterceptor]))`
 * (or adds the interceptor, last, to the app's own `provideHttpClient`) and `provideAuth(...)` or
 * `provideTokenRefresh(...)` to the application config of a standalone app. Running it again changes
 * nothing; where it cannot find or safely edit the config it changes nothing and says what to add.
 */
export function ngAdd(options: NgAddOptions = {}): Rule {
  return async (tree: Tree, context: SchematicContext) => {
    const setup = resolveSetup(options);
    const project = await resolveProject(tree, options.project, setup, context);
    const mainPath = await findMainFile(tree, project, setup);
    const located = locateConfig(tree, mainPath, setup);
    const facts = inspect(located);
    const file = show(located.filePath);

    if (facts.registeredBy) {
      context.logger.info(`ngx-token-refresh is already set up in ${file} (${facts.registeredBy}): nothing changed.`);
      if (!facts.interceptorListed) {
        context.logger.warn(
          `tokenRefreshInterceptor is not in withInterceptors([...]) of a provideHttpClient in ${file}: ` +
            `unless it is registered elsewhere, no request is refreshed.`,
        );
      }
      return noop();
    }

    const rules: Rule[] = [];
    const added: [string, string][] = [];
    if (!facts.httpClient) {
      // A server-rendered app gets fetch, as Angular 21 advises for server rendering (NG02801 otherwise).
      // From Angular 22 fetch is the default backend and withFetch() is deprecated: nothing to add.
      const fetch = (await rendersOnServer(tree, project)) && !fetchIsDefault(tree);
      rules.push(
        addRootProvider(project, ({ code, external }) => code`${httpClientCode(refTo(facts, external), fetch)}`),
      );
      added.push(['provideHttpClient', HTTP]);
    } else if (!facts.interceptorListed) {
      rules.push(addInterceptorToHttpClient(mainPath, setup));
    }
    rules.push(
      addRootProvider(
        project,
        ({ code, external }) => code`${providerCode(setup, refTo(facts, external), facts.withRouter, facts.indent)}`,
      ),
    );
    added.push([setup.kind === 'auth' ? 'provideAuth' : 'provideTokenRefresh', LIBRARY]);
    rules.push(putOnOwnLines(mainPath, setup, added));
    rules.push(() => logNextSteps(context, setup, file, added, facts.withRouter));
    return chain(rules);
  };
}

/** The application config of the app, found as Angular's own schematics find it. */
interface LocatedConfig {
  /** The file holding the config: app.config.ts, or main.ts for one written inline. */
  readonly filePath: string;
  readonly source: TS.SourceFile;
  /** The config object; null when `bootstrapApplication` has none yet (one is then added to it). */
  readonly config: TS.ObjectLiteralExpression | null;
  /** Its `providers` array; null when it has none yet. */
  readonly providers: TS.ArrayLiteralExpression | null;
}

/** What the config already holds. */
interface ConfigFacts {
  /** Import names of the config's file: module → symbol → local name. */
  readonly names: Map<string, Map<string, string>>;
  /** `provideAuth` or `provideTokenRefresh` when the file already calls it. */
  readonly registeredBy: string | null;
  /** The app's `provideHttpClient(...)` among its providers. */
  readonly httpClient: TS.CallExpression | null;
  /** Whether `tokenRefreshInterceptor` is in a `withInterceptors([...])` of that `provideHttpClient`. */
  readonly interceptorListed: boolean;
  /** Whether the providers include `provideRouter(...)`. */
  readonly withRouter: boolean;
  /** The indentation of the providers, for code over several lines. */
  readonly indent: string;
}

function show(path: string): string {
  return path.replace(/^\/+/, '');
}

function refuse(reason: string, setup: Setup): SchematicsException {
  return new SchematicsException(`ngx-token-refresh: ${reason}\n${manualInstructions(setup)}`);
}

async function resolveProject(
  tree: Tree,
  requested: string | undefined,
  setup: Setup,
  context: SchematicContext,
): Promise<string> {
  const workspace = await readWorkspace(tree);
  const isApplication = (name: string) => workspace.projects.get(name)?.extensions['projectType'] === 'application';
  if (requested) {
    if (!workspace.projects.has(requested)) {
      throw new SchematicsException(
        `ngx-token-refresh: there is no project '${requested}' in angular.json ` +
          `(projects: ${[...workspace.projects.keys()].join(', ') || 'none'}).`,
      );
    }
    if (!isApplication(requested)) {
      throw refuse(
        `'${requested}' is a library, and ng add ngx-token-refresh sets up an application (its app.config.ts). ` +
          `Run it with --project <application>; a library lists ngx-token-refresh in its peerDependencies instead.`,
        setup,
      );
    }
    return requested;
  }
  const applications = [...workspace.projects.keys()].filter(isApplication);
  const defaultProject = workspace.extensions['defaultProject'];
  if (typeof defaultProject === 'string' && applications.includes(defaultProject)) return defaultProject;
  if (applications.length === 0) {
    throw refuse(
      `the workspace has no application to set up (ng add sets up an application; a library lists ` +
        `ngx-token-refresh in its peerDependencies instead).`,
      setup,
    );
  }
  if (applications.length > 1) {
    context.logger.info(
      `Setting up '${applications[0]}', the first application of the workspace; ` +
        `choose another with --project (${applications.join(', ')}).`,
    );
  }
  return applications[0];
}

/** Whether the application's build renders on the server (`ssr` or `server` in its build options). */
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

async function findMainFile(tree: Tree, project: string, setup: Setup): Promise<string> {
  let mainPath: string | undefined;
  try {
    mainPath = await getMainFilePath(tree, project);
  } catch (error) {
    if (!(error instanceof SchematicsException)) throw error;
    throw refuse(
      `project '${project}' has no build target in angular.json, so ng add cannot find its main file.`,
      setup,
    );
  }
  if (!mainPath || !tree.exists(mainPath)) {
    throw refuse(
      `could not find the main file of '${project}' (${mainPath ? show(mainPath) : 'its build target names none'}).`,
      setup,
    );
  }
  return mainPath;
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

function locateConfig(tree: Tree, mainPath: string, setup: Setup): LocatedConfig {
  let bootstrapCall: TS.CallExpression;
  try {
    bootstrapCall = findBootstrapApplicationCall(tree, mainPath);
  } catch (error) {
    if (!(error instanceof SchematicsException)) throw error;
    if (findBootstrapModuleCall(tree, mainPath)) {
      let modulePath = 'the root NgModule';
      try {
        modulePath = `the root NgModule (${show(getAppModulePath(tree, mainPath))})`;
      } catch {
        // Named without its file.
      }
      throw refuse(
        `${show(mainPath)} bootstraps an NgModule (bootstrapModule), and ng add only edits the application ` +
          `config of a standalone app (app.config.ts). Add the providers to the providers of ${modulePath}, ` +
          `and remove HttpClientModule from its imports if it is there.`,
        setup,
      );
    }
    throw refuse(
      `found no bootstrapApplication call (imported from '@angular/platform-browser') in ${show(mainPath)}, ` +
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
      `could not find the application config: ${show(mainPath)} passes ${argument.getText()} to ` +
        `bootstrapApplication, and ng add ` +
        (expected
          ? `looked for \`export const ${argument.getText()}: ApplicationConfig = { providers: [...] }\` in ${show(expected)}.`
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
      `the providers of the application config in ${show(resolved.filePath)} are not written as ` +
        `providers: [...], so ng add cannot add to them.`,
      setup,
    );
  }
  return { filePath: resolved.filePath, source, config: resolved.node, providers: property.initializer };
}

function inspect({ source, providers }: LocatedConfig): ConfigFacts {
  const names = importedNames(source);
  const local = (symbol: string, module: string) => names.get(module)?.get(symbol);
  const registeredBy =
    ['provideAuth', 'provideTokenRefresh'].find((symbol) => findCalls(source, local(symbol, LIBRARY)).length > 0) ??
    null;
  const httpClient = providers ? (findCalls(providers, local('provideHttpClient', HTTP))[0] ?? null) : null;
  const interceptor = local('tokenRefreshInterceptor', LIBRARY);
  const interceptorListed =
    !!httpClient &&
    !!interceptor &&
    httpClient.arguments.some(
      (feature) =>
        isCallOf(feature, local('withInterceptors', HTTP)) &&
        feature.arguments.some(
          (list) =>
            ts.isArrayLiteralExpression(list) &&
            list.elements.some((element) => ts.isIdentifier(element) && element.text === interceptor),
        ),
    );
  const withRouter = !!providers && findCalls(providers, local('provideRouter', ROUTER)).length > 0;
  let indent = '    ';
  if (providers && isMultiLine(source, providers.elements, providers.elements.pos)) {
    indent = indentAt(source, providers.elements[0].getStart(source));
  } else if (providers) {
    indent = `${indentAt(source, providers.getStart(source))}  `;
  }
  return { names, registeredBy, httpClient, interceptorListed, withRouter, indent };
}

/** Names a symbol by its existing import (aliases included), or has `addRootProvider` import it. */
function refTo(facts: ConfigFacts, external: (symbol: string, module: string) => string): SymbolRef {
  return (symbol, module) => facts.names.get(module)?.get(symbol) ?? external(symbol, module);
}

/**
 * Adds `tokenRefreshInterceptor` to the app's own `provideHttpClient(...)`: last in its (last)
 * `withInterceptors([...])`, or in a `withInterceptors([...])` added after its other features.
 */
function addInterceptorToHttpClient(mainPath: string, setup: Setup): Rule {
  return (tree, context) => {
    const located = locateConfig(tree, mainPath, setup);
    const { httpClient, interceptorListed, names } = inspect(located);
    if (!httpClient || interceptorListed) return;
    const { source, filePath } = located;
    const withInterceptors = names.get(HTTP)?.get('withInterceptors');
    const features = httpClient.arguments.filter((feature) => isCallOf(feature, withInterceptors));
    const lists = features.map((feature) => feature.arguments[0]);
    if (lists.some((list) => !list || !ts.isArrayLiteralExpression(list))) {
      context.logger.warn(
        `The withInterceptors(...) of provideHttpClient in ${show(filePath)} does not take an array literal, so ` +
          `tokenRefreshInterceptor was not added to it. Add it by hand: after interceptors that rewrite URLs, ` +
          `before logging or timing interceptors.`,
      );
      return;
    }
    const changes: Change[] = [];
    const ref: SymbolRef = (symbol, module) => {
      const existing = names.get(module)?.get(symbol);
      if (existing) return existing;
      const alias = hasTopLevelIdentifier(source, symbol, module) ? `${symbol}_alias` : undefined;
      changes.push(insertImport(source, filePath, symbol, module, false, alias));
      return alias ?? symbol;
    };
    const list = lists.at(-1) as TS.ArrayLiteralExpression | undefined;
    const insertion = list
      ? appendToList(source, list.elements, list.elements.pos, ref('tokenRefreshInterceptor', LIBRARY))
      : appendToList(source, httpClient.arguments, httpClient.arguments.pos, interceptorsFeatureCode(ref));
    changes.push(new InsertChange(filePath, insertion.position, insertion.text));
    const recorder = tree.beginUpdate(filePath);
    applyToUpdateRecorder(recorder, changes);
    tree.commitUpdate(recorder);

    const others = features.some((feature) => (feature.arguments[0] as TS.ArrayLiteralExpression).elements.length > 0);
    const fromDi = httpClient.arguments.some((feature) =>
      isCallOf(feature, names.get(HTTP)?.get('withInterceptorsFromDi')),
    );
    context.logger.info(
      `Added tokenRefreshInterceptor to provideHttpClient in ${show(filePath)}` +
        (list ? ', at the end of withInterceptors([...]).' : '.'),
    );
    if (others || fromDi) {
      context.logger.info(
        'Interceptor order: keep interceptors that rewrite URLs before tokenRefreshInterceptor, and logging or ' +
          'timing interceptors after it, so that they see every repeated request.',
      );
    }
  };
}

/**
 * `addRootProvider` appends `, provider` on the line of the previous provider; in a list written one
 * provider per line, this puts the providers just added on lines of their own.
 */
function putOnOwnLines(mainPath: string, setup: Setup, added: readonly [string, string][]): Rule {
  return (tree) => {
    const { source, providers, filePath } = locateConfig(tree, mainPath, setup);
    if (!providers || !isMultiLine(source, providers.elements, providers.elements.pos)) return;
    const names = importedNames(source);
    const locals = added.map(([symbol, module]) => names.get(module)?.get(symbol));
    const indent = indentAt(source, providers.elements[0].getStart(source));
    const recorder = tree.beginUpdate(filePath);
    providers.elements.forEach((element, index) => {
      if (index === 0 || !locals.some((local) => isCallOf(element, local))) return;
      const previousEnd = providers.elements[index - 1].getEnd();
      const between = source.text.slice(previousEnd, element.getStart(source));
      if (!/^\s*,[ \t]*$/.test(between)) return;
      recorder.remove(previousEnd, between.length);
      recorder.insertLeft(previousEnd, `,\n${indent}`);
    });
    tree.commitUpdate(recorder);
  };
}

function logNextSteps(
  context: SchematicContext,
  setup: Setup,
  file: string,
  added: readonly [string, string][],
  withRouter: boolean,
): void {
  context.logger.info(`Set up ngx-token-refresh in ${file}: added ${added.map(([symbol]) => symbol).join(' and ')}.`);
  if (setup.kind === 'auth') {
    context.logger.info(
      `Next: sign in with inject(AuthClient).login({ username, password }) and guard routes with authGuard (from ngx-token-refresh/router). ` +
        (withRouter
          ? `An ended session goes to /login (provideAuth's loginPath): give it a route.`
          : `Without a router, pass provideAuth an onSessionExpired of your own to handle an ended session.`),
    );
  } else {
    context.logger.info(
      'Next: after login, hand the access token to the interceptor with injectTokenRefresh().setToken(accessToken), ' +
        'and setToken(null) on logout.',
    );
  }
  if (setup.origin) {
    context.logger.info(
      `Requests to ${setup.origin} carry a token only when it is listed: ` +
        `withInterceptorOptions({ allowedOrigins: ['${setup.origin}'] }) (see "An API on another origin").`,
    );
  }
}
