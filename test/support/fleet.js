// What the edge-fleet-command specs share: devices added to the simulator, the count of commands
// each received, and the fleet node of their flows.
"use strict";
const assert = require("node:assert/strict");
const { control } = require("./simulator");
const { accountNode, postNode } = require("./node-red-process");

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

/** How many commands the devices `names` received in all. */
async function commandsOfAll(sim, names) {
  let sent = 0;
  for (const name of names) sent += await commandsOf(sim, name);
  return sent;
}

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

/**
 * The flow of the fleet specs that restart or kill a real Node-RED process, on tab t1: inject i1
 * (payload `{"/lcd/txt1": text}`, and msg.keep when given) into fleet node f1 on `devices` (store
 * "file", 200 ms interval, `fleetProps` over it) of account "acc" (`accountProps`). Its report is
 * posted to `${sink.url}/report` as `{ ${report} }`, each device's message to `/device` as
 * `{ ${device} }` (object literals, as JS, of msg), each caught error's message to `/error`.
 */
function fleetProcessFlow(
  sim,
  sink,
  { label, text, keep, devices, report, device, accountProps = {}, fleetProps = {} },
) {
  const post = (id, func, to) => [
    { id, type: "function", z: "t1", func, outputs: 1, wires: [[`p-${id}`]] },
    postNode(`p-${id}`, "t1", `${sink.url}${to}`),
  ];
  const props = [{ p: "payload", v: JSON.stringify({ "/lcd/txt1": text }), vt: "json" }];
  if (keep !== undefined) props.push({ p: "keep", v: keep, vt: "str" });
  return [
    { id: "t1", type: "tab", label },
    accountNode(sim, accountProps),
    { id: "i1", type: "inject", z: "t1", props, repeat: "", once: false, wires: [["f1"]] },
    fleetNode({
      z: "t1",
      account: "acc",
      devices: devices.join("\n"),
      interval: 200,
      store: "file",
      wires: [["r1"], ["r2"]],
      ...fleetProps,
    }),
    ...post("r1", `msg.payload = { ${report} };\nreturn msg;`, "/report"),
    ...post("r2", `msg.payload = { ${device} };\nreturn msg;`, "/device"),
    { id: "c1", type: "catch", z: "t1", scope: null, wires: [["f9"]] },
    ...post("f9", "msg.payload = { message: msg.error.message };\nreturn msg;", "/error"),
  ];
}

module.exports = { addDevices, commandsOf, commandsOfAll, fleetNode, fleetProcessFlow };
