// ESLint for the console page's own code (web_assets/js) and its unit tests: the recommended
// rules, no unused code, and no function longer than 80 lines.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['**/node_modules/**', 'build/**', 'dist/**', '.venv/**'] },
  js.configs.recommended,
  {
    files: ['web_assets/js/**/*.js'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: { ...globals.browser } },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-unused-private-class-members': 'error',
      'no-unreachable-loop': 'error',
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    // Classic scripts the shell injects into the page (not modules).
    files: ['web_assets/js/webmcp/shim.js', 'web_assets/js/webmcp/relay.js', 'web_assets/js/webmcp/bridge.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, QWebChannel: 'readonly', qt: 'readonly' } },
  },
  {
    files: ['web_assets/tests/**/*.{js,mjs}'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: { ...globals.node } },
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }] },
  },
];
