// Lint rules for src, tests, bench and scripts (npm run lint); formatting is
// Prettier's (.prettierrc.json), so no rule here is about layout.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/**', 'test-results/**', 'packages/client/src/schema.ts', 'packages/client/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-non-null-assertion': 'error',
      'no-sequences': 'error',
      'no-return-assign': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  // Kysely's migrations and multi-schema helpers take Kysely<any>, as its documentation does.
  { files: ['src/db/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  // Tests and benchmarks may assert what they just made (`!`) and read loose JSON bodies.
  { files: ['test/**', '**/*.test.ts', 'bench/**'], rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['src/web/assets/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
);
