const { createCjsPreset } = require('jest-preset-angular/presets');

/** @type {import('jest').Config} */
module.exports = {
  ...createCjsPreset({ tsconfig: '<rootDir>/tsconfig.spec.json' }),
  setupFilesAfterEnv: ['<rootDir>/setup-jest.ts'],
  roots: ['<rootDir>/projects'],
  // The reference server's suites (*.test.ts) run on node:test over real HTTP: npm run test:server.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/projects/reference-server/'],
  modulePathIgnorePatterns: ['<rootDir>/dist'],
  moduleNameMapper: {
    '^ngx-token-refresh$': '<rootDir>/projects/ngx-token-refresh/src/public-api.ts',
    '^ngx-token-refresh/testing$': '<rootDir>/projects/ngx-token-refresh/testing/src/public-api.ts',
  },
};
