// The server's dates of the commands awaited on one inbox, to see its clock step back. Markers
// that name no command are matched by date (inbox-watch.ts), which holds only while the server's
// clock runs forward: after a step back of 3 s, a command sent after an earlier one's answer was
// dated 2.9 s before it, and its wait took that earlier command's COMPLETE, written before it was
// even sent (issue 35, the stamps property, seed -1408286524 path 178). A command whose request
// left after another command was surely made (its answer had come) and is dated before it shows
// the step: the wait for each of the two that the step leaves in doubt takes nothing by date, as a
// wait whose clocks are a day apart does.
import type { Wait } from "./inbox-types";

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

/** Marks `item` as after a step back of `ms` when there was one (ms > 0), the largest seen. */
function mark(item: Stepped, ms: number): void {
  if (ms > 0 && !(ms <= (item.stepMs ?? 0))) item.stepMs = ms;
}
