// One poll per inbox per interval, shared by every await on that inbox through one account: 50
// awaits on a device cost the API what one does. Polls go through the rate limiter's poll lane,
// so a backlog of commands never delays them. This file holds the poller the account owns; the
// shapes of a wait and of an inbox are in inbox-types.ts, how an inbox is polled and its markers
// handed out in inbox-watch.ts, the waits of an inbox in inbox-waits.ts, and the markers no wait
// took yet in unclaimed-markers.ts.
import type { EdgeClient } from "../api/client";
import type { InboxRef, Wait, WatchHandle } from "./inbox-types";
import { AnswerTimes } from "./answer-times";
import { InboxWatch, inboxKey } from "./inbox-watch";
import type { PollerOptions, ReadPace } from "./read-schedule";

/** Owned by the account: every inbox being watched through it. */
export class InboxPoller {
  private readonly watches = new Map<string, InboxWatch>();
  /** Shared with every watch, so that the bench can switch the pace of a running account. */
  private readonly options: PollerOptions;

  /** `answers`: what the account learned before (kept across a redeploy by the account node). */
  constructor(
    private readonly client: EdgeClient,
    answers: AnswerTimes = new AnswerTimes(),
  ) {
    this.options = { pace: "fast", answers };
  }

  /** The account's learned answer times, shared by all its inboxes. */
  get answers(): AnswerTimes {
    return this.options.answers;
  }

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
    const key = inboxKey(inbox);
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
