// Sends a command: an event in the device's `:command` stream, addressed by the stream path built
// from the device name (POST /event) or by a stream id (POST /event/<id>). The elems go out as the
// user wrote them, flat resource paths or nested objects. msg.command records what the await node
// needs to find the command's markers.
import type { Node, NodeAPI, NodeDef, NodeMessage } from "node-red";
import type { DeviceEvent, EventMetadata } from "../lib/api/types";
import type { CallOptions, EdgeClient } from "../lib/api/client";
import { EdgeError } from "../lib/api/errors";
import type { DeviceNames } from "../lib/device/names";
import { accountOf, intakeOf } from "../lib/account/lookup";
import { handleInput } from "../lib/node-red/handler";
import { checkTemplate, renderJson } from "../lib/node-red/render";
import { blank, configError } from "../lib/node-red/config";
import { resolveTarget } from "../lib/node-red/target";
import { checkElems, checkInteger, isPlainObject, parseJson } from "../lib/node-red/validate";
import type { CommandRef } from "../lib/commands/command-ref";
import { SEND_COMMAND_RANGES, editorSettings } from "../lib/node-red/ranges";

interface SendCommandDef extends NodeDef {
  account: string;
  target: "device" | "stream";
  device: string;
  stream: string;
  elems: string;
  ttl?: string | number;
}

const R = SEND_COMMAND_RANGES;

function deviceOfPath(path: string | undefined): string | undefined {
  return path ? /\/devices\/([^/]+)\/:command$/.exec(path)?.[1] : undefined;
}

/** A plain-object payload is the elems; anything else (text, a number, a Buffer) fills the form's. */
function elemsOf(msg: NodeMessage, template: string) {
  const payload = msg.payload;
  if (isPlainObject(payload) || !template.trim()) return checkElems(payload, "msg.payload");
  return checkElems(parseJson(renderJson(template, msg, "Elems"), "Elems"), "Elems");
}

/**
 * What of the node's settings can be known wrong before any message: the ttl, and templates that
 * mustache cannot read (Elems without tags must be JSON already). Elems that only turn out wrong
 * once filled in are still reported per message.
 */
function checkSettings(def: SendCommandDef, target: "device" | "stream"): void {
  if (!blank(def.ttl)) checkInteger(def.ttl, "ttl", R.ttl.min, R.ttl.max);
  const elems = typeof def.elems === "string" ? def.elems : "";
  if (elems.trim()) {
    checkTemplate(elems, "Elems");
    if (!elems.includes("{{")) parseJson(elems, "Elems");
  }
  const name = target === "device" ? def.device : def.stream;
  if (typeof name === "string") checkTemplate(name, target);
}

export = function (RED: NodeAPI): void {
  /**
   * The error of a command whose `:command` stream was not found. A server names the stream it did
   * not find ("Stream not found: /demo/devices/x/:command"), which reads as if the stream were
   * the mistake when it is nearly always the device name: then the device's own 404 is reported,
   * as `edge-device-state` reports it. Only on that 404 is the device read (one GET, nothing sent
   * again); when the device exists, or the read fails otherwise, the stream's error stands.
   */
  async function unknownDevice(
    err: unknown,
    device: string,
    names: DeviceNames,
    client: EdgeClient,
    call: CallOptions,
  ): Promise<unknown> {
    if (!(err instanceof EdgeError && err.status === 404)) return err;
    try {
      await names.withDevice(device, call, (ref) => client.getDevice(ref, call));
    } catch (deviceErr) {
      if (deviceErr instanceof EdgeError && deviceErr.status === 404) return deviceErr;
      if (deviceErr instanceof EdgeError && deviceErr.code === "device-unknown") return deviceErr;
    }
    return err;
  }

  function EdgeSendCommandNode(this: Node, def: SendCommandDef) {
    RED.nodes.createNode(this, def);
    const target = def.target === "stream" ? "stream" : "device";
    const invalid = configError(() => {
      checkSettings(def, target);
    });
    // As many messages at once as the account sends; the others wait, not started (intake.ts).
    handleInput(
      RED,
      this,
      "edge-send-command",
      async (msg, { call, t }) => {
        const { client, names } = accountOf(RED, def.account);
        const elems = elemsOf(msg, def.elems || "");
        const ttlSource =
          msg.ttl ?? (def.ttl !== undefined && String(def.ttl).trim() !== "" ? def.ttl : undefined);
        const ttl =
          ttlSource === undefined
            ? undefined
            : checkInteger(ttlSource, "ttl", R.ttl.min, R.ttl.max);
        const metadata: EventMetadata | undefined = ttl === undefined ? undefined : { ttl };
        const sentAt = Date.now();
        let event: DeviceEvent | null;
        let device: string | undefined;
        let streamId: string | undefined;
        let path: string | undefined;
        if (target === "device") {
          const named = resolveTarget(def.device, msg, "deviceId", "device-empty");
          device = names.knownName(named) ?? (await names.nameOf(named, call));
          path = client.streamPath(device, ":command");
          try {
            event = await client.createEventByPath(path, elems, metadata, call);
          } catch (err) {
            throw await unknownDevice(err, device, names, client, call);
          }
        } else {
          const stream = resolveTarget(def.stream, msg, "streamId", "stream-empty");
          // A stream path (what the editor's picker fills in) goes in the body, as for a device.
          if (stream.startsWith("/")) {
            path = stream;
            event = await client.createEventByPath(path, elems, metadata, call);
          } else {
            streamId = stream;
            event = await client.createEvent(streamId, elems, metadata, call);
          }
        }
        const command: CommandRef = {
          id: event?.id,
          streamId: event?.streamId ?? streamId,
          path: event?.path ?? path,
          creationDate: typeof event?.creationDate === "number" ? event.creationDate : sentAt,
          device:
            device ??
            deviceOfPath(event?.path) ??
            (typeof msg.deviceId === "string" ? msg.deviceId : undefined),
          ttl,
          sentAt,
        };
        msg.payload = event;
        msg.command = command;
        return {
          send: msg,
          status: () => t("edge-send-command.status.sent"),
        };
      },
      { account: def.account, invalid },
    ).limitBy(intakeOf(RED, def.account));
  }

  RED.nodes.registerType("edge-send-command", EdgeSendCommandNode, {
    settings: editorSettings("edge-send-command", R),
  });
};
