/** @jest-environment node */
import path from 'node:path';

import { SchematicTestRunner, UnitTestTree } from '@angular-devkit/schematics/testing';
import ts from 'typescript';

import type { NgAddOptions } from './schema';

// The devkit's package-manager task loads `ora`, an ES module that Jest cannot require() on Node 20.
// These tests never run a task.
jest.mock('ora', () => ({
  __esModule: true,
  default: () => {
    throw new Error('no package-manager task runs in these tests');
  },
}));

const runner = new SchematicTestRunner('ngx-token-refresh', path.join(__dirname, '../collection.json'));
const CONFIG = '/projects/app/src/app/app.config.ts';
const ROUTES = '/projects/app/src/app/app.routes.ts';
const MAIN = '/projects/app/src/main.ts';

/** A workspace as `ng new` makes it: a standalone application `app`, and a library `lib`. */
let workspace: UnitTestTree;

beforeAll(async () => {
  const angular = (name: string, options: object, tree?: UnitTestTree) =>
    runner.runExternalSchematic('@schematics/angular', name, options, tree);
  let tree = await angular('workspace', { name: 'workspace', newProjectRoot: 'projects', version: '21.0.0' });
  tree = await angular('application', { name: 'app' }, tree);
  tree = await angular('library', { name: 'lib' }, tree);
  workspace = tree;
});

/** A copy of the workspace, with `app.config.ts` replaced when `config` is given. */
function app(config?: string): UnitTestTree {
  const tree = new UnitTestTree(workspace.branch());
  if (config !== undefined) tree.overwrite(CONFIG, config);
  return tree;
}

async function ngAdd(tree: UnitTestTree, options: NgAddOptions = {}): Promise<{ tree: UnitTestTree; logs: string[] }> {
  const logs: string[] = [];
  const subscription = runner.logger.subscribe((entry) => logs.push(`${entry.level}: ${entry.message}`));
  try {
    return { tree: await runner.runSchematic('ng-add', options, tree), logs };
  } finally {
    subscription.unsubscribe();
  }
}

const FETCH_CONFIG = `import { ApplicationConfig } from '@angular/core';
import { provideHttpClient, withFetch } from '@angular/common/http';

export const appConfig: ApplicationConfig = {
  providers: [provideHttpClient(withFetch())],
};
`;

const INTERCEPTORS_CONFIG = `import { ApplicationConfig } from '@angular/core';
import { HttpInterceptorFn, provideHttpClient, withFetch, withInterceptors } from '@angular/common/http';
import { provideRouter } from '@angular/router';

import { routes } from './app.routes';

const apiBaseUrl: HttpInterceptorFn = (request, next) => next(request.clone({ url: \`/api\${request.url}\` }));
const locale: HttpInterceptorFn = (request, next) => next(request.clone({ setHeaders: { 'Accept-Language': 'en' } }));

export const appConfig: ApplicationConfig = {
  providers: [
    provideRouter(routes),
    provideHttpClient(
      withFetch(),
      withInterceptors([apiBaseUrl, locale]),
    ),
  ],
};
`;

