// debatebot's own ESLint configuration (flat config, ESLint 9). debatebot runs ESLint with
// --no-config-lookup and this file, never a repository's configuration or plugins: those are
// code, and running them would execute the pull request author's code. Inline configuration
// comments are ignored (--no-inline-config) so that a change cannot switch a rule off for itself.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import security from "eslint-plugin-security";
import tseslint from "@typescript-eslint/eslint-plugin";

const here = path.dirname(fileURLToPath(import.meta.url));

// The TypeScript parser (and TypeScript itself, which it loads) takes a good part of a second to
// load: it is loaded when the first file is parsed. Every file is parsed with it, against one
// TypeScript program made of the files on the command line (see typedProgram), so that the
// type-aware rules of typescript-eslint see types in JavaScript as well as TypeScript.
const require = createRequire(import.meta.url);
let program;
const tsParser = {
  meta: { name: "@typescript-eslint/parser (loaded on first use)" },
  parseForESLint(code, options) {
    program ??= typedProgram();
    return require("@typescript-eslint/parser").parseForESLint(code, { ...options, programs: [program] });
  },
};

// typedProgram is a TypeScript program of the files ESLint was given (after "--", as debatebot
// passes them), and of what they import inside the tree. Its compiler options are the tree's
// tsconfig.json (read as JSON: "extends" names more JSON, never code) under debatebot's own:
// nothing is emitted, no plugin is loaded (TypeScript loads plugins only in its language
// service, which this is not), JavaScript is read, and the only type packages are debatebot's
// own Node.js types, never the tree's node_modules/@types.
function typedProgram() {
  const ts = require("typescript");
  const root = path.resolve(".");
  // inside: a file of the tree, or of debatebot's own packages; the tree's configuration cannot
  // make the program read anything else (an "extends" or a "paths" entry outside the tree).
  const own = [here, fs.realpathSync(path.join(here, "node_modules"))];
  const inside = (name) => [root, ...own].some((dir) => path.resolve(name).startsWith(dir + path.sep));
  const dash = process.argv.indexOf("--");
  const files = dash < 0 ? [] : process.argv.slice(dash + 1).map((f) => path.resolve(f)).filter(inside);
  let options = {};
  const tsconfig = path.join(root, "tsconfig.json");
  try {
    if (ts.sys.fileExists(tsconfig)) {
      const sys = { ...ts.sys, readFile: (name, enc) => (inside(name) ? ts.sys.readFile(name, enc) : undefined) };
      const read = ts.readConfigFile(tsconfig, sys.readFile);
      if (!read.error) {
        options = ts.parseJsonConfigFileContent(read.config, sys, root, undefined, tsconfig).options;
      }
    }
  } catch {
    options = {}; // a tsconfig.json TypeScript cannot read: the defaults below
  }
  options = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    // Without the DOM's declarations (a third of the parsing) unless the tree asks for them.
    lib: ["lib.es2022.d.ts"],
    ...options,
    noEmit: true,
    allowJs: true,
    checkJs: false,
    skipLibCheck: true,
    maxNodeModuleJsDepth: 0,
    typeRoots: [path.join(here, "node_modules", "@types")],
    types: ["node"],
    plugins: undefined,
    composite: false,
    incremental: false,
    tsBuildInfoFile: undefined,
  };
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile;
  const read = new Set(files);
  host.getSourceFile = (name, ...rest) => {
    // The files given, TypeScript's libraries and debatebot's Node.js types, and at most
    // maxImported files of the tree that they import: what lies beyond is typed any.
    const file = path.resolve(name);
    if (!inside(file)) {
      return undefined;
    }
    if (!read.has(file) && !own.some((dir) => file.startsWith(dir + path.sep))) {
      if (read.size >= files.length + maxImported) {
        return undefined;
      }
      read.add(file);
    }
    return getSourceFile(name, ...rest);
  };
  return ts.createProgram({ rootNames: files, options, host });
}

// maxImported bounds the files of the tree the program reads beyond those given, and with them
// the time and memory of type checking a change to a large tree.
const maxImported = 100;

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

// typescript-eslint's type-aware rules that find bugs: a promise neither awaited nor handled
// (its rejection is lost, its work races what follows), a promise where a callback's result is
// ignored or a condition expects a boolean, await of what is not a promise, for-in over an
// array, delete of an array element, an object turned into "[object Object]". Measured and left
// off: the no-unsafe-* rules (any flowing into calls, assignments, returns): a tree has no
// node_modules, so every imported value is any and they flag most changed lines of JavaScript.
const typed = {
  "@typescript-eslint/no-floating-promises": "error",
  "@typescript-eslint/no-misused-promises": "error",
  "@typescript-eslint/await-thenable": "error",
  "@typescript-eslint/no-for-in-array": "error",
  "@typescript-eslint/no-array-delete": "error",
  "@typescript-eslint/no-base-to-string": "error",
};

// Tests call the test runner's it() and test() without awaiting the promises they return, by
// design: the type-aware rules skip test files.
const tests = ["**/test/**", "**/tests/**", "**/__tests__/**", "**/*.test.*", "**/*.spec.*"];

export default [
  {
    linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: "off" },
  },
  {
    files: [...javascript, ...typescript],
    languageOptions: {
      parser: tsParser,
      parserOptions: { ecmaFeatures: { jsx: true } },
    },
    plugins: { "@typescript-eslint": tseslint },
  },
  security.configs.recommended,
  {
    files: [...javascript, ...typescript],
    ignores: tests,
    rules: typed,
  },
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
