// Type-aware lint: floating promises, exhaustive switches and import cycles fail the build.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importPlugin from 'eslint-plugin-import';
import prettier from 'eslint-config-prettier';

const LOWER = ['libs/config', 'libs/common'];
const ADAPTERS = ['libs/database', 'libs/queue', 'libs/chains'];
/** Each zone: files under `target` may not import from `from`. */
const LAYER_ZONES = [
  {
    target: './libs',
    from: './apps',
    message: 'A lib never imports an app.',
  },
  {
    target: './apps/worker',
    from: './apps/api',
    message: 'The worker never imports the API (shared code lives in libs/).',
  },
  {
    target: './apps/api',
    from: './apps/worker',
    message: 'The API never imports the worker (shared code lives in libs/).',
  },
  ...LOWER.map((target) => ({
    target: `./${target}`,
    from: [...ADAPTERS, 'libs/domain', 'libs/client'].map((lib) => `./${lib}`),
    message: 'config and common are the bottom layer: they import no other lib.',
  })),
  ...ADAPTERS.map((target) => ({
    target: `./${target}`,
    from: [...ADAPTERS.filter((lib) => lib !== target), 'libs/domain'].map((lib) => `./${lib}`),
    message: 'database, queue and chains import only config and common.',
  })),
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '*.js',
      '*.mjs',
      '.localnet/**',
      '**/*.tmp.ts',
      'libs/client/src/generated/**',
      'libs/client/dist/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { import: importPlugin },
    settings: {
      'import/resolver': { typescript: { project: './tsconfig.json' } },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/require-await': 'off',
      'import/no-cycle': ['error', { maxDepth: 10 }],
      // The layer rule: apps -> domain -> {database, queue, chains} -> {config, common}.
      'import/no-restricted-paths': ['error', { zones: LAYER_ZONES }],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'litesvm',
              message: 'Only apps/localnet may use litesvm: the service talks JSON-RPC.',
            },
          ],
        },
      ],
    },
  },
  {
    // The use cases know no transport: HTTP belongs to apps/api, queues to @app/queue. Nor do
    // they know TypeORM: a transaction reaches them as @app/database's opaque WorkScope.
    files: ['libs/domain/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...['litesvm', 'bullmq', 'ioredis', 'fastify', '@nestjs/platform-fastify'].map(
              (name) => ({
                name,
                message: 'libs/domain has no HTTP, queue or Redis imports: go through @app/queue.',
              }),
            ),
            {
              name: 'typeorm',
              message:
                'libs/domain does not see TypeORM: queries live in @app/database repositories, and a transaction is a WorkScope (UnitOfWork.run).',
            },
          ],
          patterns: [
            { group: ['@fastify/*'], message: 'libs/domain has no HTTP imports.' },
            { group: ['typeorm/*'], message: 'libs/domain does not see TypeORM.' },
            {
              group: ['@app/database/*'],
              message:
                'Import @app/database itself: its internals (managerOf, scopeOf) stay in it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/localnet/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  prettier,
);
