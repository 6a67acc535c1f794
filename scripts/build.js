#!/usr/bin/env node
// Compiles the TypeScript sources and lays the editor files out the way Node-RED's loader wants
// them: for every node named in package.json, its .html, its locales/<lang>/<name>.json|.html and
// the icons/ folder must sit beside the compiled .js (docs/development.md, "Build"). The
// sources keep them in the top-level icons/ and locales/ folders, so the build copies them.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const root = path.resolve(__dirname, "..");
const pkg = require(path.join(root, "package.json"));

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
}

function build() {
  fs.rmSync(path.join(root, "dist"), { recursive: true, force: true });
  const tsc = require.resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", root], { stdio: "inherit" });
  // Type declarations for the simulator only: it is the one module others import
  // (`@edgewire/node-red-edge-device/simulator`); Node-RED loads the nodes by file.
  execFileSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.simulator.json")], {
    stdio: "inherit",
  });
  const langs = fs.readdirSync(path.join(root, "locales"));
  const icons = fs.readdirSync(path.join(root, "icons"));
  for (const [name, rel] of Object.entries(pkg["node-red"].nodes)) {
    const outDir = path.join(root, path.dirname(rel));
    copy(path.join(root, "nodes", name, `${name}.html`), path.join(outDir, `${name}.html`));
    for (const lang of langs) {
      for (const ext of [".json", ".html"]) {
        const src = path.join(root, "locales", lang, name + ext);
        if (fs.existsSync(src)) copy(src, path.join(outDir, "locales", lang, name + ext));
      }
    }
    for (const icon of icons)
      copy(path.join(root, "icons", icon), path.join(outDir, "icons", icon));
  }
  fs.chmodSync(path.join(root, "dist", "simulator", "cli.js"), 0o755);
  // The dialog checks a property's mustache with the parser the runtime renders it with
  // (nodes/lib/node-red/render.ts): the editor has no mustache of its own, so the package's own
  // dependency's browser build is served beside the editor script (resources/ is what Node-RED
  // serves at resources/<module>/), one rule in both places.
  // Wrapped so that its UMD header takes the CommonJS branch: the editor's Monaco brings an AMD
  // \`define\`, which the header would take instead, leaving no global to call.
  const mustache = fs.readFileSync(require.resolve("mustache/mustache.min.js"), "utf8");
  // Its licence goes with it, as the MIT licence asks of every copy.
  const licence = fs.readFileSync(
    path.join(path.dirname(require.resolve("mustache")), "LICENSE"),
    "utf8",
  );
  const vendor = path.join(root, "resources", "vendor");
  fs.rmSync(vendor, { recursive: true, force: true });
  fs.mkdirSync(vendor, { recursive: true });
  fs.writeFileSync(
    path.join(vendor, "mustache.js"),
    `/*\n${licence.replace(/\*\//g, "* /")}*/\n(function () {\nvar module = { exports: {} }, exports = module.exports;\n${mustache}\nwindow.EdgeMustache = module.exports;\n})();\n`,
  );
}

build();
