import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import ts from 'typescript';

// Shared by the specs of the READMEs' code blocks (not part of the library build: see tsconfig.lib.json).

/** The workspace root. */
export const ROOT = resolve(__dirname, '../../..');

/** The READMEs whose ```ts blocks users paste. */
export const READMES = ['README.md', 'projects/ngx-token-refresh/README.md'];

/** Written on the line before a block that is a fragment by nature and cannot compile alone. */
export const NOT_COMPILED = '<!-- not compiled: fragment -->';

/** One ```ts block of a README. */
export interface CodeBlock {
  /** `README.md:42`: the README and the line of the block's opening fence. */
  readonly where: string;
  readonly code: string;
  /** Marked with {@link NOT_COMPILED}. */
  readonly notCompiled: boolean;
  /** Has an `import` declaration: then it is a file, and must import everything it uses. */
  readonly isFile: boolean;
}

/** The ```ts blocks of `readme` (a path from the workspace root), in order. */
export function readCodeBlocks(readme: string): CodeBlock[] {
  const lines = readFileSync(join(ROOT, readme), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```ts') continue;
    const start = i;
    const code: string[] = [];
    while (++i < lines.length && lines[i]?.trim() !== '```') code.push(lines[i] ?? '');
    const before = lines.slice(0, start).filter((line) => line.trim() !== '');
    const text = code.join('\n') + '\n';
    blocks.push({
      where: `${readme}:${start + 1}`,
      code: text,
      notCompiled: before.at(-1)?.trim() === NOT_COMPILED,
      isFile: parse('block.ts', text).statements.some(ts.isImportDeclaration),
    });
  }
  return blocks;
}

/**
 * Type-checks each block as a module of its own against the library's sources (the package names
 * mapped as in tsconfig.spec.json) and returns the diagnostics of each, by `where`.
 *
 * - A block that imports anything is a file: it gets nothing added. Its relative imports stand for
 *   the app's own files (`./app/app`) and give `any`.
 * - A block without imports is a fragment: the names it uses without declaring them come from a
 *   prelude that imports the library's public API and the Angular and RxJS names of {@link KNOWN},
 *   and declares the placeholders of {@link PLACEHOLDERS} (`http`, `refreshApiCall`, ...).
 */
export function typeCheck(blocks: readonly CodeBlock[]): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.spec.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.spec.json could not be read');
  const options: ts.CompilerOptions = { ...config.options, noEmit: true, types: [] };
  const known = knownNames();
  // Never written to disk: inside the workspace only so that node_modules resolves from there.
  const virtualRoot = join(ROOT, 'projects/ngx-token-refresh/readme/.blocks');
  const files = new Map<string, string>();
  /** Each block's file, with its README line and the number of lines the prelude added before it. */
  const byFile = new Map<string, { where: string; readme: string; fence: number; added: number }>();
  blocks.forEach((block, index) => {
    const file = join(virtualRoot, String(index), 'block.ts');
    const source = parse(file, block.code);
    const added = block.isFile ? '' : prelude(source, known);
    const [readme = '', fence = '0'] = block.where.split(':');
    byFile.set(file, { where: block.where, readme, fence: Number(fence), added: added.split('\n').length - 1 });
    files.set(file, block.isFile ? block.code : added + block.code + '\nexport {};\n');
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const specifier = statement.moduleSpecifier.text;
      if (!specifier.startsWith('.')) continue;
      const names = importedNames(statement);
      const stub = names.map((name) => `export declare const ${name}: any;\nexport type ${name} = any;\n`).join('');
      files.set(join(dirname(file), `${specifier}.ts`), stub);
    }
  });
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.directoryExists = (name) =>
    name.startsWith(virtualRoot)
      ? [...files.keys()].some((file) => file.startsWith(name + '/'))
      : ts.sys.directoryExists(name);
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = files.get(name);
    return text !== undefined
      ? ts.createSourceFile(name, text, language)
      : getSourceFile.call(host, name, language, ...rest);
  };
  const program = ts.createProgram([...byFile.keys()], options, host);
  const result = new Map<string, string[]>();
  for (const [file, { where, readme, fence, added }] of byFile) {
    const source = program.getSourceFile(file);
    const diagnostics = source
      ? [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
      : [];
    result.set(
      where,
      diagnostics.map((diagnostic) => {
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
        if (!diagnostic.file || diagnostic.start === undefined) return message;
        const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
        return diagnostic.file.fileName === file
          ? `${readme}:${fence + 1 + line - added}: ${message}`
          : `${relative(ROOT, diagnostic.file.fileName)}:${line + 1}: ${message}`;
      }),
    );
  }
  return result;
}

