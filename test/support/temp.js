// Temporary folders for the specs, made in the OS's temp folder and all removed when mocha ends,
// or in parallel mode when the spec file that made them ends (test/support/hooks.js), so that
// `npm test` leaves the temp folder as it found it even when a spec fails half-way or reuses a
// folder across its tests.
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const made = new Set();

/** A new empty folder `<tmp>/<prefix>XXXXXX`, removed at the end of the run. */
function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  return dir;
}

function removeTempDirs() {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.clear();
}

module.exports = { tempDir, removeTempDirs };
