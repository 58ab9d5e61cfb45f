// debatebot's own ESLint configuration (flat config, ESLint 9). debatebot runs ESLint with
// --no-config-lookup and this file, never a repository's configuration or plugins: those are
// code, and running them would execute the pull request author's code. Inline configuration
// comments are ignored (--no-inline-config) so that a change cannot switch a rule off for itself.
import { createRequire } from "node:module";
import security from "eslint-plugin-security";

// The TypeScript parser (and TypeScript itself, which it loads) takes a good part of a second to
// load: it is loaded when the first TypeScript file is parsed, not for a change of JavaScript only.
const require = createRequire(import.meta.url);
const tsParser = {
  meta: { name: "@typescript-eslint/parser (loaded on first use)" },
  parseForESLint(code, options) {
    return require("@typescript-eslint/parser").parseForESLint(code, options);
  },
};

const javascript = ["**/*.js", "**/*.mjs", "**/*.cjs", "**/*.jsx"];
const typescript = ["**/*.ts", "**/*.mts", "**/*.cts", "**/*.tsx"];

// Core rules that find bugs rather than judge style: code evaluated from strings, finally blocks
// that swallow returns, duplicate keys and cases, comparisons that are always true or false,
// unreachable code.
const bugs = {
  "no-eval": "error",
  "no-implied-eval": "error",
  "no-new-func": "error",
  "no-unsafe-finally": "error",
  "no-self-assign": "error",
  "no-self-compare": "error",
  "no-dupe-keys": "error",
  "no-dupe-else-if": "error",
  "no-duplicate-case": "error",
  "no-unreachable": "error",
  "no-unsafe-negation": "error",
  "no-unsafe-optional-chaining": "error",
  "no-compare-neg-zero": "error",
  "no-constant-binary-expression": "error",
  "no-async-promise-executor": "error",
  "no-setter-return": "error",
  "getter-return": "error",
  "for-direction": "error",
  "use-isnan": "error",
  "valid-typeof": "error",
  "no-func-assign": "error",
  "no-import-assign": "error",
  "no-loss-of-precision": "error",
};

export default [
  {
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: "off" },
  },
  {
    files: javascript,
    languageOptions: {
      ecmaVersion: "latest",
      parserOptions: { ecmaFeatures: { jsx: true } },
    },
  },
  {
    // The parser alone, without type information: it reads no tsconfig and loads nothing from
    // the repository.
    files: typescript,
    languageOptions: {
      parser: tsParser,
      parserOptions: { ecmaFeatures: { jsx: true } },
    },
  },
  security.configs.recommended,
  {
    files: [...javascript, ...typescript],
    rules: {
      ...bugs,
      // Flags every computed member access (obj[key]); its own documentation warns of the
      // false positives, which would drown the findings that matter.
      "security/detect-object-injection": "off",
    },
  },
];
