// The server's dates of the commands awaited on one inbox, to see its clock step back. Markers
// that name no command are matched by date (inbox-watch.ts), which holds only while the server's
// clock runs forward: after a step back of 3 s, a command sent after an earlier one's answer was
// dated 2.9 s before it, and its wait took that earlier command's COMPLETE, written before it was
// even sent (issue 35, the stamps property, seed -1408286524 path 178). A command whose request
// left after another command was surely made (its answer had come) and is dated before it shows
// the step: the wait for each of the two that the step leaves in doubt takes nothing by date, as a
// wait whose clocks are a day apart does.
import type { Wait } from "./inbox-types";

/**
 * How much further past its command an event may be dated than the time that passed from the
 * command's send to the read that found it: the rounding of two clocks to the millisecond. An
 * event dated further on was dated by a clock that has since gone back, or by a device's clock
 * ahead of the server's: dates cannot place markers for that command. Small on purpose: a step
 * back of less than a second was let by at 1 s. What no slack shows: a step back of S ms less
 * than S ms after another system's command, whose answer is read no sooner than S ms after ours
 * was sent (the stamps property, seed 33 path 1400, 100 ms: docs/await.md names it).
 */
export const AHEAD_SLACK_MS = 10;

/** How many commands' dates are kept per inbox; the oldest go first. */
const MAX_KEPT = 1_000;

/** A wait on the inbox, and by how much the server's clock stepped back before its command. */
export interface Stepped {
  readonly wait: Wait;
  stepMs: number | undefined;
}

export class ClockSteps {
  private kept: Stepped[] = [];

  /**
   * Notes the wait's command, dated by the server, and marks `item` (and any wait noted before)
   * whose command the server dated before one that was made before its request left. Waits come
   * in any order: a deploy starts restored waits again, an old command's after a new one's.
   */
  add(item: Stepped): void {
    const { since, sentAt, madeBy } = item.wait;
    for (const other of this.kept) {
      const o = other.wait;
      if (o.madeBy !== undefined && sentAt !== undefined && o.madeBy <= sentAt)
        mark(item, o.since - since);
      if (madeBy !== undefined && o.sentAt !== undefined && madeBy <= o.sentAt)
        mark(other, since - o.since);
    }
    if (this.kept.length >= MAX_KEPT) this.kept = this.kept.slice(MAX_KEPT / 2);
    this.kept.push(item);
  }
}

/**
 * By how much (ms) an event dated `date` (server time) and read at `readAt` (our clock) lies past
 * any date a steady clock could have given it, for the wait's command: more than AHEAD_SLACK_MS
 * past the command's date plus the time from its send to the read (before the send, the command's
 * date itself: the event was there first). 0 when it does not, or the wait cannot tell.
 *
 * The server's clock stepped back 3 s just after another system's command: its answer, read 8 ms
 * after our command was sent, was dated 2.4 s after our command, and our wait took it by date
 * (issue 35, the stamps property, seed 11 path 358).
 */
export function aheadBy(wait: Wait, date: number, readAt: number): number {
  if (!wait.dated || wait.sentAt === undefined) return 0;
  const ahead = date - wait.since - Math.max(0, readAt - wait.sentAt);
  return ahead > AHEAD_SLACK_MS ? ahead : 0;
}

/** Marks `item` as after a step back of `ms` when there was one (ms > 0), the largest seen. */
export function mark(item: Stepped, ms: number): void {
  if (ms > 0 && !(ms <= (item.stepMs ?? 0))) item.stepMs = ms;
}
