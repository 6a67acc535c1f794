// Reads a device, replaces its state, or merges keys into it. Merge is the spec's update rule 2
// done for the user: read the whole state, change it, write it all back. Writes of one device
// (merges and replaces) run one after another through the account's queue, and a failed merge is
// retried as a whole, so no concurrent or retried write is undone by a stale one.
import type { Node, NodeAPI, NodeDef } from "node-red";
import { EdgeError } from "../lib/api/errors";
import type { Device } from "../lib/api/types";
import { merge, replace } from "../lib/device/merge";
import { accountOf, intakeOf } from "../lib/account/lookup";
import { handleInput } from "../lib/node-red/handler";
import { resolveTarget } from "../lib/node-red/target";
import { checkPatch, checkState } from "../lib/node-red/validate";
import { checkTemplate } from "../lib/node-red/render";
import { configError } from "../lib/node-red/config";

/** The node's Mode and Device template, checked at deploy. */
function checkSettings(def: DeviceStateDef, mode: string): void {
  if (mode !== "get" && mode !== "replace" && mode !== "merge")
    throw new EdgeError("bad-mode", { mode });
  if (typeof def.device === "string") checkTemplate(def.device, "device");
}

interface DeviceStateDef extends NodeDef {
  account: string;
  device: string;
  /** "get", "replace" or "merge"; anything else is an error at deploy and for every message. */
  mode: string;
}

export = function (RED: NodeAPI): void {
  function EdgeDeviceStateNode(this: Node, def: DeviceStateDef) {
    RED.nodes.createNode(this, def);
    const mode = def.mode || "get";
    const invalid = configError(() => {
      checkSettings(def, mode);
    });
    // As many messages at once as the account sends; the others wait, not started (intake.ts).
    handleInput(
      RED,
      this,
      "edge-device-state",
      async (msg, { call, t }) => {
        const { client, deviceWrites, names } = accountOf(RED, def.account);
        const device = resolveTarget(def.device, msg, "deviceId", "device-empty");
        let result: Device;
        // The device is an id or a name (names.ts): a server that takes no name gets the id.
        if (mode === "get") {
          result = await names.withDevice(device, call, (ref) => client.getDevice(ref, call));
        } else if (mode === "replace") {
          const state = checkState(msg.payload, "msg.payload");
          result = await names.withDevice(device, call, (ref) =>
            replace(client, deviceWrites, ref, state, call),
          );
        } else if (mode === "merge") {
          const patch = checkPatch(msg.payload, "msg.payload");
          result = await names.withDevice(device, call, (ref) =>
            merge(client, deviceWrites, ref, patch, call),
          );
        } else {
          throw new EdgeError("bad-mode", { mode });
        }
        msg.payload = result.state;
        msg.device = result;
        const keys = Object.keys(result.state).length;
        return {
          send: msg,
          status: () => t(`edge-device-state.status.${mode}`, { count: keys }),
        };
      },
      { account: def.account, invalid },
    ).limitBy(intakeOf(RED, def.account));
  }

  RED.nodes.registerType("edge-device-state", EdgeDeviceStateNode);
};
