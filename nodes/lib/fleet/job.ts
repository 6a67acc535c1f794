// The record of one fleet job: what it sends, how it rolls out, and where each device stands. It
// is plain JSON, saved whole after every change of a device's state, so that after a redeploy or
// a restart the job goes on from it: a device recorded as sent is awaited, never sent again.
import type { Elems } from "../api/types";

export type Outcome = "complete" | "fault" | "timed-out" | "failed" | "not-sent";

/**
 * Where a device stands: not yet started; being sent (recorded BEFORE the POST, so that a job
 * stopped during it knows its command may have arrived); sent and awaited; or ended.
 */
export type DeviceState = "pending" | "sending" | "sent" | "ended";

export interface DeviceRecord {
  /** The device as its stream paths name it (an id given was turned into the name). */
  device: string;
  state: DeviceState;
  /** Wall clock ms when its POST started. */
  sentAt?: number;
  /** Wall clock ms when its first POST started: its `elapsed` spans the tries after it too. */
  firstSentAt?: number;
  commandId?: string;
  /** The command's creation date (server time, ms): the markers it awaits are not older. */
  since?: number;
  /** `since` is the server's date of the command, not our clock's (clock-steps.ts). */
  dated?: boolean;
  outcome?: Outcome;
  elapsed?: number;
  /** The code of the error that made it `failed` (or of the inbox that could not be read). */
  error?: string;
  message?: string;
  /**
   * Ended not knowing whether its command arrived (send-uncertain; it was not sent again), or
   * resumed after a crash with its command sent before it: its outcome may have been told then.
   */
  mayHaveBeenSent?: boolean;
  /** Its result came from a marker naming no command, matched by date (markers.ts namesCommand). */
  matchedBy?: "date";
}

export interface RolloutSettings {
  /** Devices started per second; 0 = as fast as the account allows. */
  rate: number;
  /** Devices from send to outcome at once. */
  concurrency: number;
  /** Failures (fault, timed out, failed) that stop the rollout; 0 = never stop. */
  maxFailures: number;
}

export interface JobSettings extends RolloutSettings {
  elems: Elems;
  ttl?: number;
  timeoutMs: number;
  intervalMs: number;
}

/**
 * What a job waiting for its turn asks for, before its devices are resolved: saved at once, so a
 * redeploy or a restart while it waits does not lose it (issue 28).
 */
export interface QueuedPlan {
  /** The ids and names given (Devices or msg.devices). */
  given: string[];
  filter?: string;
  dryRun: boolean;
}

export interface JobRecord {
  v: 1;
  job: string;
  /** `job` was made here (a UUID), msg.job gave none: the editor's sidebar shows the node instead. */
  generated?: true;
  /** When it started; while `queued`, when it arrived. */
  startedAt: number;
  settings: JobSettings;
  devices: DeviceRecord[];
  /** Why devices were left unsent: the stop rule (`aborted`) or msg.cancel. */
  stopped?: "aborted" | "cancelled";
  /** The input message, as JSON (saved-message.ts): the report goes out on it. */
  msg: string;
  /** Set while the job waits for its turn: it has no devices yet. */
  queued?: QueuedPlan;
  /**
   * Wall clock ms of its last save: read back after a restart, a device it calls pending may have
   * been sent after then (a store writes its cache to disk only every so often).
   */
  savedAt?: number;
  /**
   * Wall clock ms when its node closed with the job running (a deploy, a stop): saved then, the
   * record was exact. It does not make a record read back from a store exact: a later process may
   * have resumed the job, sent devices and been killed before its store wrote (fleet-job.ts).
   */
  closedAt?: number;
  /**
   * Set on a job read back from a persistent store, until it ends: its pending devices may have
   * been sent from `from` to `to` (wall clock ms) by a process whose saves never reached the store.
   * Kept in the record so that a redeploy during its look-ups resumes them, not sends at once.
   */
  lookUp?: { from: number; to: number };
}

