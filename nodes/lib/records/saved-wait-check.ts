// A saved wait read back from a context store is checked field by field before it resumes. The
// store is a file a user can edit, copy from another install or half-write: one record whose
// message was `null` crashed Node-RED at every start, others ended as `internal`, sent an array
// as a message, or claimed an old, unrelated COMMAND_COMPLETE (issue 19). A record that fails is
// dropped by the caller with a warning naming the field; nothing in it reaches the runtime.
import type { NodeMessageInFlow } from "node-red";
import { MAX_TIMER_MS } from "../api/timer-delay";
import { sinceFits } from "../commands/command-time";
import type { InboxRef } from "../commands/inbox-types";
import { AWAIT_COMMAND_RANGES } from "../node-red/ranges";
import { parseMessage } from "./saved-message";
import type { SavedWait } from "./saved-wait";

const R = AWAIT_COMMAND_RANGES;
/**
 * How far in the future a start may lie, ours at the save with ours now: a clock set back a
 * little (NTP at boot) between a stop and a start. The docs say "a start not in the future";
 * a start a day ahead, as this once allowed, was not written by this clock (issue 28).
 */
const FUTURE_SLACK_MS = 60_000;

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

/**
 * The record as a wait and its message, or the first field that is not as the node saves it.
 * `fromMemory`: the record was made by this process, across a redeploy; its clocks are not in
 * doubt (a server clock a day off must not drop every pending wait at a deploy), its shape is.
 */
export function checkSavedWait(value: unknown, now: number, fromMemory = false): Checked {
  const bad = (field: string): Checked => ({ ok: false, field });
  if (!isRecord(value)) return bad("record");
  if (value.v !== 1) return bad("v");
  const inbox = inboxOf(value.inbox);
  if (!inbox) return bad("inbox");
  const { commandId, since, startedAt, timeoutMs, deadline, intervalMs, ttl } = value;
  // An empty or blank id would match no marker by id and then any marker by time.
  if (commandId !== undefined && (typeof commandId !== "string" || commandId.trim() === ""))
    return bad("commandId");
  const future = fromMemory ? Infinity : FUTURE_SLACK_MS;
  if (!isFiniteNumber(startedAt) || startedAt < 0 || startedAt > now + future)
    return bad("startedAt");
  if (!isInteger(timeoutMs, R.timeout.min, R.timeout.max)) return bad("timeoutMs");
  if (deadline !== startedAt + timeoutMs || (!fromMemory && deadline - now > MAX_TIMER_MS))
    return bad("deadline");
  if (!isInteger(intervalMs, R.interval.min, R.interval.max)) return bad("intervalMs");
  // The await node makes `since` by the same rule (command-time.ts): what it waits for, a deploy
  // or a restart keeps. A record from memory only needs a number: its clocks are not in doubt.
  if (!isFiniteNumber(since)) return bad("since");
  if (!fromMemory && !sinceFits(since, startedAt, commandId !== undefined)) return bad("since");
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
