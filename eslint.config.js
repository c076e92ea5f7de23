// Lint the TypeScript sources, tests and benchmarks with the recommended rule sets.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.fleetsim/', '.scratch/', 'test-artifacts/', 'bench/results/', 'grafana/**/*.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // The console's scripts: classic scripts (no modules), run in the page (web/chart/ names its globals itself).
  {
    files: ['web/console/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', location: 'readonly', fetch: 'readonly', EventSource: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URLSearchParams: 'readonly', history: 'readonly', console: 'readonly', DOMParser: 'readonly' }
    }
  },
  // dependency-cruiser reads its configuration as CommonJS.
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  // faker's main entry loads every locale it has (src/fleet/identity.ts says what it cost).
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: '@faker-js/faker', message: "Import the English locale's entry (@faker-js/faker/locale/en): the package's main entry loads every locale." }] }]
    }
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }]
    }
  }
)
