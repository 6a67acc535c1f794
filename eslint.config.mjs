// Lints the TypeScript sources with type-aware rules, the JavaScript tests, scripts and benchmarks
// with the recommended set, and the editor code: resources/edge-editor.js and the registerType
// script of every node's .html (through the small processor below); formatting is left to prettier.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

/**
 * Lints the `<script type="text/javascript">` blocks of a node's .html. Everything else in the
 * file is blanked line for line, so the reported lines and columns are the file's own.
 */
const editorHtml = {
  meta: { name: "edge-editor-html" },
  preprocess(text) {
    const code = text.replace(
      /(<script type="text\/javascript">)([\s\S]*?)(<\/script>)|[^\n]+/g,
      (whole, open, body) =>
        open ? " ".repeat(open.length) + body + "         " : " ".repeat(whole.length),
    );
    return [{ text: code, filename: "editor.js" }];
  },
  postprocess(messages) {
    return messages.flat();
  },
  supportsAutofix: false,
};

const editorGlobals = {
  ...globals.browser,
  RED: "readonly",
  $: "readonly",
  EdgeEditor: "readonly",
};

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      ".node-red-data/**",
      ".test-tmp/**",
      "locales/**",
      "docs/**",
      "resources/vendor/**",
      "reports/**",
    ],
  },
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { ...globals.node, ...globals.mocha },
    },
    rules: { "no-unused-vars": ["error", { argsIgnorePattern: "^_" }] },
  },
  {
    files: ["resources/**/*.js"],
    languageOptions: { sourceType: "script", globals: editorGlobals },
  },
  {
    files: ["nodes/**/*.html"],
    processor: editorHtml,
  },
  {
    files: ["nodes/**/*.html/*.js"],
    languageOptions: { sourceType: "script", globals: editorGlobals },
    rules: { "no-unused-vars": ["error", { argsIgnorePattern: "^_" }] },
  },
  {
    files: ["**/*.ts"],
    extends: [...tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      // Types come in through `import type`, so the compiled code requires only what it runs. The
      // lazy require of undici keeps its `typeof import("undici")`: importing it would load it.
      "@typescript-eslint/consistent-type-imports": ["error", { disallowTypeAnnotations: false }],
    },
  },
);
