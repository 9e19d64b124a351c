// The public API of every entry point, as users get it: API Extractor reads the built declarations in
// dist/ngx-token-refresh (after `npm run build:lib`), one report per entry point of the package's
// `exports`, and API Documenter turns the same analysis into the reference in docs/api/.
//
//   node projects/ngx-token-refresh/scripts/api-report.mjs            (npm run api:check)
//   node projects/ngx-token-refresh/scripts/api-report.mjs --update   (npm run api:update)
//
// Checking fails when a report in projects/ngx-token-refresh/api/ or a page of docs/api/ is not what
// the build gives, or when API Extractor warns (a type used by the API but not exported, a broken
// {@link}, a doc comment TSDoc cannot read). --update writes the reports and docs/api/ again.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import apiExtractor from '@microsoft/api-extractor';

const { CompilerState, ConsoleMessageId, Extractor, ExtractorConfig, ExtractorLogLevel } = apiExtractor;
// A message the callback takes over is neither printed nor counted as a warning.
const silence = (message) => {
  message.handled = true;
  message.logLevel = ExtractorLogLevel.None;
};

const update = process.argv.includes('--update');
const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const dist = join(root, 'dist/ngx-token-refresh');
const reportFolder = join(root, 'projects/ngx-token-refresh/api');
const configFile = join(reportFolder, 'api-extractor.json');
const docsFolder = join(root, 'docs/api');
const scratch = join(root, 'dist/api-report');
const shortPath = (path) => relative(root, path);

if (!existsSync(join(dist, 'package.json'))) {
  console.error('api-report: build the library first (npm run build:lib).');
  process.exit(1);
}

// Every entry point of the package's `exports`, so a new one cannot go unreported; the main one first.
const packageJson = JSON.parse(readFileSync(join(dist, 'package.json'), 'utf8'));
const entryPoints = Object.entries(packageJson.exports)
  .filter(([subpath]) => subpath !== './package.json')
  .sort(([a], [b]) => (a === '.' ? -1 : b === '.' ? 1 : a.localeCompare(b)))
  .map(([subpath, conditions]) => {
    const importPath = packageJson.name + subpath.slice(1);
    return {
      importPath,
      types: join(dist, conditions.types),
      reportName: importPath.replaceAll('/', '-'),
      // API Extractor takes no `/` in an unscoped package name; Angular's API goldens write
      // `@angular/common_http` for `@angular/common/http`, and so does this report.
      modelName: importPath.replaceAll('/', '_'),
    };
  });
const [mainEntry] = entryPoints;
const unbuilt = entryPoints.filter((entry) => !existsSync(entry.types));
if (unbuilt.length > 0) {
  console.error(`api-report: no ${unbuilt.map((e) => shortPath(e.types)).join(', ')}: run npm run build:lib.`);
  process.exit(1);
}

rmSync(scratch, { recursive: true, force: true });

