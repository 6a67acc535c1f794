// The test helper gives each node type a RED without `hooks` (its mock runtime has none), where a
// real Node-RED gives RED.hooks, the runtime's message hooks. A node that uses them (a message
// that reaches an instance a deploy closed, nodes/lib/node-red/late-input.ts) is tested with
// Node-RED's own hooks added here, as the runtime would give them.
"use strict";
const { hooks } = require("@node-red/util");

const given = new WeakSet();

/** Makes the helper's node API carry RED.hooks; call after helper.init(). */
function giveRuntimeHooks(helper) {
  const util = helper._registryUtil;
  if (!util || given.has(util)) return;
  given.add(util);
  const create = util.createNodeApi;
  util.createNodeApi = function (...args) {
    const red = create.apply(this, args);
    if (!red.hooks) red.hooks = hooks;
    return red;
  };
}

module.exports = { giveRuntimeHooks };
