// ESLint flat config: type-aware typescript-eslint rules (no floating promises, exhaustive
// switches, no unsafe any at boundaries) and Prettier owning formatting.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { conventionBlocks } from './eslint-rules/conventions.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.data/**',
      'coverage/**',
      '**/generated/**',
      'jest.config.cjs',
      'scripts/*.cjs',
      'bench/security/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node, ...globals.jest },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Nest decorators and class-validator DTOs use classes without own members by design.
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // The console's front end (apps/console/src, its own tsconfig): browser code.
    files: ['apps/console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  ...conventionBlocks,
  {
    // Plain JavaScript (the client packages ship ESM .js beside their hand-written .d.ts).
    files: ['**/*.mjs', 'clients/*/index.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
