// A saved wait read back from a context store is checked field by field before it resumes. The
// store is a file a user can edit, copy from another install or half-write: one record whose
// message was `null` crashed Node-RED at every start, others ended as `internal`, sent an array
// as a message, or claimed an old, unrelated COMMAND_COMPLETE (issue 19). A record that fails is
// dropped by the caller with a warning naming the field; nothing in it reaches the runtime.
import type { NodeMessageInFlow } from "node-red";
import { AWAIT_COMMAND_RANGES } from "../node-red/ranges";
import { parseMessage } from "./saved-message";
import type { SavedWait } from "./saved-waits";
import type { InboxRef } from "./inbox-poller";

const R = AWAIT_COMMAND_RANGES;
/** The largest delay a Node.js timer takes: a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * How far the clocks in a record may disagree: the server's (the command's time) with ours (the
 * wait's start), and ours at the save with ours now. A command's markers are looked for from its
 * time on, so a record whose command time lies far before its start would take any old marker
 * still in the inbox; one whose start lies in the future was not written by this clock.
 */
const CLOCK_SLACK_MS = 24 * 60 * 60 * 1000;

export type Checked =
  { ok: true; wait: SavedWait; msg: NodeMessageInFlow } | { ok: false; field: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function inboxOf(value: unknown): InboxRef | undefined {
  if (!isRecord(value)) return undefined;
  const { streamId, path } = value;
  if (streamId !== undefined && path !== undefined) return undefined;
  if (typeof streamId === "string" && streamId.trim() !== "") return { streamId };
  // The stream path fall-back: the await node makes it from a path, which starts with "/".
  if (typeof path === "string" && path.startsWith("/") && path.length > 1) return { path };
  return undefined;
}

/** The message of a record: a plain object, as the await node saved it. */
function messageOf(json: unknown): NodeMessageInFlow | undefined {
  if (typeof json !== "string") return undefined;
  let msg: unknown;
  try {
    msg = parseMessage(json);
  } catch {
    return undefined;
  }
  return isRecord(msg) ? (msg as NodeMessageInFlow) : undefined;
}

/** The record as a wait and its message, or the first field that is not as the node saves it. */
export function checkSavedWait(value: unknown, now: number): Checked {
  const bad = (field: string): Checked => ({ ok: false, field });
  if (!isRecord(value)) return bad("record");
  if (value.v !== 1) return bad("v");
  const inbox = inboxOf(value.inbox);
  if (!inbox) return bad("inbox");
  const { commandId, since, startedAt, timeoutMs, deadline, intervalMs, ttl } = value;
  // An empty id would match no marker by id and then any marker by time.
  if (commandId !== undefined && (typeof commandId !== "string" || commandId === ""))
    return bad("commandId");
  if (!isFiniteNumber(startedAt) || startedAt < 0 || startedAt > now + CLOCK_SLACK_MS)
    return bad("startedAt");
  if (!isInteger(timeoutMs, R.timeout.min, R.timeout.max)) return bad("timeoutMs");
  if (deadline !== startedAt + timeoutMs || startedAt + timeoutMs - now > MAX_TIMER_MS)
    return bad("deadline");
  if (!isInteger(intervalMs, R.interval.min, R.interval.max)) return bad("intervalMs");
  if (!isFiniteNumber(since) || Math.abs(since - startedAt) > CLOCK_SLACK_MS) return bad("since");
  // JSON keeps a ttl that was not finite as null: the wait had none.
  if (ttl !== undefined && ttl !== null && !(isFiniteNumber(ttl) && ttl > 0)) return bad("ttl");
  const msg = messageOf(value.msg);
  if (!msg) return bad("msg");
  const wait: SavedWait = {
    v: 1,
    inbox,
    ...(commandId !== undefined ? { commandId } : {}),
    since,
    deadline,
    timeoutMs,
    intervalMs,
    ...(typeof ttl === "number" ? { ttl } : {}),
    startedAt,
    msg: value.msg as string,
  };
  return { ok: true, wait, msg };
}