/** Names a fragment may use without importing them, by module (the library's are read from its public API). */
const KNOWN: Record<string, readonly string[]> = {
  '@angular/common/http': [
    'HttpClient',
    'HttpContext',
    'HttpErrorResponse',
    'HttpHandlerFn',
    'HttpInterceptorFn',
    'HttpRequest',
    'HttpResponse',
    'provideHttpClient',
    'withFetch',
    'withInterceptors',
  ],
  '@angular/common/http/testing': ['HttpTestingController', 'provideHttpClientTesting'],
  '@angular/core': ['ApplicationConfig', 'Component', 'Injectable', 'computed', 'inject', 'input', 'signal'],
  '@angular/platform-browser': ['bootstrapApplication'],
  '@angular/router': ['Router', 'Routes', 'provideRouter', 'withComponentInputBinding'],
  rxjs: ['Observable', 'tap'],
};

/** What a fragment stands in the middle of: the app's values that the snippet refers to. */
const PLACEHOLDERS: Record<string, string> = {
  App: 'declare class App {}',
  LoginPage: 'declare class LoginPage {}',
  UsersPage: 'declare class UsersPage {}',
  routes: 'declare const routes: Routes;',
  http: 'declare const http: HttpClient;',
  httpTesting: 'declare const httpTesting: HttpTestingController;',
  request: 'declare const request: HttpRequest<unknown>;',
  credentials: 'declare const credentials: { username: string; password: string };',
  username: 'declare const username: string;',
  password: 'declare const password: string;',
  tokenFromLogin: 'declare const tokenFromLogin: string;',
  accessToken: 'declare const accessToken: string;',
  refreshApiCall: "declare const refreshApiCall: TokenRefreshOptions['refreshApiCall'];",
  extractToken: "declare const extractToken: TokenRefreshOptions['extractToken'];",
};

/** Every name of {@link KNOWN} and of the library's entry points, with its module. */
function knownNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const [module, exports] of Object.entries(KNOWN)) for (const name of exports) names.set(name, module);
  for (const [module, path] of Object.entries(config().paths)) {
    for (const statement of parse(path, readFileSync(join(ROOT, path), 'utf8')).statements) {
      if (!ts.isExportDeclaration(statement) || !statement.exportClause || !ts.isNamedExports(statement.exportClause))
        continue;
      for (const element of statement.exportClause.elements) {
        if (!element.name.text.startsWith('ɵ')) names.set(element.name.text, module);
      }
    }
  }
  return names;
}

/** The package names of the library and their public API files, as tsconfig.json maps them. */
function config(): { paths: Record<string, string> } {
  const { compilerOptions } = ts.parseConfigFileTextToJson(
    'tsconfig.json',
    readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'),
  ).config as { compilerOptions: { paths: Record<string, [string]> } };
  return {
    paths: Object.fromEntries(Object.entries(compilerOptions.paths).map(([name, [path]]) => [name, path])),
  };
}

/** Imports of the known names, and the placeholders, that `source` does not declare itself. */
function prelude(source: ts.SourceFile, known: Map<string, string>): string {
  const declared = declaredNames(source);
  const byModule = new Map<string, string[]>();
  for (const [name, module] of known) {
    if (!declared.has(name)) byModule.set(module, [...(byModule.get(module) ?? []), name]);
  }
  // The placeholders' types need their modules' names, whatever the block declares.
  const imports = [...byModule].map(([module, names]) => `import { ${names.join(', ')} } from '${module}';`);
  const placeholders = Object.entries(PLACEHOLDERS)
    .filter(([name]) => !declared.has(name))
    .map(([, declaration]) => declaration);
  return [...imports, ...placeholders, ''].join('\n');
}

/** The names a module declares at its top level. */
function declaredNames(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const bind = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) importedNames(statement).forEach((name) => names.add(name));
    else if (ts.isVariableStatement(statement)) statement.declarationList.declarations.forEach((d) => bind(d.name));
    else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      names.add(statement.name.text);
    }
  }
  return names;
}

function importedNames(statement: ts.ImportDeclaration): string[] {
  const clause = statement.importClause;
  if (!clause) return [];
  const names = clause.name ? [clause.name.text] : [];
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push(bindings.name.text);
  if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.map((element) => element.name.text));
  return names;
}

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}
