// The compiled nodes/lib modules, for the unit specs in test/unit/ (which mirror nodes/lib/):
// lib("api/retry") is dist/nodes/lib/api/retry.js, built by `npm test` before mocha runs.
"use strict";
const path = require("node:path");

const DIST = path.join(__dirname, "..", "..", "dist", "nodes", "lib");

function lib(module) {
  return require(path.join(DIST, module));
}

module.exports = { lib };
