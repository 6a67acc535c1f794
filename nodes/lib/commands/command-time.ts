// From when a wait looks for its command's markers (`since`, server time), and which such times a
// wait may have: one rule for the await node, which makes a wait from msg.command, for the fleet's
// device waits, and for the check of a saved wait read back (records/saved-wait-check.ts). Two
// rules drifted apart once: a hand-built msg.command without a date was taken at input and dropped
// at the next deploy, its message never ending (issue 28).
import { EdgeError } from "../api/errors";
import { sentCommands } from "./sent-commands";

/**
 * How far the clocks may disagree: the server's (the command's time) with ours (the wait's
 * start). Past it the command's date cannot be told from a wrong one (a hand-built date, a server
 * clock a day off), so it chooses no marker by date: a wait whose command time lies far before
 * its start would take any old marker still in the inbox. Markers that name the command's id
 * are its own whatever the dates (issue 35: a server clock 25 h behind timed out every await).
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

/**
 * How far before its command's date a marker may be dated and still be read: reads of an inbox go
 * back this far past the oldest wait's `since` (inbox-watch.ts). A marker that names the command
 * is its result whatever its date, but one stamped by a device's clock, or after the server's
 * clock stepped back, lies below the command in a listing by date, where a read that stopped at
 * the command's date never saw it (issue 35: 1 ms early was enough to time a wait out). The skew
 * the docs allow a command's time (LOCAL_CLOCK_SKEW_MS): a few events more per deep read.
 */
export const MARKER_EARLY_MS = LOCAL_CLOCK_SKEW_MS;

/**
 * True when a command dated `since` (server time) and a wait started at `startedAt` (ours) are too
 * far apart for a date to say whose a marker is: such a wait takes only markers that name its id.
 */
export function datesApart(since: number, startedAt: number): boolean {
  return !Number.isFinite(since) || Math.abs(since - startedAt) > CLOCK_SLACK_MS;
}

/**
 * True when a wait started at `startedAt` may look for markers from `since` on: any date for a
 * command with an id (its markers name it; datesApart decides whether dates choose too), a date
 * within the slack for one without, which has nothing but dates.
 */
export function sinceFits(since: number, startedAt: number, hasId: boolean): boolean {
  if (!Number.isFinite(since)) return false;
  if (hasId) return true;
  return !datesApart(since, startedAt) && since >= startedAt - NO_ID_SLACK_MS;
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
 * command's date when it has one that fits (sinceFits: any date, for a command with an id), else,
 * for a command with an id, the time it arrived; undefined for a command with neither id nor such
 * a date, which nothing could tell from any other. The await node and the fleet's device waits
 * both take it from here: the await once fell back to its own clock for a command dated a day
 * away, and read past every marker of a server a day behind, which the fleet took (issue 35).
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

/**
 * True when a command without an id was refused for a date a day or more from `now`: the clocks
 * are too far apart to tell its markers by date (`clock-apart`), not a msg.command without a date.
 */
export function tooFarForDates(date: unknown, hasId: boolean, now: number): boolean {
  const ms = dateOf(date);
  return !hasId && ms !== undefined && datesApart(ms, now);
}

/**
 * The error of a wait whose command's date (`since`) lies a day or more from our clock (`now`)
 * when only a date could say whose a marker is: a command without an id, or a marker that names
 * no command read after the command's date. The command may have run: it is not "timed out",
 * which says no result was seen and invites sending it again.
 */
export function clockApart(since: unknown, now: number): EdgeError {
  const ms = dateOf(since) ?? NaN;
  const hours = Number.isFinite(ms) ? Math.round(Math.abs(ms - now) / 3_600_000) : "?";
  const date = Number.isFinite(ms) ? new Date(ms).toISOString() : String(since);
  return new EdgeError("clock-apart", { date, hours }, { mayHaveBeenSent: true });
}

/**
 * Our clock before the command's request left, for its wait (inbox-types.ts, Wait.sentAt): the
 * registry's, for a command this runtime sent (sent-commands.ts), else msg.command.sentAt as
 * edge-send-command sets it, when it is a time not after `now` (a saved wait's message read back
 * after a restart). Undefined otherwise: a wait without it takes markers by date alone.
 */
export function sentAtOf(value: unknown, id: string | undefined, now: number): number | undefined {
  const known = id !== undefined ? sentCommands.sentAt(id) : undefined;
  if (known !== undefined) return known;
  return typeof value === "number" && Number.isFinite(value) && value <= now ? value : undefined;
}

/**
 * The error of a wait whose command the server dated `stepMs` before a command made earlier (its
 * clock stepped back, clock-steps.ts), when a result that names no command came: by date it may
 * be this command's or an earlier one's. The command may have run.
 */
export function clockStepped(stepMs: number): EdgeError {
  return new EdgeError("clock-stepped", { ms: Math.round(stepMs) }, { mayHaveBeenSent: true });
}
