// Lint: the layer table of CONTRIBUTING.md enforced as an import rule (eslint/layers.js), a small set of
// correctness rules, the rules of hooks, and type-aware promise rules (a dropped promise is a lost error) — the app's
// code under all of them, its tests, browser specs and benches under the ones that apply to them.
// Run by `npm run lint`, which `npm test` runs beside the unit tests.
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'
import { layersRule } from './eslint/layers.js'

const RULES = {
  'caduceus/layers': 'error',
  'no-debugger': 'error',
  'no-dupe-keys': 'error',
  'no-duplicate-case': 'error',
  'no-self-assign': 'error',
  'no-unreachable': 'error',
  'no-unsafe-finally': 'error',
  'no-cond-assign': 'error',
  'no-constant-binary-expression': 'error',
  'no-var': 'error',
  'prefer-const': ['error', { destructuring: 'all' }],
  eqeqeq: ['error', 'always', { null: 'ignore' }],
  '@typescript-eslint/no-floating-promises': 'error',
  'react-hooks/rules-of-hooks': 'error',
  'react-hooks/exhaustive-deps': 'error',
  '@typescript-eslint/no-unused-vars': [
    'error',
    { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }
  ]
}

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'node_modules/**',
      'dist/**',
      'test-results/**',
      'playwright-report/**',
      'reports/**',
      '.native/**'
    ]
  },
  {
    files: ['src-main/**/*.ts', 'src-renderer/**/*.{ts,tsx}', 'shared/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        ecmaVersion: 'latest',
        sourceType: 'module',
        ecmaFeatures: { jsx: true },
        // Types from the project's own tsconfig.json, so promise rules see what a call returns.
        projectService: true,
        tsconfigRootDir: import.meta.dirname
      }
    },
    plugins: {
      caduceus: { rules: { layers: layersRule } },
      '@typescript-eslint': tseslint.plugin,
      'react-hooks': reactHooks
    },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: RULES
  },
  {
    // Tests, browser specs and benches: the same correctness and promise rules (a test whose promise floats can pass
    // without checking anything); no layer rule (tests reach into every layer) and no hooks rules (Playwright's
    // fixture callback is named `use`).
    files: ['test/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        ecmaVersion: 'latest',
        sourceType: 'module',
        projectService: true,
        tsconfigRootDir: import.meta.dirname
      }
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: Object.fromEntries(
      Object.entries(RULES).filter(([rule]) => !rule.startsWith('react-hooks/') && !rule.startsWith('caduceus/'))
    )
  }
)
