// What the edge-fleet-command specs share: devices added to the simulator, the count of commands
// each received, and the fleet node of their flows.
"use strict";
const assert = require("node:assert/strict");
const { control } = require("./simulator");

/** Adds devices to the simulator: `ok` ones run the command, `faulty` lack its resource. */
async function addDevices(sim, names, { faulty = [], offline = [] } = {}) {
  for (const name of names) {
    const res = await control(sim, "POST", "/devices", {
      name,
      // Without the command's resource the device answers COMMAND_FAULT.
      resources: faulty.includes(name) ? [] : ["/lcd/txt1"],
      online: !offline.includes(name),
    });
    assert.equal(res.status, 201, res.text);
  }
}

/** How many commands the simulator's device `name` received: what it was sent, not what a node said. */
const commandsOf = async (sim, name) =>
  (await control(sim, "GET", `/devices/${name}`)).json.streams.command.count;

/**
 * An edge-fleet-command node "f1" as the specs' flows hold it: no devices, filter or elems of its
 * own, ten devices at once, a 5 s wait polled every 50 ms, no store, its outputs wired to helpers
 * "report" and "each"; `props` over it.
 */
function fleetNode(props = {}) {
  return {
    id: "f1",
    type: "edge-fleet-command",
    devices: "",
    filter: "",
    elems: "",
    ttl: "",
    rate: 0,
    concurrency: 10,
    maxFailures: 0,
    timeout: "5000",
    interval: 50,
    store: "",
    wires: [["report"], ["each"]],
    ...props,
  };
}

module.exports = { addDevices, commandsOf, fleetNode };
