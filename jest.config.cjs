const { createCjsPreset } = require('jest-preset-angular/presets');

const preset = createCjsPreset({ tsconfig: '<rootDir>/tsconfig.spec.json' });

/** Server-render specs: a real platform-server render in Node, see the `server` project. */
const SERVER_RENDER_SPEC = '/[^/]*server-render\\.spec\\.ts$';

/** The bff entry point's specs: node:test, see `npm run test:bff`. */
const BFF = '<rootDir>/projects/ngx-token-refresh/bff/';

const shared = {
  ...preset,
  rootDir: __dirname,
  roots: ['<rootDir>/projects'],
  modulePathIgnorePatterns: ['<rootDir>/dist'],
  moduleNameMapper: {
    '^ngx-token-refresh$': '<rootDir>/projects/ngx-token-refresh/src/public-api.ts',
    '^ngx-token-refresh/client$': '<rootDir>/projects/ngx-token-refresh/client/src/public-api.ts',
    '^ngx-token-refresh/testing$': '<rootDir>/projects/ngx-token-refresh/testing/src/public-api.ts',
    '^ngx-token-refresh/router$': '<rootDir>/projects/ngx-token-refresh/router/src/public-api.ts',
    '^ngx-token-refresh/oauth$': '<rootDir>/projects/ngx-token-refresh/oauth/src/public-api.ts',
    // The contract and its demo data, by the alias both backends import them with (tsconfig.json's paths).
    '^#contract$': '<rootDir>/projects/contract/src/public-api.ts',
    '^#contract/demo$': '<rootDir>/projects/contract/demo/public-api.ts',
    // The contract (projects/contract) is also compiled for Node, whose ES modules need the `.js` of a
    // relative import; the TypeScript file behind it has none.
    '^(\\.{1,2}/.+)\\.js$': '$1',
    // The page fetches the copy of app.config.ts its build ships; in Jest the same text comes from disk.
    '^(.*)/app-config-source$': '$1/app-config-source.jest',
  },
};

/** @type {import('jest').Config} */
module.exports = {
  // Every core: Jest's default leaves one for itself, which on a 2-core CI machine means one worker,
  // while the parent process mostly waits.
  maxWorkers: '100%',
  projects: [
    {
      ...shared,
      displayName: 'browser',
      setupFilesAfterEnv: ['<rootDir>/setup-jest.ts'],
      // The reference server's suites (*.test.ts) run on node:test over real HTTP: npm run test:server.
      // The contract it shares with the showcase's in-memory backend (projects/contract) runs here, as it
      // runs in the browser. The bff entry point is Node code with ES-module-only peers (oauth4webapi):
      // its specs run on node:test too, npm run test:bff.
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/projects/reference-server/', BFF, SERVER_RENDER_SPEC],
    },
    {
      ...shared,
      // Without setup-jest.ts: its TestBed platform installs the browser DOM adapter, and Angular keeps
      // the first adapter it is given (setRootDomAdapter), so platform-server's Domino one never took over.
      displayName: 'server',
      testEnvironment: 'node',
      testRegex: SERVER_RENDER_SPEC,
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/projects/reference-server/', BFF],
      transform: {
        // The preset compiles every .mjs with esbuild, whose CommonJS output of an .mjs file imports
        // a default the Node way (the whole module), so platform-server's `import domino from
        // '../third_party/domino/bundled-domino.mjs'` got { default: domino } ("reading 'Event'").
        // ts-jest, which the preset builds on, honours __esModule: platform-server goes through it.
        '^.+/node_modules/@angular/platform-server/.+\\.mjs$': [
          require.resolve('ts-jest', { paths: [require.resolve('jest-preset-angular')] }),
          { tsconfig: { allowJs: true, isolatedModules: true, module: 'commonjs', esModuleInterop: true } },
        ],
        ...preset.transform,
      },
    },
  ],
};
