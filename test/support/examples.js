// The flows in examples/ as the specs and `npm run screenshots` read them: straight from the files
// a user imports, in file-name order, so that what is checked and what is pictured are the same
// flows.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const EXAMPLES = path.join(__dirname, "..", "..", "examples");

/** Every example as `{ file, flow }`, `file` its name in examples/. */
function readExamples() {
  return fs
    .readdirSync(EXAMPLES)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({
      file,
      flow: JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), "utf8")),
    }));
}

/** The examples' nodes, each with the label of the tab it is on as `tab`. */
function exampleNodes() {
  return readExamples().flatMap(({ flow }) => {
    const tabs = Object.fromEntries(
      flow.filter((n) => n.type === "tab").map((n) => [n.id, n.label]),
    );
    return flow.map((n) => ({ ...n, tab: tabs[n.z] }));
  });
}

module.exports = { EXAMPLES, readExamples, exampleNodes };
