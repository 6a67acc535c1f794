// resources/edge-editor.js: the dialog refuses a template the runtime cannot read, by the
// runtime's own rule. `{{payload}` in Elems was valid in the dialog and failed at Deploy (issue
// 37): the editor has no mustache, so the build serves the package's own (resources/vendor), and
// this spec compares the dialog's answer with the runtime's on drawn templates. The dialog itself is checked in a real browser
// (test/package/browser.spec.js); here the editor script runs in a bare context.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const fc = require("fast-check");
const { lib } = require("../../support/lib");

const { checkTemplate } = lib("node-red/render");
const { checkElemsSetting } = lib("node-red/elems");

const ROOT = path.join(__dirname, "..", "..", "..");
const MODULE = require("../../../package.json").name;
const NODES = Object.keys(require("../../../package.json")["node-red"].nodes);

/** A jQuery stand-in: every call and every method answers itself, so chains run and do nothing. */
function inert() {
  const fn = function () {
    return proxy;
  };
  const proxy = new Proxy(fn, { get: (_t, key) => (key === "length" ? 0 : fn) });
  return proxy;
}

/** The English text of `module/namespace:key`, filled as Node-RED's i18next fills it. */
function english(full, params = {}) {
  const [, ns, key] = /^[^/]+\/[^/]+\/([^:]+):(.+)$/.exec(full.replace(MODULE, "m/m"));
  const catalog = JSON.parse(
    fs.readFileSync(path.join(ROOT, "locales", "en-US", `${ns}.json`), "utf8"),
  );
  const text = key.split(".").reduce((o, k) => o?.[k], catalog);
  return String(text).replace(/__(\w+)__/g, (w, n) => (n in params ? String(params[n]) : w));
}

/** The editor script and every node's definition, run with a RED that speaks English. */
function editor() {
  const definitions = {};
  const context = {
    $: inert(),
    RED: {
      _: english,
      nodes: { registerType: (type, def) => (definitions[type] = def) },
      settings: {},
    },
  };
  context.window = context;
  vm.createContext(context);
  // In the order the nodes' .html load them: mustache as the build serves it, then the editor.
  for (const file of ["vendor/mustache.js", "edge-editor.js"])
    vm.runInContext(fs.readFileSync(path.join(ROOT, "resources", file), "utf8"), context);
  for (const name of NODES) {
    const html = fs.readFileSync(path.join(ROOT, "nodes", name, `${name}.html`), "utf8");
    for (const m of html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g))
      vm.runInContext(m[1], context, { filename: `${name}.html` });
  }
  return { EdgeEditor: context.EdgeEditor, definitions };
}

/** What the runtime says of a template at deploy: mustache's words, or "" when it reads it. */
function runtimeProblem(template) {
  try {
    checkTemplate(template, "x");
    return "";
  } catch (err) {
    assert.equal(err.code, "bad-template", err.stack);
    return err.params.detail;
  }
}

describe("unit: the editor's template check", function () {
  const { EdgeEditor, definitions } = editor();

  it("should refuse {{payload} in Elems with the sentence Deploy gives, and take {{payload}}", function () {
    const elems = definitions["edge-send-command"].defaults.elems.validate;
    const unclosed = '{"/lcd/txt1": "{{payload}"}';
    const said = elems.call({}, unclosed);
    assert.equal(typeof said, "string");
    assert.throws(
      () => checkElemsSetting(unclosed),
      (err) => err.code === "bad-template" && err.message === said,
    );
    assert.match(said, /Elems is not a valid mustache template: Unclosed tag at 27/);
    assert.equal(elems.call({}, '{"/lcd/txt1": "{{payload}}"}'), true);
    assert.equal(elems.call({}, '{"n": {{{payload}}}}'), true);
    // Sections and comments the runtime reads are read here too.
    assert.equal(elems.call({}, '{"a": "{{#on}}x{{/on}}{{! note }}"}'), true);
    assert.match(elems.call({}, '{"a": "{{#on}}x"}'), /Unclosed section "on"/);
    assert.equal(definitions["edge-fleet-command"].defaults.elems.validate, elems);
  });

  it("should check every property the runtime renders with mustache, under the dialog's label", function () {
    const fields = {
      "edge-device-state": ["device"],
      "edge-send-command": ["device", "stream"],
      "edge-list-events": ["stream"],
      "edge-await-command": ["inbox"],
      "edge-fleet-command": ["devices", "filter"],
    };
    for (const [type, names] of Object.entries(fields))
      for (const field of names) {
        const validate = definitions[type].defaults[field].validate;
        const node = { target: field === "stream" ? "stream" : "device" };
        const said = validate.call(node, "dev-{{topic}");
        assert.equal(typeof said, "string", `${type}.${field}`);
        const label = english(`${MODULE}/${type}:${type}.label.${field}`).replace(/ \(.*\)$/, "");
        assert.ok(said.startsWith(`${label} is not a valid mustache template`), said);
        assert.equal(validate.call(node, "dev-{{topic}}"), true, `${type}.${field}`);
        assert.equal(validate.call(node, ""), true, `${type}.${field}`);
      }
    // A send node reads only the property of its target, as the runtime does at deploy.
    const send = definitions["edge-send-command"].defaults;
    assert.equal(send.device.validate.call({ target: "stream" }, "{{x}"), true);
    assert.equal(send.stream.validate.call({ target: "device" }, "{{x}"), true);
  });

  it("should find a template unreadable exactly when the runtime does, with mustache's words", function () {
    // Pieces that make the tags, sections, delimiter changes and their mistakes mustache knows.
    const piece = fc.constantFrom(
      "{{",
      "}}",
      "{{{",
      "}}}",
      "{",
      "}",
      "{{#a}}",
      "{{/a}}",
      "{{^b}}",
      "{{/b}}",
      "{{#",
      "{{/",
      "{{!",
      "{{>p}}",
      "{{&",
      "{{=",
      "=}}",
      "{{=<% %>=}}",
      "{{= x =}}",
      "<%",
      "%>",
      "<%/a%>",
      "a",
      "b",
      " ",
      "\n",
      '"',
      "payload.x",
    );
    const seen = new Set();
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
        const template = pieces.join("");
        const problem = runtimeProblem(template);
        assert.equal(EdgeEditor.templateProblem(template), problem, template);
        seen.add(problem.replace(/ ".*| at \d+$|: .*/, ""));
      }),
      { numRuns: 3000 },
    );
    // The draws met every kind of answer, or the comparison proved little.
    for (const kind of ["", "Unclosed tag", "Unclosed section", "Unopened section", "Invalid tags"])
      assert.ok(seen.has(kind), `no draw gave "${kind}": ${[...seen]}`);
  });
});
