// From when a wait looks for its command's markers (`since`, server time), and which such times a
// wait may have: one rule for the await node, which makes a wait from msg.command, and for the
// check of a saved wait read back (records/saved-wait-check.ts). Two rules drifted apart once: a
// hand-built msg.command without a date was taken at input and dropped at the next deploy, its
// message never ending (issue 28).

/**
 * How far the clocks may disagree: the server's (the command's time) with ours (the wait's
 * start). A command's markers are looked for from its time on, so a wait whose command time lies
 * far before its start would take any old marker still in the inbox.
 */
export const CLOCK_SLACK_MS = 24 * 60 * 60 * 1000;
/**
 * A wait without a command id takes any marker created after `since`: one whose `since` lies more
 * than this before its start could claim an old marker of another command.
 */
export const NO_ID_SLACK_MS = 60 * 60 * 1000;
/**
 * When the command's time is our clock's (the server returned no event, or msg.command had no
 * usable date), this much skew is allowed, or the command's own markers could look older than it.
 */
export const LOCAL_CLOCK_SKEW_MS = 5_000;

/** True when a wait started at `startedAt` may look for markers from `since` on. */
export function sinceFits(since: number, startedAt: number, hasId: boolean): boolean {
  if (!Number.isFinite(since) || Math.abs(since - startedAt) > CLOCK_SLACK_MS) return false;
  return hasId || since >= startedAt - NO_ID_SLACK_MS;
}

/**
 * A command's creation date as msg.command may hold it: ms since 1970 from edge-send-command, or,
 * built by hand in a Function node, an ISO text or a Date (of the Function node's own realm, so
 * not `instanceof Date`). Undefined for anything else.
 */
export function dateOf(value: unknown): number | undefined {
  let ms: number | undefined;
  if (typeof value === "number") ms = value;
  else if (typeof value === "string") ms = Date.parse(value);
  else if (Object.prototype.toString.call(value) === "[object Date]")
    ms = (value as Date).getTime();
  return ms !== undefined && Number.isFinite(ms) ? ms : undefined;
}

/**
 * From when the wait for a command looks for its markers, the wait starting at `now`: the
 * command's date when it has one that fits (sinceFits), else, for a command with an id, the time
 * it arrived; undefined for a command with neither id nor such a date, which nothing could tell
 * from any other.
 */
export function sinceOf(date: unknown, hasId: boolean, now: number): number | undefined {
  const ms = dateOf(date);
  if (ms !== undefined) {
    // The server's time for a command with an id; our own, allowing for skew, without.
    const since = hasId ? ms : ms - LOCAL_CLOCK_SKEW_MS;
    if (sinceFits(since, now, hasId)) return since;
  }
  return hasId ? now - LOCAL_CLOCK_SKEW_MS : undefined;
}
