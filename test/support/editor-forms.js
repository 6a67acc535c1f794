// The editor's forms as a dialog is built from them, without a browser: the shared editor script
// and each node's registerType script run in a bare context, with stand-ins only for what they
// touch at registration (jQuery, RED.nodes.registerType). The dialogs themselves, filled and
// working, are checked in a real browser (test/package/browser.spec.js).
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const ROOT = path.join(__dirname, "..", "..");
const NODES = Object.keys(require("../../package.json")["node-red"].nodes);

/** A jQuery stand-in: every call and every method answers itself, so chains run and do nothing. */
function inert() {
  const fn = function () {
    return proxy;
  };
  const proxy = new Proxy(fn, { get: (_t, key) => (key === "length" ? 0 : fn) });
  return proxy;
}

/** Each node's registered definition and its form's HTML, by type. */
function editorForms() {
  const definitions = {};
  const context = {
    $: inert(),
    RED: { nodes: { registerType: (type, def) => (definitions[type] = def) }, settings: {} },
  };
  context.window = context;
  vm.createContext(context);
  vm.runInContext(fs.readFileSync(path.join(ROOT, "resources", "edge-editor.js"), "utf8"), context);
  for (const name of NODES) {
    const html = fs.readFileSync(path.join(ROOT, "nodes", name, `${name}.html`), "utf8");
    for (const m of html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g))
      vm.runInContext(m[1], context, { filename: `${name}.html` });
  }
  return { definitions, forms: { ...context.EdgeEditor.forms } };
}

module.exports = { editorForms };
