// One poll per inbox per interval, shared by every await on that inbox through one account: 50
// awaits on a device cost the API what one does. Polls go through the rate limiter's poll lane,
// so a backlog of commands never delays them. This file holds what an await sees: the poller the
// account owns, and the shapes of a wait and of an inbox. How an inbox is polled and its markers
// handed out is in inbox-watch.ts, the waits of an inbox in inbox-waits.ts, and the markers no
// wait took yet in unclaimed-markers.ts.
import type { EdgeClient } from "../api/client";
import type { EdgeError } from "../api/errors";
import type { DeviceEvent } from "../api/types";
import { InboxWatch } from "./inbox-watch";
import type { MarkerName } from "./markers";
import type { PollerOptions, ReadPace } from "./read-schedule";

/** An inbox by stream id or, through the documented fall-back, by stream path. */
export interface InboxRef {
  streamId?: string;
  path?: string;
}

/** Told about the inbox as a whole; one per node, shared by its waits. */
export interface InboxObserver {
  /** A poll failed for a passing reason (the waits stay), or, with undefined, worked again. */
  onReadState(err: EdgeError | undefined): void;
  /** More events arrived between two polls than the server kept: markers may have been lost. */
  onOverrun(): void;
}

export interface Wait {
  /** The command's event id, when the server returned it. */
  readonly commandId: string | undefined;
  /** Markers created before this (server time, ms) are not for this command. */
  readonly since: number;
  readonly intervalMs: number;
  readonly observer?: InboxObserver;
  onMarker(event: DeviceEvent, marker: MarkerName): void;
  /** A poll was refused for good (unknown inbox, credentials): the wait must end with this error. */
  onError(err: EdgeError): void;
  /**
   * The read asked for by `finalRead()` is done: it started after the request and succeeded, or
   * the inbox could not be read three times (FINAL_TRIES, inbox-watch.ts), then with the last error.
   */
  onFinalRead(err: EdgeError | undefined): void;
}

/** What `watch()` returns: one object per wait. */
export interface WatchHandle {
  /** Stops delivering markers to the wait. */
  stop(): void;
  /** Reads the inbox once more as soon as possible, then calls the wait's onFinalRead. */
  finalRead(): void;
}

/** Owned by the account: every inbox being watched through it. */
export class InboxPoller {
  private readonly watches = new Map<string, InboxWatch>();
  /** Shared with every watch, so that the bench can switch the pace of a running account. */
  private readonly options: PollerOptions = { pace: "fast", accountAnswerMs: undefined };

  constructor(private readonly client: EdgeClient) {}

  /** "fast" (the default): reads follow the commands; "fixed": the interval alone, the bench's peer. */
  get pace(): ReadPace {
    return this.options.pace;
  }

  set pace(pace: ReadPace) {
    this.options.pace = pace;
  }

  /** Early reads that gave way to a busy rate limiter, over every inbox (tests, bench). */
  get gaveWay(): number {
    let n = 0;
    for (const w of this.watches.values()) n += w.gaveWay;
    return n;
  }

  /** Starts delivering the inbox's markers to `wait`, first those read before it started. */
  watch(inbox: InboxRef, wait: Wait): WatchHandle {
    const key = inbox.streamId !== undefined ? `id:${inbox.streamId}` : `path:${inbox.path ?? ""}`;
    let w = this.watches.get(key);
    if (!w) {
      const created = new InboxWatch(
        this.client,
        inbox,
        () => {
          if (this.watches.get(key) === created) this.watches.delete(key);
        },
        this.options,
      );
      this.watches.set(key, created);
      w = created;
    }
    return w.add(wait);
  }

  /** Inboxes polled right now, that is with a pending wait (for tests and the benchmark). */
  get size(): number {
    let n = 0;
    for (const w of this.watches.values()) if (w.waiting > 0) n++;
    return n;
  }

  close(): void {
    for (const w of this.watches.values()) w.close();
    this.watches.clear();
  }
}
