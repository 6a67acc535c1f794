// One pending wait of edge-await-command: the poller's Wait for one command, its timer's argument
// and its abort listener's entry, as one object (a thousand may be pending; see bench/waiting.js).
// It ends on the command's COMMAND_COMPLETE or COMMAND_FAULT marker, on the timeout after one more
// read of the inbox, or when cancelled, and resolves the node's input step with the output.
import type { NodeMessage, NodeMessageInFlow } from "node-red";
import type { EdgeError } from "../api/errors";
import { timerDelay } from "../api/timer-delay";
import type { DeviceEvent } from "../api/types";
import type { InputContext, Result } from "../node-red/handler";
import type { Translate } from "../node-red/i18n";
import type { InboxObserver, InboxPoller, InboxRef, Wait, WatchHandle } from "./inbox-poller";
import type { CommandRef } from "./command-ref";
import type { MarkerName } from "./markers";
import type { WaitStore } from "./saved-waits";

/** The await node's outputs, in their order, with the status colour of each. */
export const OUTPUTS = {
  complete: { index: 0, fill: "green" },
  fault: { index: 1, fill: "red" },
  timeout: { index: 2, fill: "yellow" },
} as const;

export type OutputName = keyof typeof OUTPUTS;

/** The output a marker ends its wait on; COMMAND_START ends none, it only shows. */
const OUTPUT_OF: Partial<Record<MarkerName, OutputName>> = {
  COMMAND_COMPLETE: "complete",
  COMMAND_FAULT: "fault",
};

/** What the editor's sidebar shows of one wait (lib/account/in-flight.ts), read only while open. */
export interface WaitView {
  commandId: string | undefined;
  device: string;
  /** The elems the command was sent with (msg.payload.elems), as they are. */
  elems: unknown;
  startedAt: number;
  deadline: number;
  ttl: number | undefined;
  restored: boolean;
}

/** The device of an inbox path `/<company>/devices/<name>/:inbox`, else the inbox as given. */
function deviceOfInbox(inbox: InboxRef | undefined): string {
  if (inbox?.path !== undefined) return /\/devices\/([^/]+)\//.exec(inbox.path)?.[1] ?? inbox.path;
  return inbox?.streamId ?? "";
}

/** What the waits of one await node share. */
export interface AwaitShared {
  readonly t: Translate;
  readonly observer: InboxObserver;
  readonly saved: WaitStore;
  waiting: number;
  /** Set while the node closes: its waits end without output but stay saved. */
  closing: boolean;
  /**
   * The pending waits of each abort signal, with one listener per signal: one per wait made
   * Node 20 walk the whole listener list on every add (issue 15).
   */
  readonly bySignal: Map<AbortSignal, Set<PendingWait>>;
  /**
   * Grows as waits join or leave bySignal: the sidebar walks the sets again only when it moved
   * (lib/account/in-flight.ts), so an open tab over ten thousand idle waits costs next to nothing.
   */
  changes: number;
}

function listen(shared: AwaitShared, signal: AbortSignal, wait: PendingWait): void {
  let waits = shared.bySignal.get(signal);
  if (!waits) {
    const set = new Set<PendingWait>();
    waits = set;
    shared.bySignal.set(signal, set);
    signal.addEventListener(
      "abort",
      () => {
        shared.bySignal.delete(signal);
        shared.changes++;
        for (const w of [...set]) w.cancel();
      },
      { once: true },
    );
  }
  waits.add(wait);
  shared.changes++;
}

function unlisten(shared: AwaitShared, signal: AbortSignal, wait: PendingWait): void {
  // The listener stays until the signal aborts or the node closes: the handler keeps one signal
  // for all its messages, so it is one listener per node, not per wait.
  if (shared.bySignal.get(signal)?.delete(wait)) shared.changes++;
}

/**
 * One pending wait, as a class rather than a nest of closures: a thousand may be pending at once,
 * and this halves the heap each holds (bench/waiting.js). It is the poller's Wait and its timer's
 * argument.
 */
export class PendingWait implements Wait {
  readonly commandId: string | undefined;
  readonly since: number;
  readonly intervalMs: number;
  readonly observer: InboxObserver;
  /** Made with the first marker: most waits hold none for most of their life. */
  private markers: DeviceEvent[] | undefined;
  private timer: NodeJS.Timeout | undefined;
  private handle: WatchHandle | undefined;
  private inbox: InboxRef | undefined;
  private ended = false;

