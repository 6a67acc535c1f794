// One pending wait of edge-await-command: the round trip's CommandWait (lib/commands), its abort
// listener's entry and the sidebar's row, as one object (a thousand may be pending; see
// bench/waiting.js). This file turns the wait's outcome into what the node shows: the output its
// message leaves on, the message's markers, elapsed time and timedOut note, and the status.
import type { NodeMessage, NodeMessageInFlow } from "node-red";
import type { ListedWait, WaitView } from "../lib/account/in-flight";
import { EdgeError } from "../lib/api/errors";
import type { DeviceEvent } from "../lib/api/types";
import { CommandWait } from "../lib/commands/command-wait";
import type { CommandWaitOptions, WaitOutcome } from "../lib/commands/command-wait";
import { namesCommand } from "../lib/commands/markers";
import type { CommandRef } from "../lib/commands/command-ref";
import type { InboxPoller } from "../lib/commands/inbox-poller";
import type { InboxObserver, InboxRef } from "../lib/commands/inbox-types";
import type { WaitStore } from "../lib/records/saved-waits";
import type { InputContext, Result } from "../lib/node-red/handler";
import type { Translate } from "../lib/node-red/i18n";

/** The await node's outputs, in their order, with the status colour of each. */
export const OUTPUTS = {
  complete: { index: 0, fill: "green" },
  fault: { index: 1, fill: "red" },
  timeout: { index: 2, fill: "yellow" },
} as const;

type OutputName = keyof typeof OUTPUTS;

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
 * One pending wait of the node, ending its input step: its fields are what the outcome needs to
 * become an output (the message, the node's step context and promise), kept on the object rather
 * than in closures, which would double the heap each wait holds.
 */
export class PendingWait extends CommandWait implements ListedWait {
  constructor(
    wait: Omit<CommandWaitOptions, "observer">,
    private readonly msg: NodeMessageInFlow,
    private readonly ctx: InputContext,
    private readonly shared: AwaitShared,
    private readonly ttl: number | undefined,
    /** The saved wait's key in the node's store. */
    private readonly key: string | undefined,
    private readonly resolve: (result: Result | null) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    super({ ...wait, observer: shared.observer });
  }

  override start(poller: InboxPoller, inbox: InboxRef, remainingMs: number): void {
    this.shared.waiting++;
    if (this.ctx.signal.aborted) {
      this.inbox = inbox;
      this.cancel();
      return;
    }
    listen(this.shared, this.ctx.signal, this);
    super.start(poller, inbox, remainingMs);
  }

  protected override onStartMarker(): void {
    this.ctx.status({
      fill: "yellow",
      shape: "dot",
      text: this.shared.t("edge-await-command.status.started", { count: this.shared.waiting }),
    });
  }

  protected ended(outcome: WaitOutcome): void {
    const { shared } = this;
    shared.waiting--;
    unlisten(shared, this.ctx.signal, this);
    // A wait cancelled because its node closes stays saved, for the node the deploy puts here.
    const forget = outcome.kind !== "cancelled" || !shared.closing;
    if (forget && this.key !== undefined) shared.saved.remove(this.key);
    switch (outcome.kind) {
      case "cancelled":
        this.resolve(null);
        return;
      case "error":
        this.reject(outcome.error);
        return;
      case "timed-out":
        this.send("timeout", null, outcome.markers, outcome.elapsed, outcome.readError?.message);
        return;
      default:
        this.send(outcome.kind, outcome.marker, outcome.markers, outcome.elapsed);
    }
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

  /**
   * Cancelled in the editor's tab: the message ends with the error `cancelled`, which a Catch node
   * gets. The command was sent (this wait has its reference) and may still run: mayHaveBeenSent.
   */
  cancelFromTab(): void {
    if (this.hasEnded()) return;
    const params = { device: this.device(), command: this.commandId ?? "-" };
    this.onError(new EdgeError("cancelled", params, { mayHaveBeenSent: true }));
  }

  /** msg.timedOut: how long the device may still run the command, and why the wait gave up. */
  private timedOut(inboxError: string | undefined): Record<string, unknown> {
    const mayRunUntil = this.ttl === undefined ? null : this.startedAt + this.ttl;
    return {
      timeout: this.timeoutMs,
      ttl: this.ttl ?? null,
      mayRunUntil,
      note: this.shared.t(
        mayRunUntil === null
          ? "edge-await-command.timedOut.noTtl"
          : "edge-await-command.timedOut.ttl",
        { until: mayRunUntil === null ? "" : new Date(mayRunUntil).toISOString() },
      ),
      ...(inboxError !== undefined ? { inboxError } : {}),
    };
  }

  /** Resolves the input step with the message on `output`. */
  private send(
    output: OutputName,
    marker: DeviceEvent | null,
    markers: DeviceEvent[],
    elapsed: number,
    inboxError?: string,
  ): void {
    const { msg } = this;
    msg.payload = marker;
    msg.markers = markers;
    msg.elapsed = elapsed;
    // Taken by its date, not by the command's id: the docs say what that can swap.
    if (marker && !namesCommand(marker, this.commandId)) msg.matchedBy = "date";
    if (output === "timeout") msg.timedOut = this.timedOut(inboxError);
    const out: (NodeMessage | null)[] = Object.keys(OUTPUTS).map(() => null);
    const { index, fill } = OUTPUTS[output];
    out[index] = msg;
    this.resolve({
      send: out,
      status: this.shared.t(`edge-await-command.status.${output}`, { elapsed }),
      fill,
    });
  }
}