describe('ng add ngx-token-refresh', () => {
  it('adds provideHttpClient with the interceptor and provideAuth to the config of a new app', async () => {
    const { tree, logs } = await ngAdd(app());

    expect(tree.readText(CONFIG))
      .toBe(`import { ApplicationConfig, provideBrowserGlobalErrorListeners } from '@angular/core';
import { provideRouter } from '@angular/router';

import { routes } from './app.routes';
import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { tokenRefreshInterceptor, withCrossTabSync } from 'ngx-token-refresh';
import { provideAuth } from 'ngx-token-refresh/client';
import { navigateToLogin } from 'ngx-token-refresh/router';

export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    provideRouter(routes),
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideAuth({ baseUrl: '/auth', onSessionExpired: navigateToLogin }, withCrossTabSync())
  ]
};
`);
    expect(logs).toContain(
      'info: Set up ngx-token-refresh in projects/app/src/app/app.config.ts: added provideHttpClient and provideAuth.',
    );
  });

  it('adds withFetch() too when the app renders on the server', async () => {
    const tree = app();
    const angularJson = JSON.parse(tree.readText('/angular.json'));
    angularJson.projects.app.architect.build.options.ssr = { entry: 'projects/app/src/server.ts' };
    tree.overwrite('/angular.json', JSON.stringify(angularJson, null, 2));

    const { tree: result } = await ngAdd(tree);

    const config = result.readText(CONFIG);
    expect(config).toContain(`import { provideHttpClient, withFetch, withInterceptors } from '@angular/common/http';`);
    expect(config).toContain('provideHttpClient(withFetch(), withInterceptors([tokenRefreshInterceptor])),');
  });

  it('adds no withFetch() on Angular 22 and later, where fetch is the default backend', async () => {
    const tree = app();
    const angularJson = JSON.parse(tree.readText('/angular.json'));
    angularJson.projects.app.architect.build.options.ssr = { entry: 'projects/app/src/server.ts' };
    tree.overwrite('/angular.json', JSON.stringify(angularJson, null, 2));
    const packageJson = JSON.parse(tree.readText('/package.json'));
    packageJson.dependencies['@angular/common'] = '^22.2.0';
    tree.overwrite('/package.json', JSON.stringify(packageJson, null, 2));

    const { tree: result } = await ngAdd(tree);

    const config = result.readText(CONFIG);
    expect(config).toContain(`import { provideHttpClient, withInterceptors } from '@angular/common/http';`);
    expect(config).toContain('provideHttpClient(withInterceptors([tokenRefreshInterceptor])),');
  });

  it('adds withInterceptors to an existing provideHttpClient and keeps its features', async () => {
    const { tree } = await ngAdd(app(FETCH_CONFIG));

    expect(tree.readText(CONFIG)).toBe(`import { ApplicationConfig } from '@angular/core';
import { provideHttpClient, withFetch, withInterceptors } from '@angular/common/http';
import { tokenRefreshInterceptor, withCrossTabSync } from 'ngx-token-refresh';
import { provideAuth } from 'ngx-token-refresh/client';

export const appConfig: ApplicationConfig = {
  providers: [provideHttpClient(withFetch(), withInterceptors([tokenRefreshInterceptor])), provideAuth({ baseUrl: '/auth' }, withCrossTabSync())],
};
`);
  });

  it('appends the interceptor to an existing withInterceptors, after the ones there, with a note on order', async () => {
    const { tree, logs } = await ngAdd(app(INTERCEPTORS_CONFIG));
    const config = tree.readText(CONFIG);

    expect(config).toContain(`import { tokenRefreshInterceptor, withCrossTabSync } from 'ngx-token-refresh';
import { provideAuth } from 'ngx-token-refresh/client';`);
    expect(config).toContain(`import { navigateToLogin } from 'ngx-token-refresh/router';`);
    expect(config).toContain(`
  providers: [
    provideRouter(routes),
    provideHttpClient(
      withFetch(),
      withInterceptors([apiBaseUrl, locale, tokenRefreshInterceptor]),
    ),
    provideAuth({ baseUrl: '/auth', onSessionExpired: navigateToLogin }, withCrossTabSync()),
  ],
`);
    expect(logs).toContain(
      'info: Interceptor order: keep interceptors that rewrite URLs before tokenRefreshInterceptor, and logging or ' +
        'timing interceptors after it, so that they see every repeated request.',
    );
  });

  it('adds a multi-line interceptor list in its own style', async () => {
    const config = INTERCEPTORS_CONFIG.replace(
      'withInterceptors([apiBaseUrl, locale])',
      'withInterceptors([\n        apiBaseUrl,\n        locale,\n      ])',
    );
    const { tree } = await ngAdd(app(config));

    expect(tree.readText(CONFIG)).toContain(
      'withInterceptors([\n        apiBaseUrl,\n        locale,\n        tokenRefreshInterceptor,\n      ])',
    );
  });

  it('leaves a withInterceptors that takes no array literal to the user, and says so', async () => {
    const config = INTERCEPTORS_CONFIG.replace(
      'withInterceptors([apiBaseUrl, locale])',
      'withInterceptors(interceptors)',
    ).replace('export const appConfig', 'const interceptors = [apiBaseUrl, locale];\n\nexport const appConfig');
    const { tree, logs } = await ngAdd(app(config));

    expect(tree.readText(CONFIG)).toContain('withInterceptors(interceptors),');
    expect(tree.readText(CONFIG)).not.toContain('tokenRefreshInterceptor');
    expect(logs).toContain(
      'warn: The withInterceptors(...) of provideHttpClient in projects/app/src/app/app.config.ts does not take an ' +
        'array literal, so tokenRefreshInterceptor was not added to it. Add it by hand: after interceptors that ' +
        'rewrite URLs, before logging or timing interceptors.',
    );
  });

  it("writes provideTokenRefresh for the 'custom' setup, with the endpoint given", async () => {
    const { tree, logs } = await ngAdd(app(), {
      setup: 'custom',
      refreshUrl: 'https://api.example.com/session/renew/',
    });
    const config = tree.readText(CONFIG);

    expect(config).toContain(
      `import { ApplicationConfig, provideBrowserGlobalErrorListeners, inject } from '@angular/core';`,
    );
    expect(config).toContain(`import { provideHttpClient, withInterceptors, HttpClient } from '@angular/common/http';`);
    expect(config).toContain(`import { tokenRefreshInterceptor, provideTokenRefresh } from 'ngx-token-refresh';`);
    expect(config).toContain(`
    provideRouter(routes),
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideTokenRefresh({
      refreshApiCall: () =>
        inject(HttpClient).post('https://api.example.com/session/renew', null, { observe: 'response', withCredentials: true }),
      extractToken: (response) => (response.body as { accessToken: string }).accessToken,
    })
  ]
`);
    expect(config).not.toContain('provideAuth');
    expect(logs).toContain(
      `info: Requests to https://api.example.com carry a token only when it is listed: ` +
        `add allowedOrigins: ['https://api.example.com'] to the options of provideTokenRefresh (see "An API on another origin").`,
    );
  });

  it("derives provideAuth's baseUrl from the refresh endpoint", async () => {
    const { tree } = await ngAdd(app(), { refreshUrl: '/api/v1/auth/refresh' });

    expect(tree.readText(CONFIG)).toContain(
      `provideAuth({ baseUrl: '/api/v1/auth', onSessionExpired: navigateToLogin }, withCrossTabSync())`,
    );
  });

  it.each<[string, string | undefined, NgAddOptions]>([
    ['a new app', undefined, {}],
    ['a new app, custom setup', undefined, { setup: 'custom', refreshUrl: '/session/refresh' }],
    ['provideHttpClient(withFetch())', FETCH_CONFIG, {}],
    ['withInterceptors([apiBaseUrl, locale])', INTERCEPTORS_CONFIG, { setup: 'custom' }],
  ])('changes nothing when run a second time (%s)', async (_name, config, options) => {
    const { tree } = await ngAdd(app(config), options);
    const once = tree.readText(CONFIG);

    const again = await ngAdd(tree, options);

    expect(again.tree.readText(CONFIG)).toBe(once);
    expect(again.logs[0]).toMatch(
      /^info: ngx-token-refresh is already set up in projects\/app\/src\/app\/app\.config\.ts/,
    );
  });

  it('adds only the provider when the interceptor is already listed', async () => {
    const config = `import { ApplicationConfig } from '@angular/core';
import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { tokenRefreshInterceptor } from 'ngx-token-refresh';

export const appConfig: ApplicationConfig = {
  providers: [
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
  ],
};
`;
    const { tree } = await ngAdd(app(config));

    expect(tree.readText(CONFIG)).toBe(`import { ApplicationConfig } from '@angular/core';
import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { tokenRefreshInterceptor, withCrossTabSync } from 'ngx-token-refresh';
import { provideAuth } from 'ngx-token-refresh/client';

export const appConfig: ApplicationConfig = {
  providers: [
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideAuth({ baseUrl: '/auth' }, withCrossTabSync()),
  ],
};
`);
  });

  it('leaves a config that already registers the library alone, and says so', async () => {
    const config = `import { ApplicationConfig, inject } from '@angular/core';
import { HttpClient, provideHttpClient } from '@angular/common/http';
import { provideTokenRefresh as tokenRefresh } from 'ngx-token-refresh';

export const appConfig: ApplicationConfig = {
  providers: [
    provideHttpClient(),
    tokenRefresh({
      refreshApiCall: () => inject(HttpClient).post('/token', null, { observe: 'response' }),
      extractToken: () => 'token',
    }),
  ],
};
`;
    const { tree, logs } = await ngAdd(app(config));

    expect(tree.readText(CONFIG)).toBe(config);
    expect(logs).toEqual([
      'info: ngx-token-refresh is already set up in projects/app/src/app/app.config.ts (provideTokenRefresh): nothing changed.',
      'warn: tokenRefreshInterceptor is not in withInterceptors([...]) of a provideHttpClient in ' +
        'projects/app/src/app/app.config.ts: unless it is registered elsewhere, no request is refreshed.',
    ]);
  });

  it('adds an application config to a bootstrapApplication call without one', async () => {
    const tree = app();
    tree.overwrite(
      MAIN,
      tree.readText(MAIN).replace('bootstrapApplication(App, appConfig)', 'bootstrapApplication(App)'),
    );

    const result = await ngAdd(tree);

    expect(result.tree.readText(MAIN)).toContain(`bootstrapApplication(App, {
  providers: [provideHttpClient(withInterceptors([tokenRefreshInterceptor])), provideAuth({ baseUrl: '/auth' }, withCrossTabSync())]
})`);
  });

  describe('refuses, naming the file and what to add by hand', () => {
    const byHand =
      'provideHttpClient(withInterceptors([tokenRefreshInterceptor])),\n' +
      "  provideAuth({ baseUrl: '/auth', onSessionExpired: navigateToLogin }, withCrossTabSync()),";

    it('when the application config is not there', async () => {
      const tree = app();
      tree.delete(CONFIG);

      const error = ngAdd(tree);

      await expect(error).rejects.toThrow(
        'ngx-token-refresh: could not find the application config: projects/app/src/main.ts passes appConfig to ' +
          'bootstrapApplication, and ng add looked for `export const appConfig: ApplicationConfig = { providers: [...] }` ' +
          'in projects/app/src/app/app.config.ts.',
      );
      await expect(error).rejects.toThrow(byHand);
      await expect(error).rejects.toThrow(
        "tokenRefreshInterceptor, withCrossTabSync from 'ngx-token-refresh'; provideAuth from 'ngx-token-refresh/client' and navigateToLogin from 'ngx-token-refresh/router'.",
      );
    });

    it('when the main file has no bootstrapApplication', async () => {
      const tree = app();
      tree.overwrite(MAIN, `console.log('no app here');\n`);

      await expect(ngAdd(tree)).rejects.toThrow(
        "ngx-token-refresh: found no bootstrapApplication call (imported from '@angular/platform-browser') in " +
          'projects/app/src/main.ts, so there is no application config to edit.',
      );
    });

    it('when the project is a library', async () => {
      await expect(ngAdd(app(), { project: 'lib' })).rejects.toThrow(
        "ngx-token-refresh: 'lib' is a library, and ng add ngx-token-refresh sets up an application",
      );
    });

    it('when the app bootstraps an NgModule', async () => {
      const tree = await runner.runExternalSchematic(
        '@schematics/angular',
        'application',
        { name: 'modules', standalone: false },
        app(),
      );
      const module = tree.readText('/projects/modules/src/app/app-module.ts');

      const error = ngAdd(tree, { project: 'modules' });

      await expect(error).rejects.toThrow(
        'ngx-token-refresh: projects/modules/src/main.ts bootstraps an NgModule (bootstrapModule), and ng add only ' +
          'edits the application config of a standalone app (app.config.ts). Add the providers to the providers of ' +
          'the root NgModule (projects/modules/src/app/app-module.ts)',
      );
      await expect(error).rejects.toThrow(byHand);
      expect(tree.readText('/projects/modules/src/app/app-module.ts')).toBe(module);
    });

    it("when setup 'auth' gets an endpoint that is not <baseUrl>/refresh", async () => {
      await expect(ngAdd(app(), { refreshUrl: '/auth/token' })).rejects.toThrow(
        "must end in /refresh (got '/auth/token'). For another endpoint, use --setup custom.",
      );
    });

    it('when the endpoint is not a path or an http(s) URL', async () => {
      await expect(ngAdd(app(), { setup: 'custom', refreshUrl: "/auth/refresh'); alert('x" })).rejects.toThrow(
        '--refresh-url must be a path such as /auth/refresh',
      );
    });
  });

  it('writes configs that type-check against the public API', async () => {
    const results = {
      auth: (await ngAdd(app())).tree,
      custom: (await ngAdd(app(), { setup: 'custom' })).tree,
      interceptors: (await ngAdd(app(INTERCEPTORS_CONFIG), { setup: 'custom' })).tree,
    };
    const files: Record<string, string> = {};
    for (const [name, tree] of Object.entries(results)) {
      files[`${name}/app.config.ts`] = tree.readText(CONFIG);
      files[`${name}/app.routes.ts`] = tree.readText(ROUTES);
    }

    expect(typeCheck(files)).toEqual([]);
  }, 60_000);
});

