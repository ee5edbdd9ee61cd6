// ESLint (flat config) with typescript-eslint: `npm run lint`, part of `npm test`.
// The recommended rule sets without type information: the type-aware ones (recommendedTypeChecked)
// took 72 s of CPU and 830 MB here against 13 s without, over the 30 s budget of `npm run lint` on a
// 2-core machine, and tsc (`npm run typecheck`) checks the types already.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Node's globals that the few plain JavaScript files use (TypeScript files get theirs from @types/node). */
const node = { process: 'readonly', console: 'readonly', URL: 'readonly' };

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'drizzle/**', 'contrib/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_`-prefixed names are unused on purpose (a key dropped by destructuring, an ignored parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...node, module: 'writable', require: 'readonly' } },
  },
  {
    // The Store conformance suite holds every engine to the interface: it may not reach around it.
    files: ['test/store/conformance.ts', 'test/store/records.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/db/**/*.js', '!**/src/db/store.js', '!**/src/db/queries/types.js', '!**/src/db/schema/enums.js'],
              message: 'The conformance suite uses the Store interface (src/db/store.ts) and pure types only: no engine, no query module.',
            },
            { group: ['better-sqlite3', 'drizzle-orm', 'drizzle-orm/**', 'pg', 'postgres'], message: 'The conformance suite uses no database driver: data goes through the Store.' },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests match aligned terminal columns: the spaces as printed show the layout better than ` {8}`.
      'no-regex-spaces': 'off',
    },
  },
);
