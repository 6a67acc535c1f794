// Root hooks: after every test, nothing that test let a user see may contain a token.
"use strict";
const { check, count } = require("./capture");

exports.mochaHooks = {
  afterEach() {
    check();
  },
  afterAll() {
    if (process.env.EDGE_CAPTURE_REPORT)
      console.log(`token scan: ${count()} captured items, no token`);
  },
};
