// Sends a command: an event in the device's `:command` stream, addressed by the stream path built
// from the device name (POST /event) or by a stream id (POST /event/<id>). The elems go out as the
// user wrote them, flat resource paths or nested objects. msg.command records what the await node
// needs to find the command's markers.
import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from "node-red";
import { accountOf, intakeOf } from "../lib/account/lookup";
import { contextIdOf } from "../lib/records/context-id";
import { onNextFlowsStarted } from "../lib/node-red/flows-started";
import { handleInput } from "../lib/node-red/handler";
import type { CarriedOutcome } from "../lib/node-red/handler";
import { checkTemplate } from "../lib/node-red/render";
import { checkElemsSetting, elemsFromOf, elemsOf } from "../lib/node-red/elems";
import { blank, configError } from "../lib/node-red/config";
import { resolveTarget } from "../lib/node-red/target";
import { checkInteger } from "../lib/node-red/validate";
import { commandRefOf, metadataOf, sendToDevice } from "../lib/commands/send";
import { sentCommands } from "../lib/commands/sent-commands";
import type { SendFacts, SentCommand } from "../lib/commands/send";
import { SEND_COMMAND_RANGES, editorSettings } from "../lib/node-red/ranges";

interface SendCommandDef extends NodeDef {
  account: string;
  target: "device" | "stream";
  device: string;
  stream: string;
  elems: string;
  /** What the command is: "elems" or "payload" (elems.ts); absent in flows saved by 0.1.0. */
  elemsFrom?: string;
  ttl?: string | number;
}

const R = SEND_COMMAND_RANGES;

/**
 * What of the node's settings can be known wrong before any message: the ttl, and templates that
 * mustache cannot read (Elems without tags must be JSON already). Elems that only turn out wrong
 * once filled in are still reported per message.
 */
function checkSettings(def: SendCommandDef, target: "device" | "stream"): void {
  if (!blank(def.ttl)) checkInteger(def.ttl, "ttl", R.ttl.min, R.ttl.max);
  checkElemsSetting(def.elems);
  const name = target === "device" ? def.device : def.stream;
  if (typeof name === "string") checkTemplate(name, target);
}

export = function (RED: NodeAPI): void {
  /**
   * Per registration of the type: the messages whose command POST had left when their node closed
   * for a redeploy, by the node's context id, for the node the deploy puts in its place. They end
   * there, once: on the output with msg.restored when the answer came, else with an error that
   * says the command may have been delivered. In memory only: a restart ends them with the process.
   */
  const carried = new Map<string, { msg: NodeMessageInFlow; outcome: CarriedOutcome }[]>();

  function EdgeSendCommandNode(this: Node, def: SendCommandDef) {
    RED.nodes.createNode(this, def);
    const target = def.target === "stream" ? "stream" : "device";
    const invalid = configError(() => {
      checkSettings(def, target);
    });
    // 0.1.0 sent an object msg.payload in place of the typed Elems: its saved nodes keep doing so.
    const saved = def.elemsFrom === undefined;
    const elemsFrom = elemsFromOf(def.elemsFrom, "payload");
    /** Said once per node: which of Elems and msg.payload it left out, and how to change that. */
    let ignoredWarned = false;
    const warn = this.warn.bind(this);
    const contextId = contextIdOf(this);
    const receive = this.receive.bind(this);
    const restoring = new WeakMap<object, CarriedOutcome>();
    const mine = carried.get(contextId);
    carried.delete(contextId);
    if (mine) {
      let resumed = false;
      const cancelResume = onNextFlowsStarted(RED.events, () => {
        resumed = true;
        for (const { msg, outcome } of mine) {
          msg.restored = true;
          restoring.set(msg, outcome);
          receive(msg);
        }
      });
      // Closed again before the flows started: the next node in its place takes them.
      this.on("close", () => {
        cancelResume();
        if (!resumed) carried.set(contextId, [...(carried.get(contextId) ?? []), ...mine]);
      });
    }
    // As many messages at once as the account sends; the others wait, not started (intake.ts).
    handleInput(
      RED,
      this,
      "edge-send-command",
      async (msg, { call, t }) => {
        const outcome = restoring.get(msg);
        if (outcome) {
          restoring.delete(msg);
          if ("error" in outcome) throw outcome.error;
          return outcome.result;
        }
        const { client, names } = accountOf(RED, def.account);
        const { elems, ignored } = elemsOf(msg, def.elems || "", elemsFrom);
        // A node set to send msg.payload does so as asked; only the rule of 0.1.0, kept for a
        // saved node, is told, as is a typed Elems that won over an object msg.payload.
        if (ignored && !ignoredWarned && (ignored === "payload" || saved)) {
          ignoredWarned = true;
          warn(
            ignored === "payload"
              ? t("edge-send-command.warn.payloadIgnored")
              : t("edge-send-command.warn.savedRule"),
          );
        }
        const ttlSource =
          msg.ttl ?? (def.ttl !== undefined && String(def.ttl).trim() !== "" ? def.ttl : undefined);
        const ttl =
          ttlSource === undefined
            ? undefined
            : checkInteger(ttlSource, "ttl", R.ttl.min, R.ttl.max);
        let sent: SentCommand;
        if (target === "device") {
          const device = resolveTarget(def.device, msg, "deviceId", "device-empty");
          sent = await sendToDevice(client, names, device, elems, ttl, call);
        } else {
          const stream = resolveTarget(def.stream, msg, "streamId", "stream-empty");
          const sentAt = Date.now();
          const metadata = metadataOf(ttl);
          // A stream path (what the editor's picker fills in) goes in the body, as for a device.
          const byPath = stream.startsWith("/");
          const facts: SendFacts = byPath
            ? { sentAt, ttl, path: stream }
            : { sentAt, ttl, streamId: stream };
          const event = byPath
            ? await client.createEventByPath(stream, elems, metadata, call)
            : await client.createEvent(stream, elems, metadata, call);
          // A device's :command stream named by path: a resumed fleet job must know it was ours.
          if (byPath && event?.id !== undefined) {
            const reused = sentCommands.claim(client.origin, stream, event.id);
            if (reused) throw reused;
            sentCommands.remember(stream, event.id, "", event.creationDate, sentAt);
          }
          const command = commandRefOf(event, facts);
          command.device ??= typeof msg.deviceId === "string" ? msg.deviceId : undefined;
          sent = { event, command };
        }
        const { event, command } = sent;
        msg.payload = event;
        msg.command = command;
        return {
          send: msg,
          status: () => t("edge-send-command.status.sent"),
        };
      },
      {
        account: def.account,
        invalid,
        carry: (msg, outcome) => {
          carried.set(contextId, [...(carried.get(contextId) ?? []), { msg, outcome }]);
          return true;
        },
      },
    ).limitBy(intakeOf(RED, def.account));
  }

  RED.nodes.registerType("edge-send-command", EdgeSendCommandNode, {
    settings: editorSettings("edge-send-command", R),
  });
};
