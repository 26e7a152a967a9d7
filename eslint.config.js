// Lint rules for the whole repository (`npm run lint`, part of `npm test`).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['node_modules/', 'cdk.out/', '.node/', '.tmp/', '.data/', 'coverage/', 'infra/shims/dynamodb-client.js'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Unused names are errors, except the deliberate `_` prefix (a destructured field left out).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Type-only imports stay type-only, so bundles never load a module for its types.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  {
    // What the functions' bundles carry is written in zod's functional build (lib/schemas/zod.ts):
    // classic zod puts all of itself into every bundle that validates anything. The MCP server
    // (loaded on use, beside the MCP SDK, which brings classic zod anyway) and the tools may use it.
    files: ['lib/**/*.ts', 'functions/**/*.ts'],
    ignores: ['lib/mcp/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'zod', message: "Use 'zod/mini' (lib/schemas/zod.ts says why).", allowTypeImports: true },
            { name: 'zod/v4', message: "Use 'zod/mini' (lib/schemas/zod.ts says why).", allowTypeImports: true },
          ],
        },
      ],
    },
  },
  {
    // The reference page's start-up script runs in the browser, beside Swagger UI.
    files: ['lib/api-reference/**/*.js'],
    languageOptions: { globals: { ...globals.browser, SwaggerUIBundle: 'readonly' } },
  },
  {
    // CommonJS configuration read by its tool (the boundary check: .dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
  {
    // Plain JavaScript that Node.js runs as is (npm start's version check, before tsx).
    files: ['tools/**/*.js'],
    languageOptions: { globals: globals.node },
  },
  {
    // Tests read JSON answers of every shape the API has; typing each one would restate the schemas.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
