// Turns "a command was sent" into "the device did it, failed, or did not answer in time" by
// watching the device's `:inbox` for the command's markers through the account's shared poller.
// Its outputs are complete, fault and timed out (OUTPUTS in pending-wait.ts; the wait itself is
// lib/commands/command-wait.ts). msg.reset ends this node's waits.
//
// A timeout is only reported after one more read of the inbox made after the deadline, so a late
// poll never turns a completed command into "timed out". Pending waits are kept in this process's
// memory and in a context store, and resume when the node starts again with msg.restored = true:
// after a redeploy from memory, whatever the settings, after a restart from a persistent store.
import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from "node-red";
import { EdgeError } from "../lib/api/errors";
import type { EdgeClient } from "../lib/api/client";
import { registerAwait } from "../lib/account/in-flight";
import { accountOf } from "../lib/account/lookup";
import type { CommandRef } from "../lib/commands/command-ref";
import {
  clockApart,
  dateOf,
  sentAtOf,
  sinceOf,
  tooFarForDates,
} from "../lib/commands/command-time";
import { sentCommands } from "../lib/commands/sent-commands";
import type { InboxObserver, InboxRef } from "../lib/commands/inbox-types";
import { RecordsOfType } from "../lib/records/saved-lifecycle";
import { serializeMessage } from "../lib/records/saved-message";
import { WAITS } from "../lib/records/saved-waits";
import type { Restorable } from "../lib/records/saved-waits";
import { handleInput } from "../lib/node-red/handler";
import { clip, errorStatus } from "../lib/node-red/status";
import type { InputContext, InputHandle, Result } from "../lib/node-red/handler";
import { translator } from "../lib/node-red/i18n";
import { PendingWait } from "./pending-wait";
import type { AwaitShared } from "./pending-wait";
import { resolveTarget } from "../lib/node-red/target";
import { checkTemplate } from "../lib/node-red/render";
import { blank, configError } from "../lib/node-red/config";
import { checkInteger } from "../lib/node-red/validate";
import {
  AWAIT_COMMAND_RANGES,
  DEFAULT_AWAIT_TIMEOUT_MS,
  editorSettings,
} from "../lib/node-red/ranges";

interface AwaitCommandDef extends NodeDef {
  account: string;
  inbox: string;
  timeout: number | string;
  interval: number | string;
  /** Context store of the pending waits; empty = Node-RED's default store. */
  store?: string;
}

const R = AWAIT_COMMAND_RANGES;
/**
 * The node's own Timeout, Interval and Inbox, checked at deploy: a Timeout of "abc" used to be
 * found only when a message came, after the command had been sent.
 */
function checkSettings(def: AwaitCommandDef): void {
  if (!blank(def.timeout)) checkInteger(def.timeout, "timeout", R.timeout.min, R.timeout.max);
  if (!blank(def.interval)) checkInteger(def.interval, "interval", R.interval.min, R.interval.max);
  if (typeof def.inbox === "string") checkTemplate(def.inbox, "inbox");
}

/**
 * The command's id as msg.command holds it: text, or a whole number above 0 from a Function node
 * on a server whose ids are numbers (7 is the id "7", as edge-send-command makes it). A blank text
 * names no command (every marker's text holds a space): the wait goes by date, as without an id.
 * Any other value is refused: a number 7 was once ignored, and the wait took markers by date.
 */
function commandIdOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value.trim() === "" ? undefined : value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return String(value);
  throw new EdgeError("no-command");
}

/** What the wait needs of msg.command, read when the message arrives at `now`. */
function commandOf(
  msg: NodeMessageInFlow,
  now: number,
): { ref: CommandRef; since: number; dated: boolean } {
  const c: unknown = msg.command;
  if (typeof c !== "object" || c === null) throw new EdgeError("no-command");
  const ref = c as Partial<Record<keyof CommandRef, unknown>>;
  const id = commandIdOf(ref.id);
  // A Function node's hand-built reference may have no date, an ISO one or null: the server's
  // date of a command this runtime sent, else it waits from when it came, as a saved wait can be
  // read back after a deploy or a restart (command-time.ts).
  const date = commandDate(ref.creationDate, id);
  const since = sinceOf(date, id !== undefined, now);
  if (since === undefined) {
    // A date without an id, a day or more from our clock: no date could say whose a marker is.
    if (tooFarForDates(date, id !== undefined, now)) throw clockApart(date, now);
    throw new EdgeError("no-command");
  }
  // The server's own date of the command, comparable with another's (clock-steps.ts).
  const dated = id !== undefined && date !== undefined && since === date;
  return { ref: { ...(c as CommandRef), id }, since, dated };
}