// `ngx-token-refresh/router` imports `ApiError` from `ngx-token-refresh/client`, which TypeScript resolves to
// dist/ itself (the package's own name). API Extractor counts only an import resolved inside a
// node_modules folder as another package's, so the entry points are mapped to a copy in one: the
// router's report then says `import { ApiError } from 'ngx-token-refresh/client'`, as its users see it.
const paths = {};
for (const entry of entryPoints) {
  const copy = join(scratch, 'node_modules', relative(join(dist, '..'), entry.types));
  mkdirSync(dirname(copy), { recursive: true });
  copyFileSync(entry.types, copy);
  paths[entry.importPath] = [copy];
}
const baseConfig = ExtractorConfig.loadFile(configFile);
const problems = [];
let warned = 0;
let compilerState;
let mainExports = new Set();
for (const entry of entryPoints) {
  const config = ExtractorConfig.prepare({
    configObject: {
      ...baseConfig,
      mainEntryPointFilePath: entry.types,
      compiler: {
        ...baseConfig.compiler,
        overrideTsconfig: {
          ...baseConfig.compiler.overrideTsconfig,
          compilerOptions: { ...baseConfig.compiler.overrideTsconfig.compilerOptions, paths },
          files: entryPoints.map((e) => e.types),
        },
      },
      apiReport: { ...baseConfig.apiReport, reportFileName: entry.reportName },
      docModel: { ...baseConfig.docModel, apiJsonFilePath: join(scratch, 'model', `${entry.reportName}.api.json`) },
    },
    configObjectFullPath: configFile,
    packageJsonFullPath: join(dist, 'package.json'),
    packageJson: { name: entry.modelName },
  });
  // One TypeScript program for all entry points: the analysis takes seconds, not seconds per entry.
  compilerState ??= CompilerState.create(config, { additionalEntryPoints: entryPoints.map((e) => e.types) });
  let diff = '';
  const result = Extractor.invoke(config, {
    localBuild: update,
    compilerState,
    printApiReportDiff: !update,
    messageCallback: (message) => {
      switch (message.messageId) {
        case ConsoleMessageId.ApiReportDiff:
          diff = message.text;
          silence(message);
          break;
        // Said again below in this script's words, which name the npm script to run; and the TypeScript
        // release API Extractor bundles, the same on every run.
        case ConsoleMessageId.ApiReportNotCopied:
        case ConsoleMessageId.ApiReportCopied:
        case ConsoleMessageId.ApiReportCreated:
        case ConsoleMessageId.Preamble:
        case ConsoleMessageId.CompilerVersionNotice:
          silence(message);
          break;
        // A secondary entry point's {@link provideAuth}: an export of the main entry point, which the
        // reference links to (see `linkToMainEntry` below).
        case 'ae-unresolved-link':
          if (entry !== mainEntry && mainExports.has(/does not have an export "([^"]+)"/.exec(message.text)?.[1])) {
            silence(message);
          }
          break;
      }
    },
  });
  if (entry === mainEntry) {
    const model = JSON.parse(readFileSync(config.apiJsonFilePath, 'utf8'));
    mainExports = new Set(model.members[0].members.map((member) => member.name));
  }
  const report = shortPath(join(reportFolder, `${entry.reportName}.api.md`));
  if (result.errorCount + result.warningCount > 0) {
    warned += 1;
    problems.push(
      `${entry.importPath}: API Extractor reported ${result.errorCount} errors and ${result.warningCount} warnings (above).`,
    );
  }
  if (result.apiReportChanged && !update) {
    console.error(diff);
    problems.push(`${entry.importPath}: its public API is not what ${report} says (the diff above).`);
  } else {
    console.log(`${entry.importPath}: ${result.apiReportChanged ? 'wrote' : 'matches'} ${report}`);
  }
}

// A report whose entry point is gone.
const reportNames = new Set(entryPoints.map((e) => `${e.reportName}.api.md`));
for (const file of readdirSync(reportFolder).filter((f) => f.endsWith('.api.md') && !reportNames.has(f))) {
  if (update) {
    rmSync(join(reportFolder, file));
    console.log(`removed ${shortPath(join(reportFolder, file))}: the package has no such entry point`);
  } else {
    problems.push(`${shortPath(join(reportFolder, file))}: the package has no such entry point any more.`);
  }
}

