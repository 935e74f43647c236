// Lint: promises are awaited or voided, nothing unused, and the architecture's import boundaries.
import tseslint from 'typescript-eslint';

const restrict = (patterns) => ['error', { patterns }];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/e2e/node_modules/**', 'test/e2e/artifacts/**', 'esbuild.js', 'scripts/**', 'media/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // Pure TypeScript: no editor, no network, no processes.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['vscode'], message: 'src/core has no vscode dependency' },
        { group: ['node:child_process', 'child_process', 'node:net', 'net', 'node:http', 'http', 'node:https', 'https', 'node:worker_threads'], message: 'src/core starts no process and opens no connection' },
        { group: ['@kubernetes/*', '**/cluster/**', '**/render/**', '**/extension/**', '**/engine/**', '**/workflows/**', '**/cli/**'], message: 'src/core depends on nothing outside it' },
      ]),
    },
  },
  {
    // The kube client: Kubernetes' API and the pure core, nothing above it.
    files: ['src/cluster/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['vscode'], message: 'src/cluster has no vscode dependency' },
        { group: ['**/engine/**', '**/render/**', '**/workflows/**', '**/extension/**', '**/cli/**'], message: 'src/cluster uses only src/core; flows that need the engine live in src/workflows' },
      ]),
    },
  },
  {
    // Drift and reconcile flows the CLI and the editor share: the cluster, the core, and the engine's protocol (never its internals).
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['vscode'], message: 'src/workflows is shared with the CLI: no vscode' },
        { group: ['**/extension/**', '**/cli/**', '**/render/**'], message: 'src/workflows sits below the CLI and the editor; renders come from the engine' },
        { group: ['**/engine/**', '!**/engine/protocol'], message: 'src/workflows talks to the engine through engine/protocol types only' },
      ]),
    },
  },
  {
    // The editor talks to the engine, never to the model, checks, workspace or YAML parse directly.
    files: ['src/extension/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        {
          group: ['**/core/model/**', '**/core/model', '**/core/checks/**', '**/core/checks', '**/core/workspace/**', '**/core/yaml/**', '**/core/navigation/**', '**/core/tree/**', '**/core/fixes/**', '**/core/substitution/**', '**/core/repo', '**/render/**', '**/render', '**/engine/engine', '**/engine/folder'],
          message: 'src/extension goes through src/engine (engine/client + engine/protocol types)',
        },
      ]),
    },
  },
);
