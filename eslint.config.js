// @ts-check
const eslint = require('@eslint/js');
const tseslint = require('typescript-eslint');
const angular = require('angular-eslint');
const prettier = require('eslint-config-prettier');

module.exports = tseslint.config(
  {
    ignores: [
      'dist/',
      'projects/reference-server/dist/',
      'out-tsc/',
      '.angular/',
      'coverage/',
      'node_modules/',
      'test-results/',
      'playwright-report/',
      // The consumer apps: as the Angular CLI made them, linted by nothing of ours (integration/README.md).
      'integration/*/',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [
      eslint.configs.recommended,
      ...tseslint.configs.recommended,
      ...tseslint.configs.stylistic,
      ...angular.configs.tsRecommended,
      prettier,
    ],
    processor: angular.processInlineTemplates,
    rules: {
      '@angular-eslint/directive-selector': [
        'error',
        { type: 'attribute', prefix: ['app', 'ntr'], style: 'camelCase' },
      ],
      '@angular-eslint/component-selector': ['error', { type: 'element', prefix: ['app', 'ntr'], style: 'kebab-case' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'List every export by name (no export *).' },
      ],
    },
  },
  {
    // The contract and its demo data run in Node (the reference server) and in the browser (the
    // showcase's in-memory backend): they may import only their own files, and use no API that one of
    // them lacks.
    files: ['projects/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!\\./)', message: 'The contract imports only its own files (./...).' }] },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', 'window', 'document', 'localStorage', 'navigator'].map((name) => ({
          name,
          message: 'The contract runs in Node and in the browser: no API of only one of them.',
        })),
      ],
    },
  },
  {
    // The bff entry point runs in the app's Node server, and is built as the library is (ng-packagr,
    // no Node types): Web-standard APIs only (fetch, Web Crypto), its own files and oauth4webapi, its
    // one (optional) peer. Its specs may use Node and the test databases.
    files: ['projects/ngx-token-refresh/bff/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.spec-helper.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./|oauth4webapi$)',
              message: 'The bff entry point imports only its own files (./...) and oauth4webapi.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['window', 'document', 'localStorage', 'sessionStorage', 'navigator'].map((name) => ({
          name,
          message: 'The bff entry point runs in Node: no browser API.',
        })),
        ...['process', 'Buffer', 'require'].map((name) => ({
          name,
          message: 'The bff entry point uses Web-standard APIs only (no Node types in the package).',
        })),
        { name: 'ngDevMode', message: 'The bff entry point is no Angular code: ngDevMode is never set there.' },
      ],
    },
  },
  {
    files: ['**/*.html'],
    extends: [...angular.configs.templateRecommended, ...angular.configs.templateAccessibility],
  },
  {
    files: ['**/*.mjs'],
    extends: [eslint.configs.recommended, prettier],
    languageOptions: {
      sourceType: 'module',
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    extends: [eslint.configs.recommended, prettier],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
  },
);