// The reference. Changes to the doc model before API Documenter reads it:
// - `ɵ` names are Angular's mark for "exported, but not for you" (ɵAUTH_CONFIG, the features'
//   ɵkind/ɵproviders, the compiler's ɵfac/ɵprov): they stay in the reports, so a change to them is
//   seen, and out of the reference.
// - API Documenter prints only the standard TSDoc sections: the doc comments' `@usageNotes` (Angular's
//   tag for the usage example) is printed as an `@example`, and a one-line `@example` as code.
// - A secondary entry point's {@link X}, where X is an export of the main entry point, links there.
const modelFolder = join(scratch, 'model');
const documenterInput = join(scratch, 'documenter-input');
mkdirSync(documenterInput, { recursive: true });
const linkToMainEntry = (docComment) =>
  docComment.replace(
    /\{@link\s+([A-Za-z_$][\w$]*)([.#][\w$.#]*)?\s*(?:\|\s*([^}]*?)\s*)?\}/g,
    (link, name, member, text) =>
      mainExports.has(name)
        ? `{@link ${mainEntry.modelName}#${name}${member ?? ''} | ${text ?? name + (member ?? '')}}`
        : link,
  );
// API Extractor writes each doc comment again as TSDoc reads it: an `@example` line, then its text on
// the lines up to the next tag. Text without a fence of its own (`@example (response) => ...` in the
// sources) is put in one.
const fenceExamples = (docComment) => {
  const lines = docComment.split('\n');
  const textOf = (line) => line.replace(/^\s*\*\s?/, '');
  const endsBlock = (line) => /^\s*\*(\s@|\/)/.test(line);
  for (let start = 0; start < lines.length; start++) {
    if (textOf(lines[start]) !== '@example') continue;
    let end = start + 1;
    while (end < lines.length && !endsBlock(lines[end])) end++;
    const text = lines.slice(start + 1, end).map(textOf);
    const first = text.findIndex((line) => line !== '');
    if (first === -1 || text.some((line) => line.startsWith('```'))) continue;
    const last = text.findLastIndex((line) => line !== '');
    lines.splice(start + 2 + last, 0, ' * ```');
    lines.splice(start + 1 + first, 0, ' * ```ts');
  }
  return lines.join('\n');
};
const forTheReference = (item, entry) => {
  if (typeof item.docComment === 'string') {
    item.docComment = fenceExamples(item.docComment.replaceAll('@usageNotes', '@example'));
    if (entry !== mainEntry) {
      item.docComment = linkToMainEntry(item.docComment);
    }
  }
  if (Array.isArray(item.members)) {
    item.members = item.members
      .filter((member) => !member.name?.startsWith('ɵ'))
      .map((member) => forTheReference(member, entry));
  }
  return item;
};
for (const entry of entryPoints) {
  const file = `${entry.reportName}.api.json`;
  const model = JSON.parse(readFileSync(join(modelFolder, file), 'utf8'));
  writeFileSync(join(documenterInput, file), JSON.stringify(forTheReference(model, entry), null, 2));
}
const generatedDocs = join(scratch, 'docs');
const documenter = join(
  dirname(createRequire(import.meta.url).resolve('@microsoft/api-documenter/package.json')),
  'bin/api-documenter',
);
execFileSync(process.execPath, [documenter, 'markdown', '-i', documenterInput, '-o', generatedDocs], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
// The pages name each entry point by its import path rather than by the report's package name.
const pages = readdirSync(generatedDocs).sort();
for (const page of pages) {
  let text = readFileSync(join(generatedDocs, page), 'utf8');
  for (const entry of entryPoints) {
    text = text.replaceAll(entry.modelName.replaceAll('_', '\\_'), entry.importPath);
  }
  writeFileSync(join(generatedDocs, page), text);
}

const committedPages = existsSync(docsFolder) ? readdirSync(docsFolder).sort() : [];
const changedPages = [
  ...pages.filter(
    (page) =>
      !committedPages.includes(page) ||
      readFileSync(join(generatedDocs, page), 'utf8') !== readFileSync(join(docsFolder, page), 'utf8'),
  ),
  ...committedPages.filter((page) => !pages.includes(page)),
];
if (update) {
  rmSync(docsFolder, { recursive: true, force: true });
  mkdirSync(docsFolder, { recursive: true });
  for (const page of pages) {
    writeFileSync(join(docsFolder, page), readFileSync(join(generatedDocs, page)));
  }
  console.log(`docs/api: ${pages.length} pages, ${changedPages.length} written or removed`);
} else if (changedPages.length > 0) {
  const shown = changedPages.slice(0, 10).join(', ') + (changedPages.length > 10 ? ', ...' : '');
  problems.push(`docs/api: ${changedPages.length} pages differ from the doc comments of the build (${shown}).`);
} else {
  console.log(`docs/api: ${pages.length} pages match the doc comments`);
}

if (problems.length > 0) {
  console.error(
    `\napi-report: ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}\n- ${problems.join('\n- ')}`,
  );
  if (warned) {
    console.error("\nAPI Extractor's warnings are about the sources (a doc comment, an export): fix them there.");
  }
  if (!update && problems.length > warned) {
    console.error(
      '\nIf the change to the public API or its doc comments is intended, run `npm run api:update` ' +
        '(it builds the library, then writes the reports and docs/api/ again) and commit them with the change.',
    );
  }
  process.exit(1);
}
