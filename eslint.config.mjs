// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Folders of our own code, as import patterns, and the modules that do I/O.
const OURS = [
  '**/api/**',
  '**/payments/**',
  '**/payments',
  '**/accounts/**',
  '**/accounts',
  // viem's own accounts module is not our folder.
  '!viem/accounts',
  '**/db/**',
  '**/providers/**',
  '**/chains/**',
  '**/activities/**',
  '**/activities',
  '**/workflows/**',
  '**/webhooks/**',
  '**/temporal/**',
  '**/worker/**',
  '**/watchers/**',
  '**/config',
  '**/mail/**',
];
const IO = ['postgres', 'drizzle-orm', 'drizzle-orm/*', 'fastify', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'];
const API_BANS = ['**/activities/**', '**/activities', '**/workflows/*/workflow', '**/temporal/**', '**/worker/**', '**/watchers/**'];
/** @type {(list: string[], ...allowed: string[]) => string[]} */
const without = (list, ...allowed) => list.filter((p) => !allowed.includes(p));
/** @type {(files: string, message: string, group: string[]) => import('eslint').Linter.Config[]} */
const layer = (files, message, group) => [
  {
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        // The sandbox provider is another service: our code talks to it over HTTP only.
        {
          patterns: [
            { group, message },
            { regex: '^(\\.\\./)+sandbox/', message: 'The sandbox is a separate service; reach it over HTTP.' },
            { regex: '^(\\.\\./)+tools/', message: 'tools/ is development and test tooling; the service never imports it.' },
          ],
        },
      ],
    },
  },
];

/**
 * Comments say why in place, or cite the project's own docs/ and README: a ticket number or a
 * section of a document outside the repository means nothing to someone who has only the repository.
 * @type {import('eslint').ESLint.Plugin}
 */
const citations = {
  rules: {
    'no-outside-references': {
      meta: {
        type: 'suggestion',
        docs: { description: 'comments cite docs/ or the README, never a ticket or an outside document' },
        messages: { outside: '"{{text}}" names a ticket or a section of a document outside the repository: say why here, or cite docs/.' },
        schema: [],
      },
      /** @param {import('eslint').Rule.RuleContext} context */
      create(context) {
        return {
          Program() {
            for (const comment of context.sourceCode.getAllComments()) {
              const found = /\b[Ii]ssue \d+|§|\b[Ss]pec (rule )?\d|\bthe spec\b|service-spec\.md|decisions\.md/.exec(comment.value);
              if (found) context.report({ loc: comment.loc ?? { line: 1, column: 0 }, messageId: 'outside', data: { text: found[0] } });
            }
          },
        };
      },
    },
  },
};

