// Preloaded (NODE_OPTIONS=--require) into Stryker's processes by scripts/mutate.js. Stryker's
// mocha runner 10.0 requires mocha's CLI helpers by their old names, `mocha/lib/cli/run-helpers`
// and `…/options`, and looks for `options.mjs` after that; mocha 12 ships them as `.cjs`, which
// require() does not try on its own, so the runner loaded no plugin ("Cannot find TestRunner
// plugin mocha"). This resolves an extensionless request under mocha/lib/cli to its `.cjs` file.
"use strict";
const Module = require("node:module");
const path = require("node:path");

const resolve = Module._resolveFilename;
const cli = `${path.sep}mocha${path.sep}lib${path.sep}cli${path.sep}`;
Module._resolveFilename = function (request, ...rest) {
  try {
    return resolve.call(this, request, ...rest);
  } catch (err) {
    if (err.code !== "MODULE_NOT_FOUND" || !request.includes(cli) || path.extname(request))
      throw err;
    return resolve.call(this, `${request}.cjs`, ...rest);
  }
};
