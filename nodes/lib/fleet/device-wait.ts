// One device's wait for its command's markers on the account's shared InboxPoller: the same
// inbox reads, marker rules and fast reads as edge-await-command (inbox-poller.ts). It ends on
// COMMAND_COMPLETE or COMMAND_FAULT, or at the timeout after one more read of the inbox (so that a
// late poll never turns a completed command into "timed out"), or when cancelled; `ended` hears
// how, exactly once. The shape is that of the CommandWait that branch `layers` moves out of the
// await node (nodes/lib/commands/command-wait.ts): once merged, this becomes a subclass of it.
import type { EdgeError } from "../api/errors";
import { timerDelay } from "../api/timer-delay";
import type { DeviceEvent } from "../api/types";
import type {
  InboxObserver,
  InboxPoller,
  InboxRef,
  Wait,
  WatchHandle,
} from "../commands/inbox-poller";
import type { MarkerName } from "../commands/markers";

export type WaitOutcome =
  | { kind: "complete" | "fault"; marker: DeviceEvent; markers: DeviceEvent[]; elapsed: number }
  | { kind: "timed-out"; markers: DeviceEvent[]; elapsed: number; readError?: EdgeError }
  /** The inbox was refused for good (unknown inbox, credentials). */
  | { kind: "error"; error: EdgeError }
  | { kind: "cancelled" };

export interface DeviceWaitOptions {
  commandId: string | undefined;
  since: number;
  intervalMs: number;
  timeoutMs: number;
  /** Wall clock ms of the send: earlier than now when the wait is resumed after a restart. */
  startedAt: number;
  observer?: InboxObserver;
}

export class DeviceWait implements Wait {
  readonly commandId: string | undefined;
  readonly since: number;
  readonly intervalMs: number;
  readonly observer: InboxObserver | undefined;
  private readonly startedAt: number;
  private markers: DeviceEvent[] | undefined;
  private timer: NodeJS.Timeout | undefined;
  private handle: WatchHandle | undefined;
  private done = false;

  constructor(
    opts: DeviceWaitOptions,
    private readonly ended: (outcome: WaitOutcome) => void,
  ) {
    this.commandId = opts.commandId;
    this.since = opts.since;
    this.intervalMs = opts.intervalMs;
    this.observer = opts.observer;
    this.startedAt = opts.startedAt;
  }

  start(poller: InboxPoller, inbox: InboxRef, remainingMs: number): void {
    const handle = poller.watch(inbox, this);
    this.handle = handle;
    // Ended by a marker read before it started: its handle was not there to stop yet.
    if (this.done) {
      handle.stop();
      return;
    }
    // A resumed wait's deadline comes from a context store: clamped like any outside delay.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.done) this.handle?.finalRead();
    }, timerDelay(remainingMs));
  }

  onMarker(event: DeviceEvent, marker: MarkerName): void {
    if (this.done) return;
    (this.markers ??= []).push(event);
    if (marker === "COMMAND_START") return;
    const kind = marker === "COMMAND_COMPLETE" ? "complete" : "fault";
    this.finish({ kind, marker: event, markers: this.markers, elapsed: this.elapsed() });
  }

  onError(err: EdgeError): void {
    this.finish({ kind: "error", error: err });
  }

  onFinalRead(err: EdgeError | undefined): void {
    this.finish({
      kind: "timed-out",
      markers: this.markers ?? [],
      elapsed: this.elapsed(),
      ...(err ? { readError: err } : {}),
    });
  }

  cancel(): void {
    this.finish({ kind: "cancelled" });
  }

  private elapsed(): number {
    return Math.max(0, Date.now() - this.startedAt);
  }

  private finish(outcome: WaitOutcome): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.handle?.stop();
    this.ended(outcome);
  }
}
