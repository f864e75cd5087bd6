// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', '.tools/', 'dist/', 'coverage/', 'src/db/migrations/', 'packages/*/index.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
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
      globals: { window: 'readonly', document: 'readonly', fetch: 'readonly', setTimeout: 'readonly' },
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
              group: ['fs', 'path', 'crypto', 'http', 'https', 'net', 'dns', 'child_process', 'os', 'timers', 'util', 'stream', 'events', 'worker_threads'],
              message: 'Workflow code cannot use Node built-ins.',
            },
            {
              group: ['postgres', 'drizzle-orm', 'drizzle-orm/*', 'fastify', '@temporalio/client', '@temporalio/worker', '@temporalio/activity', '**/db/**', '**/api/**', '**/providers/**', '**/config'],
              message: 'Workflow code does no I/O: call an activity.',
            },
            { group: ['**/activities', '**/activities/**'], message: 'Import activities with `import type` only.', allowTypeImports: true },
          ],
        },
      ],
    },
  },
);
