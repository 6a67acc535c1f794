// The round trip's wait: one command's markers on the account's shared inbox poller, until its
// COMMAND_COMPLETE or COMMAND_FAULT marker, its deadline, a refusal of the inbox, or a cancel. It
// knows no Node-RED shapes: it ends with an outcome, and what an outcome becomes (an output, a
// status, a message) is its subclass's business (the await node's PendingWait; a fleet of
// commands waits the same way without an input message of its own).
//
// A wait never reports "timed out" from its timer alone: the deadline asks the inbox watch for
// one more read that starts after it, so that a marker the last poll missed still completes it.
import type { EdgeError } from "../api/errors";
import { timerDelay } from "../api/timer-delay";
import type { DeviceEvent } from "../api/types";
import type { InboxPoller } from "./inbox-poller";
import type { InboxObserver, InboxRef, Wait, WatchHandle } from "./inbox-types";
import type { MarkerName } from "./markers";
import { clockApart, clockStepped, datesApart } from "./command-time";
import { sentCommands } from "./sent-commands";
import type { ReuseWatcher } from "./sent-commands";

/** How a wait ended; `markers` are the command's markers seen, in the order they came. */
export type WaitOutcome =
  | { kind: "complete" | "fault"; marker: DeviceEvent; markers: DeviceEvent[]; elapsed: number }
  /** `readError`: the read after the deadline failed (FINAL_TRIES times), so markers may be missing. */
  | { kind: "timed-out"; markers: DeviceEvent[]; elapsed: number; readError?: EdgeError }
  /** The inbox was refused for good (unknown inbox, credentials), or the id given again. */
  | { kind: "error"; error: EdgeError }
  | { kind: "cancelled" };

export interface CommandWaitOptions {
  /** The command's event id, when the server returned it. */
  commandId: string | undefined;
  /** Markers created before this (server time, ms) are not for this command. */
  since: number;
  /** The longest gap between two reads of the inbox. */
  intervalMs: number;
  timeoutMs: number;
  /** Wall clock ms at the start of the wait: earlier than now for a wait restored after a restart. */
  startedAt: number;
  /** Our clock before the command's request left, when known (inbox-types.ts, Wait.sentAt). */
  sentAt?: number;
  /** `since` is the server's date of the command (inbox-types.ts, Wait.dated). */
  dated?: boolean;
  /** Our clock when the command was surely made (inbox-types.ts, Wait.madeBy); else startedAt. */
  madeBy?: number;
  /** Told about the inbox as a whole (read failures, overruns); one per node, shared by its waits. */
  observer?: InboxObserver;
  /**
   * The command's `:command` stream and its server's origin, when known: should the server give
   * the command's id to a later command of this runtime there, the wait ends with `id-reused`
   * (sent-commands.ts), as a marker naming that id may then be the other command's.
   */
  stream?: { origin: string; path: string };
}

/** The kind a marker ends its wait with; COMMAND_START ends none. */
const ENDS_WITH: Partial<Record<MarkerName, "complete" | "fault">> = {
  COMMAND_COMPLETE: "complete",
  COMMAND_FAULT: "fault",
};

/**
 * One wait for one command's markers, as a class rather than closures: a thousand may be pending
 * at once (bench/waiting.js), and this object is at the same time the poller's Wait and its
 * timer's argument. Subclasses add what they must keep per wait as fields, not closures.
 */
export abstract class CommandWait implements Wait, ReuseWatcher {
  readonly commandId: string | undefined;
  readonly since: number;
  readonly intervalMs: number;
  readonly observer: InboxObserver | undefined;
  readonly timeoutMs: number;
  readonly startedAt: number;
  readonly sentAt: number | undefined;
  readonly dated: boolean;
  readonly madeBy: number;
  readonly datesApart: boolean;
  readonly stream: { origin: string; path: string } | undefined;
  /** Its key in the registry of sent commands while it listens for its id given again. */
  private reuseKey: string | undefined;
  /** The inbox watched, once started. */
  protected inbox: InboxRef | undefined;
  /** Made with the first marker: most waits hold none for most of their life. */
  private markers: DeviceEvent[] | undefined;
  private timer: NodeJS.Timeout | undefined;
  private handle: WatchHandle | undefined;
  private over = false;
  /** A result that names no command came while datesApart (onUndated). */
  private undated = false;
  /** ... or after the server's clock stepped back this much before the command. */
  private stepMs: number | undefined;
  /** A result marker held until this runtime's POSTs to the command's stream have answered. */
  private held = false;