export default tseslint.config(
  {
    ignores: ['node_modules/', '.data/', '.tools/', 'dist/', 'coverage/', 'src/db/migrations/', 'packages/*/index.js', 'packages/sdk/lib/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { citations },
    rules: {
      'citations/no-outside-references': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The hosted page's small browser script: plain JavaScript, no type information.
    files: ['src/**/assets/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { project: false, projectService: false, program: null },
      globals: { window: 'readonly', document: 'readonly', fetch: 'readonly', setTimeout: 'readonly', navigator: 'readonly' },
    },
  },
  {
    // Tests poke at JSON bodies freely; the strict unsafe-any rules would only add casts there.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  // The service's own code, every folder: tools/ (launchers, installers, the local chain and mail sink)
  // is never part of it, and the sandbox provider is another service. Each layer below repeats both.
  ...layer('src/**/*.ts', 'The service never imports test code.', ['**/test/**', '**/bench/**']),
  // Layers of docs/architecture.md: a file imports its own layer and the layers below it.
  ...layer('src/domain/**/*.ts', 'Domain code is pure and imports nothing of ours.', [...OURS, ...IO]),
  ...layer('src/db/**/*.ts', 'The data layer uses domain types only.', without(OURS, '**/db/**')),
  ...layer('src/providers/**/*.ts', 'Provider adapters use domain code only.', without(OURS, '**/providers/**', '**/config')),
  ...layer('src/chains/**/*.ts', 'The chain layer uses domain code and viem only.', without(OURS, '**/chains/**', '**/config')),
  ...layer('src/webhooks/**/*.ts', 'Webhook posting uses domain code only.', without(OURS, '**/webhooks/**')),
  ...layer('src/mail/**/*.ts', 'Mail sending uses domain code only.', without(OURS, '**/mail/**')),
  ...layer('src/activities/**/*.ts', 'Activities never reach up into the API or the use cases.', [
    '**/api/**',
    '**/payments/**',
    '**/payments',
    '**/accounts/**',
    '**/accounts',
    '!viem/accounts',
  ]),
  ...layer('src/temporal/**/*.ts', 'The Temporal client wiring stands below every face and use case.', [
    '**/api/**',
    '**/payments/**',
    '**/payments',
    '**/accounts/**',
    '**/accounts',
    '!viem/accounts',
    '**/activities/**',
    '**/activities',
    '**/worker/**',
    '**/watchers/**',
  ]),
  ...layer('src/watchers/**/*.ts', 'Watchers run in the worker process: never the API or the worker wiring.', [
    '**/api/**',
    '**/worker/**',
  ]),
  ...layer('src/payments/**/*.ts', 'Use cases are called by the API, never the other way round.', [
    '**/api/**',
    '**/activities/**',
    '**/activities',
  ]),
  // Accounts sit beside the payment engine, which writes audit lines and notices through them.
  ...layer('src/accounts/**/*.ts', 'Accounts are called by the API and the payment engine, and call neither.', [
    '**/api/**',
    '**/activities/**',
    '**/activities',
    '**/payments/**',
    '**/payments',
    '**/workflows/**',
    '**/temporal/**',
  ]),
  ...layer('src/api/**/*.ts', 'Routes call use cases (app.payments); the data layer, workflows and activities are not theirs to touch.', [
    ...API_BANS,
    '**/db/**',
  ]),
  {
    // Wiring below the use cases, allowed the data layer (docs/architecture.md, "Layers"): app.ts builds the
    // db-backed PaymentContext; health.ts pings the pool for /readyz; the request plugins (merchant and
    // admin authentication, idempotency keys, rate limits of failed credentials, metrics gauges) keep
    // their state in Postgres so that several API processes share it, and run before any use case;
    // the dashboard's plugin counts sign-in, reset and sign-up attempts there, as those plugins do.
    files: ['src/api/app.ts', 'src/api/routes/health.ts', 'src/api/plugins/*.ts', 'src/api/dashboard/plugin.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: API_BANS, message: 'Routes call use cases; workflows and activities are not theirs to touch.' },
            { regex: '^(\\.\\./)+sandbox/', message: 'The sandbox is a separate service; reach it over HTTP.' },
            { regex: '^(\\.\\./)+tools/', message: 'tools/ is development and test tooling; the service never imports it.' },
          ],
        },
      ],
    },
  },
  {
    // Workflow code must be deterministic and bundle on its own: no Node built-ins, no I/O modules,
    // and activities only as types (Temporal replays workflow code against recorded histories).
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'Workflow code cannot use Node built-ins.' },
            {
              group: [
                'fs',
                'path',
                'crypto',
                'http',
                'https',
                'net',
                'dns',
                'child_process',
                'os',
                'timers',
                'util',
                'stream',
                'events',
                'worker_threads',
              ],
              message: 'Workflow code cannot use Node built-ins.',
            },
            {
              group: [
                ...IO,
                '**/db/**',
                '**/api/**',
                '**/providers/**',
                '**/payments/**',
                '**/accounts/**',
                '**/chains/**',
                '**/webhooks/**',
                '**/temporal/**',
                '**/worker/**',
                '**/watchers/**',
                '**/config',
              ],
              message: 'Workflow code does no I/O: call an activity.',
            },
            { group: ['**/activities', '**/activities/**'], message: 'Import activities with `import type` only.', allowTypeImports: true },
            { regex: '^(\\.\\./)+tools/', message: 'tools/ is development and test tooling; the service never imports it.' },
          ],
        },
      ],
    },
  },
);