/** A field of msg.command, whatever msg.command holds. */
function commandField(msg: NodeMessageInFlow, key: "creationDate" | "sentAt"): unknown {
  const c: unknown = msg.command;
  return typeof c === "object" && c !== null ? (c as Record<string, unknown>)[key] : undefined;
}

/** The command's date: msg.command's, else the server's for a command this runtime sent. */
function commandDate(given: unknown, id: string | undefined): number | undefined {
  return dateOf(given) ?? (id !== undefined ? sentCommands.createdAt(id) : undefined);
}

/**
 * Whether a saved wait's `since` is its command's date as the server gave it, as commandOf
 * decided when it started: comparable with other commands' dates (clock-steps.ts).
 */
function datedAgain(msg: NodeMessageInFlow, id: string | undefined, since: number): boolean {
  return id !== undefined && commandDate(commandField(msg, "creationDate"), id) === since;
}

/** The wait's `sentAt` (command-time.ts, sentAtOf), as a field to spread, or none. */
function sentAtField(msg: NodeMessageInFlow, id: string | undefined): { sentAt?: number } {
  const sentAt = sentAtOf(commandField(msg, "sentAt"), id, Date.now());
  return sentAt !== undefined ? { sentAt } : {};
}

/**
 * The command's stream as the runtime's registry of sent commands knows it (sent-commands.ts):
 * msg.command.path, or the `:command` stream of its device; undefined when neither makes one.
 */
function streamOf(
  command: CommandRef,
  client: EdgeClient,
): { origin: string; path: string } | undefined {
  const { origin } = client;
  if (typeof command.path === "string" && command.path) return { origin, path: command.path };
  try {
    if (typeof command.device === "string" && command.device)
      return { origin, path: client.streamPath(command.device, ":command") };
  } catch {
    // A device name that makes no path: no send of this runtime made it.
  }
  return undefined;
}

