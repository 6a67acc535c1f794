// The compiled nodes/lib modules, for the unit specs in test/unit/ (which mirror nodes/lib/):
// lib("api/retry") is dist/nodes/lib/api/retry.js, built by `npm test` before mocha runs.
"use strict";
const path = require("node:path");

const DIST = path.join(__dirname, "..", "..", "dist", "nodes", "lib");

// An EdgeError takes its sentence from the texts the node-red layer sets when it loads, as it does
// for every node: set here too, so that a spec of the api layer reads the sentences users read.
require(path.join(DIST, "node-red", "i18n"));

function lib(module) {
  return require(path.join(DIST, module));
}

module.exports = { lib };