/** Type-checks files (in memory) with the workspace's TypeScript, `ngx-token-refresh` (and `/router`) mapped to their sources. */
function typeCheck(files: Record<string, string>): string[] {
  const root = path.resolve(__dirname, '../../../..');
  const virtual = new Map(
    Object.entries(files).map(([name, text]) => [path.join(__dirname, '__typecheck__', name), text]),
  );
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    paths: {
      'ngx-token-refresh': [path.join(root, 'projects/ngx-token-refresh/src/public-api.ts')],
      'ngx-token-refresh/client': [path.join(root, 'projects/ngx-token-refresh/client/src/public-api.ts')],
      'ngx-token-refresh/router': [path.join(root, 'projects/ngx-token-refresh/router/src/public-api.ts')],
    },
  };
  const host = ts.createCompilerHost(options);
  const { directoryExists, fileExists, readFile, getSourceFile } = host;
  const virtualDirectories = new Set([...virtual.keys()].map((file) => path.dirname(file)));
  host.directoryExists = (directory) => virtualDirectories.has(directory) || !!directoryExists?.call(host, directory);
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const text = virtual.get(file);
    return text === undefined
      ? getSourceFile.call(host, file, language, ...rest)
      : ts.createSourceFile(file, text, language);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (diagnostic) =>
        `${diagnostic.file ? `${path.relative(root, diagnostic.file.fileName)}: ` : ''}` +
        ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
    );
}
