// What a wait on an inbox and the poller say to each other: the inbox, the wait the poller hands
// markers to, the handle it gives back, and the observer told about the inbox as a whole. Shared
// by the poller (inbox-poller.ts), its watches (inbox-watch.ts, inbox-waits.ts) and the waits
// (command-wait.ts), none of which needs another's code to be read.
import type { EdgeError } from "../api/errors";
import type { DeviceEvent } from "../api/types";
import type { MarkerName } from "./markers";

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
  /**
   * The command's date and the wait's start are a day or more apart (command-time.ts,
   * datesApart): the wait takes only markers that name its id, none by date.
   */
  readonly datesApart?: boolean;
  /**
   * Our clock (Date.now) before the command's request left, when known. A marker read before it
   * was on the server before the command was, so it is not this command's whatever its date: a
   * server whose clock stepped back dates a later command before an earlier one's answer, and
   * the later wait once took that answer by date (issue 35, the stamps property).
   */
  readonly sentAt?: number | undefined;
  /**
   * `since` is the server's date of the command (its creationDate), comparable with another
   * command's: a wait whose command is dated before one made earlier sees the server's clock step
   * back (clock-steps.ts), and takes nothing by date.
   */
  readonly dated?: boolean | undefined;
  /**
   * Our clock at a time the command was surely on the server (its answer had come): a command
   * whose request left after this and is dated before it shows the step (clock-steps.ts).
   */
  readonly madeBy?: number | undefined;
  onMarker(event: DeviceEvent, marker: MarkerName): void;
  /**
   * A COMPLETE or FAULT that names no command, dated at or after the command, came while
   * `datesApart`, or after the server's clock stepped back by `stepMs` before this command: by
   * date it could be this command's result, and nothing can tell.
   */
  onUndated?(event: DeviceEvent, stepMs?: number): void;
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
  /**
   * Stops delivering markers to the wait. With `handBack` (the wait was cancelled, not ended by
   * what it was handed: a deploy that stops its node, a Cancel), the markers it was handed go back
   * to the inbox for the same wait resumed, as markers read after it stopped do.
   */
  stop(handBack?: boolean): void;
  /** Reads the inbox once more as soon as possible, then calls the wait's onFinalRead. */
  finalRead(): void;
}
