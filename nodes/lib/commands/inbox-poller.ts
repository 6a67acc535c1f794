// One poll per inbox per interval, shared by every await on that inbox through one account: 50
// awaits on a device cost the API what one does. Each poll reads the newest events (more pages
// only while they are all new), hands each new command marker to the wait it belongs to, and the
// poll timer stops when nothing waits.
//
// Which wait a marker belongs to (docs/api-notes.md, Markers): the wait whose command id the
// marker mentions; a marker that mentions only other ids belongs to none; a marker without any id
// belongs to the oldest wait whose command was created at or before it (and whose id, if it has
// one, cannot be checked against the marker anyway).
import type { CallOptions, EdgeClient } from "../api/client";
import type { EdgeError } from "../api/errors";
import { isRetryable } from "../api/retry";
import type { DeviceEvent } from "../api/types";
import { idsIn, markerOf } from "./markers";
import type { MarkerName } from "./markers";

/** An inbox by stream id or, through the documented fall-back, by stream path. */
export interface InboxRef {
  streamId?: string;
  path?: string;
}

export interface Wait {
  /** The command's event id, when the server returned it. */
  readonly commandId: string | undefined;
  /** Markers created before this (server time, ms) are not for this command. */
  readonly since: number;
  readonly intervalMs: number;
  onMarker(event: DeviceEvent, marker: MarkerName): void;
  /** A poll failed for good (unknown inbox, credentials): the wait must end with this error. */
  onError(err: EdgeError): void;
}

const PAGE = 50;
const MAX_PAGES = 10;

class InboxWatch {
  readonly waits = new Set<Wait>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** Ids of events already handled, with their creation dates so old ones can be forgotten. */
  private readonly seen = new Map<string, number>();
  private readonly controller = new AbortController();

  constructor(
    private readonly client: EdgeClient,
    private readonly inbox: InboxRef,
    private readonly onIdle: () => void,
  ) {}

  add(wait: Wait): void {
    this.waits.add(wait);
    this.schedule();
  }

  remove(wait: Wait): void {
    this.waits.delete(wait);
    if (this.waits.size === 0) this.stop();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.controller.abort();
    this.onIdle();
  }

  private interval(): number {
    let ms = Infinity;
    for (const w of this.waits) ms = Math.min(ms, w.intervalMs);
    return ms;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.polling || this.waits.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll();
    }, this.interval());
  }

  private oldestSince(): number {
    let since = Infinity;
    for (const w of this.waits) since = Math.min(since, w.since);
    return since;
  }

  private fetch(start: number): Promise<DeviceEvent[]> {
    const page = { limit: PAGE, start };
    const call: CallOptions = { signal: this.controller.signal, lane: "poll" };
    return this.inbox.streamId !== undefined
      ? this.client.listEvents(this.inbox.streamId, page, call)
      : this.client.listEventsByPath(this.inbox.path ?? "", page, call);
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      const since = this.oldestSince();
      const fresh: DeviceEvent[] = [];
      for (let page = 0; page < MAX_PAGES; page++) {
        const events = await this.fetch(page * PAGE);
        let reachedOld = false;
        for (const e of events) {
          if (typeof e.creationDate === "number" && e.creationDate < since) reachedOld = true;
          else if (!this.seen.has(e.id)) fresh.push(e);
        }
        if (reachedOld || events.length < PAGE) break;
      }
      // Newest first on the wire; markers must be matched in the order they happened.
      fresh.sort((a, b) => a.creationDate - b.creationDate);
      for (const e of fresh) {
        this.seen.set(e.id, e.creationDate);
        this.dispatch(e);
      }
      for (const [id, created] of this.seen) if (created < since) this.seen.delete(id);
    } catch (err) {
      if (!this.controller.signal.aborted && !isRetryable(err as EdgeError, true)) {
        for (const w of [...this.waits]) w.onError(err as EdgeError);
      }
    } finally {
      this.polling = false;
      this.schedule();
    }
  }

  private dispatch(event: DeviceEvent): void {
    const marker = markerOf(event);
    if (!marker) return;
    const ids = idsIn(event);
    let target: Wait | undefined;
    if (ids.length > 0) {
      for (const w of this.waits)
        if (w.commandId !== undefined && ids.includes(w.commandId)) target = w;
    }
    if (!target) {
      for (const w of this.waits) {
        const eligible =
          w.since <= event.creationDate && (ids.length === 0 || w.commandId === undefined);
        if (eligible && (!target || w.since < target.since)) target = w;
      }
    }
    target?.onMarker(event, marker);
  }
}

/** Owned by the account: every inbox being watched through it. */
export class InboxPoller {
  private readonly watches = new Map<string, InboxWatch>();

  constructor(private readonly client: EdgeClient) {}

  /** Starts delivering the inbox's markers to `wait`; the returned function stops it. */
  watch(inbox: InboxRef, wait: Wait): () => void {
    const key = inbox.streamId !== undefined ? `id:${inbox.streamId}` : `path:${inbox.path ?? ""}`;
    let w = this.watches.get(key);
    if (!w) {
      const created = new InboxWatch(this.client, inbox, () => {
        if (this.watches.get(key) === created) this.watches.delete(key);
      });
      this.watches.set(key, created);
      w = created;
    }
    w.add(wait);
    // Bound rather than a closure: a thousand pending waits each hold one.
    return w.remove.bind(w, wait);
  }

  /** Inboxes polled right now (for tests and the benchmark). */
  get size(): number {
    return this.watches.size;
  }

  close(): void {
    for (const w of [...this.watches.values()]) w.stop();
    this.watches.clear();
  }
}
