// Turns "a command was sent" into "the device did it, failed, or did not answer in time" by
// watching the device's `:inbox` for the command's markers through the account's shared poller.
// Output 1 is COMMAND_COMPLETE, 2 COMMAND_FAULT, 3 the timeout. msg.reset ends this node's waits.
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from "node-red";
import { EdgeError } from "../lib/api/errors";
import type { DeviceEvent } from "../lib/api/types";
import { clientOf } from "../lib/account/lookup";
import type { CommandRef } from "../lib/commands/command-ref";
import type { InboxPoller, InboxRef, Wait } from "../lib/commands/inbox-poller";
import type { MarkerName } from "../lib/commands/markers";
import { handleInput } from "../lib/node-red/handler";
import type { InputContext, InputHandle, Result } from "../lib/node-red/handler";
import { resolveTarget } from "../lib/node-red/target";
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
}

const R = AWAIT_COMMAND_RANGES;
/**
 * When the server returned no event, the command's time is our clock's, not the server's: allow
 * this much skew, or the command's own markers could look older than the command.
 */
const LOCAL_CLOCK_SKEW_MS = 5_000;

function blank(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === "string" && value.trim() === "")
  );
}

function commandOf(msg: NodeMessageInFlow): CommandRef {
  const c: unknown = msg.command;
  if (typeof c !== "object" || c === null) throw new EdgeError("no-command");
  const ref = c as Partial<CommandRef>;
  if (typeof ref.id !== "string" && typeof ref.creationDate !== "number")
    throw new EdgeError("no-command");
  return ref as CommandRef;
}

const OUTPUT: Record<MarkerName, number> = {
  COMMAND_START: -1,
  COMMAND_COMPLETE: 0,
  COMMAND_FAULT: 1,
};

/**
 * One pending wait, as a class rather than a nest of closures: a thousand may be pending at once,
 * and this halves the heap each holds (bench/waiting.js). It is the poller's Wait, its own abort
 * listener (handleEvent) and its timer's argument.
 */
class PendingWait implements Wait {
  readonly commandId: string | undefined;
  readonly since: number;
  readonly intervalMs: number;
  /** Made with the first marker: most waits hold none for most of their life. */
  private markers: DeviceEvent[] | undefined;
  private readonly started = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;
  private ended = false;

  constructor(
    wait: Pick<Wait, "commandId" | "since" | "intervalMs">,
    private readonly msg: NodeMessageInFlow,
    private readonly ctx: InputContext,
    private readonly counter: { waiting: number },
    private readonly resolve: (result: Result | null) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.commandId = wait.commandId;
    this.since = wait.since;
    this.intervalMs = wait.intervalMs;
  }

  start(poller: InboxPoller, inbox: InboxRef, timeoutMs: number): void {
    this.counter.waiting++;
    this.unwatch = poller.watch(inbox, this);
    this.timer = setTimeout(timeUp, timeoutMs, this);
    this.ctx.signal.addEventListener("abort", this, { once: true });
  }

  onMarker(event: DeviceEvent, marker: MarkerName): void {
    (this.markers ??= []).push(event);
    const output = OUTPUT[marker];
    if (output >= 0) {
      this.finish(output, event, output === 0 ? "complete" : "fault");
    } else {
      this.ctx.status({
        fill: "yellow",
        shape: "dot",
        text: this.ctx.t("edge-await-command.status.started", { count: this.counter.waiting }),
      });
    }
  }

  onError(err: EdgeError): void {
    if (this.end()) this.reject(err);
  }

  /** The node's waits were cancelled (close or msg.reset). */
  handleEvent(): void {
    if (this.end()) this.resolve(null);
  }

  finish(output: number, event: DeviceEvent | null, kind: string): void {
    if (!this.end()) return;
    const { msg } = this;
    const out: (NodeMessage | null)[] = [null, null, null];
    const elapsed = Math.round(performance.now() - this.started);
    msg.payload = event;
    msg.markers = this.markers ?? [];
    msg.elapsed = elapsed;
    out[output] = msg;
    const fill = output === 0 ? "green" : output === 1 ? "red" : "yellow";
    this.resolve({
      send: out,
      status: this.ctx.t(`edge-await-command.status.${kind}`, { elapsed }),
      fill,
    });
  }

  /** Stops the timer, the watch and the abort listener; false when the wait had already ended. */
  private end(): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.counter.waiting--;
    clearTimeout(this.timer);
    this.unwatch?.();
    this.ctx.signal.removeEventListener("abort", this);
    return true;
  }
}

function timeUp(wait: PendingWait): void {
  wait.finish(2, null, "timeout");
}

export = function (RED: NodeAPI): void {
  function EdgeAwaitCommandNode(this: Node, def: AwaitCommandDef) {
    RED.nodes.createNode(this, def);
    const setStatus = this.status.bind(this);
    let handle: InputHandle | undefined = undefined;

    const step = (msg: NodeMessageInFlow, ctx: InputContext): Promise<Result | null> => {
      if (msg.reset) {
        handle?.cancelAll();
        setStatus({ fill: "grey", shape: "ring", text: ctx.t("edge-await-command.status.reset") });
        return Promise.resolve(null);
      }
      const { client, poller } = clientOf(RED, def.account);
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
      const since =
        typeof command.id === "string"
          ? command.creationDate
          : command.creationDate - LOCAL_CLOCK_SKEW_MS;

      return new Promise<Result | null>((resolve, reject) => {
        const wait = { commandId: command.id, since, intervalMs };
        new PendingWait(wait, msg, ctx, counter, resolve, reject).start(poller, inbox, timeout);
      });
    };

    const counter = { waiting: 0 };
    handle = handleInput(RED, this, "edge-await-command", step, {
      busy: (count, t) => ({
        fill: "blue",
        shape: "ring",
        text: t("edge-await-command.status.waiting", { count }),
      }),
    });
  }

  RED.nodes.registerType("edge-await-command", EdgeAwaitCommandNode, {
    settings: editorSettings("edge-await-command", R),
  });
};
