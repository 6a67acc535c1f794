// Root hooks: before every test, the process forgets the streams it watched; after every test,
// nothing that test let a user see may contain a token; after the run, the temporary folders the
// specs made are removed. `npm test` runs mocha in parallel mode,
// where a worker process runs one spec file at a time and the root afterAll runs after each file:
// each worker removes the folders its files made, and writes the coverage of that file.
"use strict";
const v8 = require("node:v8");
const { check, count } = require("./capture");
const { removeTempDirs } = require("./temp");
const { lib } = require("./lib");

exports.mochaHooks = {
  beforeEach() {
    // What the nodes' process remembers of the streams it watched (their events' first dates,
    // known-dates.ts) is forgotten before each test, as a new Node-RED forgets it: the specs'
    // servers count their ids from 1 again, on ports the system hands out again.
    lib("events/known-dates").forgetKnownDates();
  },
  afterEach() {
    check();
  },
  afterAll() {
    removeTempDirs();
    // Under c8 (NODE_V8_COVERAGE), a worker writes its coverage only when it exits on its own,
    // and mocha's pool (workerpool) kills a worker still up 1 s after it was told to end, as one
    // holding a socket is: written after each file, none is lost (c8 merges the reports).
    if (process.env.NODE_V8_COVERAGE) v8.takeCoverage();
    if (process.env.EDGE_CAPTURE_REPORT)
      console.log(`token scan: ${count()} captured items, no token`);
  },
};
