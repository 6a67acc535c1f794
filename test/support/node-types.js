// The package's node types: the six flow nodes (in package.json's order), and those with the
// edge-account config node. Written out rather than read from package.json, so that a node
// dropped from package.json fails the specs that look for it in the palette and in the examples.
"use strict";

const FLOW_TYPES = [
  "edge-device-state",
  "edge-send-command",
  "edge-list-events",
  "edge-await-command",
  "edge-watch-events",
  "edge-fleet-command",
];
const NODE_TYPES = ["edge-account", ...FLOW_TYPES];

/** The built node modules of every type, for the test helper's load (after `npm run build`). */
const nodeModules = () => NODE_TYPES.map((type) => require(`../../dist/nodes/${type}/${type}.js`));

module.exports = { FLOW_TYPES, NODE_TYPES, nodeModules };
