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
import { registerAwait } from "../lib/account/in-flight";
import { accountOf } from "../lib/account/lookup";
import type { CommandRef } from "../lib/commands/command-ref";
import type { InboxObserver, InboxRef } from "../lib/commands/inbox-types";
import { contextIdOf } from "../lib/node-red/context-id";
import { onNextFlowsStarted } from "../lib/node-red/flows-started";
import { isPersistentStore } from "../lib/node-red/persistent-store";
import { KeptWaits } from "../lib/node-red/kept-waits";
import { serializeMessage } from "../lib/node-red/saved-message";
import { WaitStore } from "../lib/node-red/saved-waits";
import type { Restorable } from "../lib/node-red/saved-waits";
import { handleInput } from "../lib/node-red/handler";
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
 * When the server returned no event, the command's time is our clock's, not the server's: allow
 * this much skew, or the command's own markers could look older than the command.
 */
const LOCAL_CLOCK_SKEW_MS = 5_000;

/**
 * The node's own Timeout, Interval and Inbox, checked at deploy: a Timeout of "abc" used to be
 * found only when a message came, after the command had been sent.
 */
function checkSettings(def: AwaitCommandDef): void {
  if (!blank(def.timeout)) checkInteger(def.timeout, "timeout", R.timeout.min, R.timeout.max);
  if (!blank(def.interval)) checkInteger(def.interval, "interval", R.interval.min, R.interval.max);
  if (typeof def.inbox === "string") checkTemplate(def.inbox, "inbox");
}

function commandOf(msg: NodeMessageInFlow): CommandRef {
  const c: unknown = msg.command;
  if (typeof c !== "object" || c === null) throw new EdgeError("no-command");
  const ref = c as Partial<CommandRef>;
  // An empty id names no command: every string holds it. Such a command is waited for like one
  // without an id, by date (edge-send-command refuses it; a msg built by hand may still hold it).
  const id = typeof ref.id === "string" && ref.id !== "" ? ref.id : undefined;
  if (id === undefined && typeof ref.creationDate !== "number") throw new EdgeError("no-command");
  return { ...ref, id } as CommandRef;
}

export = function (RED: NodeAPI): void {
  // Per registration of the type, which Node-RED makes once per process: a test helper's fresh
  // runtime starts with none.
  const kept = new KeptWaits();
  /** The nodes already told that a restart loses their waits: once each, not at every deploy. */
  const toldVolatile = new Set<string>();

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
    const contextId = contextIdOf(this);

    const observer: InboxObserver = {
      onReadState(err) {
        if (err) {
          setStatus({
            fill: "yellow",
            shape: "ring",
            text: t("edge-await-command.status.unread", { reason: err.code }),
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
    const store = blank(def.store) ? undefined : String(def.store).trim();
    const saved = new WaitStore(this, store, kept.of(contextId), (err) => {
      warn(t("edge-await-command.warn.store", { detail: String(err) }));
    });
    if (!isPersistentStore(RED.settings, store) && !toldVolatile.has(contextId)) {
      toldVolatile.add(contextId);
      warn(t("edge-await-command.warn.volatile"));
    }
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
    });

    // restore() runs once, at the flows:started that follows this node's start.
    const cancelRestore = onNextFlowsStarted(RED.events, restore);

    // Registered before handleInput's own close listener, so it runs first: the waits that the
    // handler then cancels know the node is closing and stay saved.
    this.on("close", (removed: boolean, done: () => void) => {
      shared.closing = true;
      cancelRestore();
      unlist();
      if (!removed) {
        // The waits stay in memory (and in the store) for the node that the deploy puts here.
        done();
        return;
      }
      kept.forget(contextId);
      toldVolatile.delete(contextId);
      saved.removeAll().then(done, (err: unknown) => {
        warn(t("edge-await-command.warn.store", { detail: String(err) }));
        done();
      });
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
          };
          new PendingWait(wait, msg, ctx, shared, w.ttl, key, resolve, reject).start(
            poller,
            w.inbox,
            w.deadline - Date.now(),
          );
        });
      }
      const command = commandOf(msg);
      let inbox: InboxRef;
      if (!blank(def.inbox)) {
        const ref = resolveTarget(def.inbox, msg, "inboxId", "inbox-empty");
        inbox = ref.startsWith("/") ? { path: ref } : { streamId: ref };
      } else if (typeof command.device === "string" && command.device) {
        inbox = { path: client.streamPath(command.device, ":inbox") };
      } else {
        throw new EdgeError("inbox-empty");
      }
      // A ttl of 0 means "no ttl" to the server, so it cannot be a timeout here either.
      const ttl = typeof command.ttl === "number" && command.ttl > 0 ? command.ttl : undefined;
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
      const since =
        typeof command.id === "string"
          ? command.creationDate
          : command.creationDate - LOCAL_CLOCK_SKEW_MS;
      const startedAt = Date.now();
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
      return new Promise<Result | null>((resolve, reject) => {
        const wait = { commandId: command.id, since, intervalMs, timeoutMs: timeout, startedAt };
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

    /**
     * Resumes the waits of this node from before the deploy or the restart, each once; a saved
     * record that is not a wait is dropped with a warning, and the others resume.
     */
    function restore(): void {
      // Saved waits stay saved while the settings are invalid: each resumes, and ends once, after
      // the deploy that fixes them, instead of failing now with an error that is not its own.
      if (shared.closing || invalid) return;
      const onBad = (key: string, field: string): void => {
        warn(t("edge-await-command.warn.badSaved", { key, field }));
      };
      saved.restorable(onBad).then(
        (list) => {
          if (shared.closing) return;
          for (const r of list) {
            r.msg.restored = true;
            restoring.set(r.msg, r);
            receive(r.msg);
          }
        },
        (err: unknown) => {
          warn(t("edge-await-command.warn.store", { detail: String(err) }));
        },
      );
    }
  }

  RED.nodes.registerType("edge-await-command", EdgeAwaitCommandNode, {
    settings: editorSettings("edge-await-command", R),
  });
};