/** The failures the stop rule counts. */
export function isFailure(outcome: Outcome | undefined): boolean {
  return outcome === "fault" || outcome === "timed-out" || outcome === "failed";
}

const STATES: ReadonlySet<string> = new Set(["pending", "sending", "sent", "ended"]);
const OUTCOMES: ReadonlySet<string> = new Set([
  "complete",
  "fault",
  "timed-out",
  "failed",
  "not-sent",
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const optional = (v: unknown, check: (v: unknown) => boolean): boolean =>
  v === undefined || check(v);

function checkDevice(d: unknown): boolean {
  if (!isObject(d)) return false;
  return (
    typeof d.device === "string" &&
    typeof d.state === "string" &&
    STATES.has(d.state) &&
    optional(d.sentAt, isNumber) &&
    optional(d.firstSentAt, isNumber) &&
    optional(d.commandId, (v) => typeof v === "string") &&
    optional(d.since, isNumber) &&
    optional(d.dated, (v) => typeof v === "boolean") &&
    optional(d.outcome, (v) => typeof v === "string" && OUTCOMES.has(v)) &&
    optional(d.elapsed, isNumber) &&
    optional(d.error, (v) => typeof v === "string") &&
    optional(d.message, (v) => typeof v === "string") &&
    optional(d.mayHaveBeenSent, (v) => typeof v === "boolean") &&
    optional(d.matchedBy, (v) => v === "date") &&
    // A device being sent or sent knows when; an ended one has its outcome.
    (d.state === "pending" || d.state === "ended" || isNumber(d.sentAt)) &&
    (d.state !== "ended" || d.outcome !== undefined)
  );
}

function checkQueued(q: unknown): boolean {
  return (
    isObject(q) &&
    Array.isArray(q.given) &&
    q.given.every((g) => typeof g === "string" && g.trim() !== "") &&
    optional(q.filter, (v) => typeof v === "string" && v.trim() !== "") &&
    typeof q.dryRun === "boolean" &&
    (q.given.length > 0 || q.filter !== undefined)
  );
}

/**
 * A saved record as read back from a context store (anything a user or an older version may have
 * left there): the record, or the name of the first field that is wrong.
 */
export function checkJobRecord(
  value: unknown,
): { ok: true; job: JobRecord } | { ok: false; field: string } {
  if (!isObject(value) || value.v !== 1) return { ok: false, field: "v" };
  if (typeof value.job !== "string") return { ok: false, field: "job" };
  if (!optional(value.generated, (v) => v === true)) return { ok: false, field: "generated" };
  if (!isNumber(value.startedAt)) return { ok: false, field: "startedAt" };
  if (!optional(value.savedAt, isNumber)) return { ok: false, field: "savedAt" };
  if (!optional(value.closedAt, isNumber)) return { ok: false, field: "closedAt" };
  if (!optional(value.lookUp, (v) => isObject(v) && isNumber(v.from) && isNumber(v.to)))
    return { ok: false, field: "lookUp" };
  if (typeof value.msg !== "string") return { ok: false, field: "msg" };
  const s = value.settings;
  if (
    !isObject(s) ||
    !isObject(s.elems) ||
    !optional(s.ttl, isNumber) ||
    ![s.timeoutMs, s.intervalMs, s.rate, s.concurrency, s.maxFailures].every(isNumber)
  )
    return { ok: false, field: "settings" };
  if (!Array.isArray(value.devices) || !value.devices.every(checkDevice))
    return { ok: false, field: "devices" };
  if (!optional(value.stopped, (v) => v === "aborted" || v === "cancelled"))
    return { ok: false, field: "stopped" };
  if (!optional(value.queued, checkQueued) || (value.queued !== undefined && value.devices.length))
    return { ok: false, field: "queued" };
  return { ok: true, job: value as unknown as JobRecord };
}
