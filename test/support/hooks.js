// Root hooks: after every test, nothing that test let a user see may contain a token; after the
// run, the temporary folders the specs made are removed. `npm test` runs mocha in parallel mode,
// where a worker process runs one spec file at a time and the root afterAll runs after each file:
// each worker removes the folders its files made.
"use strict";
const { check, count } = require("./capture");
const { removeTempDirs } = require("./temp");

exports.mochaHooks = {
  afterEach() {
    check();
  },
  afterAll() {
    removeTempDirs();
    if (process.env.EDGE_CAPTURE_REPORT)
      console.log(`token scan: ${count()} captured items, no token`);
  },
};