export = function (RED: NodeAPI): void {
  const waits = new RecordsOfType(RED, "edge-await-command", WAITS);

  function EdgeAwaitCommandNode(this: Node, def: AwaitCommandDef) {
    RED.nodes.createNode(this, def);
    const setStatus = this.status.bind(this);
    const warn = this.warn.bind(this);
    const receive = this.receive.bind(this);
    const t = translator(RED, "edge-await-command");
    let handle: InputHandle | undefined = undefined;
    let ttlWarned = false;
    let overrunWarned = false;
    /** Saved waits being restored, by the message they restore. */
    const restoring = new WeakMap<object, Restorable>();

    const observer: InboxObserver = {
      onReadState(err) {
        // A read that was under way when the last wait ended (a cancel, msg.reset): nothing
        // waits, and "waiting (0)" would replace what the end showed.
        if (shared.waiting === 0) return;
        if (err) {
          setStatus({
            fill: "yellow",
            shape: "ring",
            text: clip(t("edge-await-command.status.unread", { reason: errorStatus(t, err) })),
          });
        } else {
          setStatus({
            fill: "blue",
            shape: "ring",
            text: t("edge-await-command.status.waiting", { count: shared.waiting }),
          });
        }
      },
      onOverrun() {
        if (overrunWarned) return;
        overrunWarned = true;
        warn(t("edge-await-command.warn.overrun"));
      },
    };
    const records = waits.of(this, def.store, t);
    const { saved } = records;
    const shared: AwaitShared = {
      t,
      observer,
      saved,
      waiting: 0,
      closing: false,
      bySignal: new Map(),
      changes: 0,
    };

    // Listed in the editor's "edge devices" sidebar while the node runs (in-flight.ts).
    const log = this.log.bind(this);
    const unlist = registerAwait({
      nodeId: this.id,
      accountId: def.account,
      bySignal: shared.bySignal,
      changes: () => shared.changes,
      log,
      cancelled: (count) => {
        // As msg.reset shows "reset": grey when none is left, blue while waits are still pending
        // (the next read of the inbox counts them again: "waiting (n)"). One short text for both:
        // with the number left too it outgrew a node's status at large counts.
        setStatus({
          fill: shared.waiting > 0 ? "blue" : "grey",
          shape: "ring",
          text: clip(t("edge-await-command.status.cancelled", { count })),
        });
      },
    });

    // Registered before handleInput's own close listener, so it runs first: the waits that the
    // handler then cancels know the node is closing and stay saved.
    records.keep({
      closing: () => {
        shared.closing = true;
        unlist();
      },
      mayResume: () => !shared.closing && !invalid,
      resume: (records) => {
        for (const r of records) {
          r.msg.restored = true;
          restoring.set(r.msg, r);
          receive(r.msg);
        }
      },
    });

    const step = (msg: NodeMessageInFlow, ctx: InputContext): Promise<Result | null> => {
      if (msg.reset) {
        handle?.cancelAll();
        setStatus({ fill: "grey", shape: "ring", text: ctx.t("edge-await-command.status.reset") });
        return Promise.resolve(null);
      }
      const { client, poller } = accountOf(RED, def.account);
      const restored = restoring.get(msg);
      if (restored) {
        restoring.delete(msg);
        const { key, wait: w } = restored;
        return new Promise<Result | null>((resolve, reject) => {
          const wait = {
            commandId: w.commandId,
            since: w.since,
            intervalMs: w.intervalMs,
            timeoutMs: w.timeoutMs,
            startedAt: w.startedAt,
            ...sentAtField(msg, w.commandId),
            dated: datedAgain(msg, w.commandId, w.since),
          };
          new PendingWait(wait, msg, ctx, shared, w.ttl, key, resolve, reject).start(
            poller,
            w.inbox,
            w.deadline - Date.now(),
          );
        });
      }
      const startedAt = Date.now();
      const { ref: command, since, dated } = commandOf(msg, startedAt);
      let inbox: InboxRef;
      if (!blank(def.inbox)) {
        const ref = resolveTarget(def.inbox, msg, "inboxId", "inbox-empty");
        inbox = ref.startsWith("/") ? { path: ref } : { streamId: ref };
      } else if (typeof command.device === "string" && command.device) {
        inbox = { path: client.streamPath(command.device, ":inbox") };
      } else {
        throw new EdgeError("inbox-empty");
      }
      // A ttl of 0 means "no ttl" to the server, so it cannot be a timeout here either; one that
      // is not finite is none (a saved wait read back has none).
      const given: unknown = command.ttl;
      const ttl =
        typeof given === "number" && Number.isFinite(given) && given > 0 ? given : undefined;
      const timeoutSource = !blank(msg.timeout)
        ? msg.timeout
        : !blank(def.timeout)
          ? def.timeout
          : ttl;
      const timeout = checkInteger(
        timeoutSource ?? DEFAULT_AWAIT_TIMEOUT_MS,
        "timeout",
        R.timeout.min,
        R.timeout.max,
      );
      const intervalMs = checkInteger(
        blank(def.interval) ? R.interval.default : def.interval,
        "interval",
        R.interval.min,
        R.interval.max,
      );
      if (ttl !== undefined && ttl > timeout && !ttlWarned) {
        ttlWarned = true;
        const text = ctx.t("edge-await-command.warn.ttl", { ttl, timeout });
        warn(text);
        setStatus({ fill: "yellow", shape: "ring", text: ctx.t("edge-await-command.status.ttl") });
      }
      const key = saved.newKey();
      const { json, dropped } = serializeMessage(msg);
      if (dropped.length > 0) {
        warn(ctx.t("edge-await-command.warn.unsaved", { props: dropped.join(", ") }));
      }
      saved.save(key, {
        v: 1,
        inbox,
        ...(command.id !== undefined ? { commandId: command.id } : {}),
        since,
        deadline: startedAt + timeout,
        timeoutMs: timeout,
        intervalMs,
        ...(ttl !== undefined ? { ttl } : {}),
        startedAt,
        msg: json,
      });

      ctx.busy();
      const stream = streamOf(command, client);
      return new Promise<Result | null>((resolve, reject) => {
        const wait = {
          commandId: command.id,
          since,
          intervalMs,
          timeoutMs: timeout,
          startedAt,
          ...sentAtField(msg, command.id),
          dated,
          ...(stream ? { stream } : {}),
        };
        new PendingWait(wait, msg, ctx, shared, ttl, key, resolve, reject).start(
          poller,
          inbox,
          timeout,
        );
      });
    };

    const invalid = configError(() => {
      checkSettings(def);
    });
    handle = handleInput(RED, this, "edge-await-command", step, {
      account: def.account,
      invalid,
      busy: (count, tr) => ({
        fill: "blue",
        shape: "ring",
        text: tr("edge-await-command.status.waiting", { count }),
      }),
    });
  }

  RED.nodes.registerType("edge-await-command", EdgeAwaitCommandNode, {
    settings: editorSettings("edge-await-command", R),
  });
};