  constructor(
    wait: Pick<Wait, "commandId" | "since" | "intervalMs">,
    private readonly msg: NodeMessageInFlow,
    private readonly ctx: InputContext,
    private readonly shared: AwaitShared,
    /** Wall clock ms at the start of the wait (earlier than now when restored). */
    private readonly startedAt: number,
    private readonly timeoutMs: number,
    private readonly ttl: number | undefined,
    private readonly key: string | undefined,
    private readonly resolve: (result: Result | null) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.commandId = wait.commandId;
    this.since = wait.since;
    this.intervalMs = wait.intervalMs;
    this.observer = shared.observer;
  }

  start(poller: InboxPoller, inbox: InboxRef, remainingMs: number): void {
    this.shared.waiting++;
    this.inbox = inbox;
    if (this.ctx.signal.aborted) {
      this.cancel();
      return;
    }
    listen(this.shared, this.ctx.signal, this);
    this.handle = poller.watch(inbox, this);
    if (this.ended) return;
    // A restored wait's deadline comes from a context store: clamped like any outside delay.
    this.timer = setTimeout(timeUp, timerDelay(remainingMs), this);
  }

  onMarker(event: DeviceEvent, marker: MarkerName): void {
    if (this.ended) return;
    (this.markers ??= []).push(event);
    const output = OUTPUT_OF[marker];
    if (output) {
      this.finish(output, event, undefined);
    } else {
      this.ctx.status({
        fill: "yellow",
        shape: "dot",
        text: this.shared.t("edge-await-command.status.started", {
          count: this.shared.waiting,
        }),
      });
    }
  }

  onError(err: EdgeError): void {
    if (this.end(true)) this.reject(err);
  }

  onFinalRead(err: EdgeError | undefined): void {
    this.finish("timeout", null, err);
  }

  /** The deadline passed: read the inbox once more before leaving on "timed out". */
  timeUp(): void {
    this.timer = undefined;
    if (!this.ended) this.handle?.finalRead();
  }

  /** Wall clock ms of the start: the sidebar's order, read for every wait while it is open. */
  get started(): number {
    return this.startedAt;
  }

  /** The device, as the sidebar groups by it: the command's, else its inbox's. */
  device(): string {
    const command = this.msg.command as Partial<CommandRef> | undefined;
    return typeof command?.device === "string" && command.device
      ? command.device
      : deviceOfInbox(this.inbox);
  }

  /** What the editor's sidebar lists of the waits it shows; computed only when it asks. */
  describe(): WaitView {
    const payload: unknown = this.msg.payload;
    return {
      commandId: this.commandId,
      device: this.device(),
      elems:
        typeof payload === "object" && payload !== null
          ? (payload as { elems?: unknown }).elems
          : undefined,
      startedAt: this.startedAt,
      deadline: this.startedAt + this.timeoutMs,
      ttl: this.ttl,
      restored: this.msg.restored === true,
    };
  }

  /** The node's waits were cancelled (close or msg.reset), or this one from the sidebar. */
  cancel(): void {
    if (this.end(!this.shared.closing)) this.resolve(null);
  }

  private finish(
    output: OutputName,
    event: DeviceEvent | null,
    readError: EdgeError | undefined,
  ): void {
    if (!this.end(true)) return;
    const { msg, shared } = this;
    const out: (NodeMessage | null)[] = Object.keys(OUTPUTS).map(() => null);
    const elapsed = Math.max(0, Date.now() - this.startedAt);
    msg.payload = event;
    msg.markers = this.markers ?? [];
    msg.elapsed = elapsed;
    if (output === "timeout") {
      const mayRunUntil = this.ttl === undefined ? null : this.startedAt + this.ttl;
      msg.timedOut = {
        timeout: this.timeoutMs,
        ttl: this.ttl ?? null,
        mayRunUntil,
        note: shared.t(
          mayRunUntil === null
            ? "edge-await-command.timedOut.noTtl"
            : "edge-await-command.timedOut.ttl",
          { until: mayRunUntil === null ? "" : new Date(mayRunUntil).toISOString() },
        ),
        ...(readError ? { inboxError: readError.message } : {}),
      };
    }
    const { index, fill } = OUTPUTS[output];
    out[index] = msg;
    this.resolve({
      send: out,
      status: shared.t(`edge-await-command.status.${output}`, { elapsed }),
      fill,
    });
  }

  /**
   * Stops the timer, the watch and the abort listener, and forgets the saved wait unless told to
   * keep it; false when the wait had already ended.
   */
  private end(forget: boolean): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.shared.waiting--;
    clearTimeout(this.timer);
    this.handle?.stop();
    unlisten(this.shared, this.ctx.signal, this);
    if (forget && this.key !== undefined) this.shared.saved.remove(this.key);
    return true;
  }
}

function timeUp(wait: PendingWait): void {
  wait.timeUp();
}