  constructor(opts: CommandWaitOptions) {
    this.commandId = opts.commandId;
    this.since = opts.since;
    this.intervalMs = opts.intervalMs;
    this.observer = opts.observer;
    this.timeoutMs = opts.timeoutMs;
    this.startedAt = opts.startedAt;
    this.sentAt = opts.sentAt;
    this.dated = opts.dated === true;
    // A wait starts after its command's answer came: the await node's, with the message that
    // carries it; a restored one at its first start.
    this.madeBy = opts.madeBy ?? opts.startedAt;
    this.datesApart = datesApart(opts.since, opts.startedAt);
    this.stream = opts.stream;
  }

  /** Called exactly once, when the wait ends, after its timer and its watch have stopped. */
  protected abstract ended(outcome: WaitOutcome): void;

  /** The command's COMMAND_START marker came: the wait goes on. */
  protected onStartMarker?(marker: DeviceEvent): void;

  /**
   * Watches `inbox` through `poller` for `remainingMs` (less than timeoutMs for a restored wait).
   * A wait that already ended (cancelled before it started) does nothing.
   */
  start(poller: InboxPoller, inbox: InboxRef, remainingMs: number): void {
    if (this.over) return;
    this.inbox = inbox;
    if (this.commandId !== undefined && this.stream) {
      const { origin, path } = this.stream;
      const seen = sentCommands.watchReuse(origin, path, this.commandId, this);
      if ("reused" in seen) {
        this.end({ kind: "error", error: seen.reused });
        return;
      }
      this.reuseKey = seen.key;
    }
    this.handle = poller.watch(inbox, this);
    if (this.hasEnded()) {
      // A marker read before the wait started ended it inside watch(), when end() had no handle
      // to stop yet: its entry would stay on the inbox, read for and handed markers.
      this.handle.stop();
      return;
    }
    // A restored wait's deadline comes from a context store: clamped like any outside delay.
    this.timer = setTimeout(timeUp, timerDelay(remainingMs), this);
  }

  /** True once the wait has ended: a method, as a read of the field is narrowed by checks before it. */
  hasEnded(): boolean {
    return this.over;
  }

  /** Ends the wait with { kind: "cancelled" }, unless it has ended already. */
  cancel(): void {
    this.end({ kind: "cancelled" });
  }

  onMarker(event: DeviceEvent, marker: MarkerName): void {
    if (this.over) return;
    (this.markers ??= []).push(event);
    const kind = ENDS_WITH[marker];
    if (!kind) {
      this.onStartMarker?.(event);
      return;
    }
    if (this.held) return;
    const outcome = { kind, marker: event, markers: this.markers, elapsed: this.elapsed() };
    const path = this.stream?.path;
    if (path !== undefined && this.commandId !== undefined && sentCommands.busy(path)) {
      // Another POST of ours to this device is on the wire, and the server may answer it with
      // this id: the marker could then be that command's. Taken once it answered, unless it did
      // with this id (idReused ends the wait first). Bounded by those requests' budgets.
      this.held = true;
      void sentCommands.quiet(path).then(() => {
        this.end(outcome);
      });
      return;
    }
    this.end(outcome);
  }

  onError(err: EdgeError): void {
    this.end({ kind: "error", error: err });
  }

  onUndated(_event: DeviceEvent, stepMs?: number): void {
    this.undated = true;
    if (stepMs !== undefined) this.stepMs = stepMs;
  }

  /** The server gave this command's id to a later command of ours: no marker is surely its own. */
  idReused(err: EdgeError): void {
    this.end({ kind: "error", error: err });
  }

  onFinalRead(err: EdgeError | undefined): void {
    // A result came before the deadline and waits for the POSTs on the wire (onMarker).
    if (this.held) return;
    if (this.undated) {
      // A result that by date could be this command's came, and the clocks are too far apart to
      // say: "timed out" would say no result was seen, and invite sending the command again.
      const error =
        this.stepMs !== undefined
          ? clockStepped(this.stepMs)
          : clockApart(this.since, this.startedAt);
      this.end({ kind: "error", error });
      return;
    }
    this.end({
      kind: "timed-out",
      markers: this.markers ?? [],
      elapsed: this.elapsed(),
      ...(err ? { readError: err } : {}),
    });
  }

  /** The deadline passed: read the inbox once more before ending as "timed-out". */
  timeUp(): void {
    this.timer = undefined;
    if (!this.over && !this.held) this.handle?.finalRead();
  }

  private elapsed(): number {
    return Math.max(0, Date.now() - this.startedAt);
  }

  private end(outcome: WaitOutcome): void {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.timer);
    // Cancelled (a deploy stops its node), it gives back what it was handed: the wait resumed
    // after the deploy takes it again.
    this.handle?.stop(outcome.kind === "cancelled");
    if (this.reuseKey !== undefined) sentCommands.unwatchReuse(this.reuseKey, this);
    this.ended(outcome);
  }
}

function timeUp(wait: CommandWait): void {
  wait.timeUp();
}
