// The jobs of one edge-fleet-command node, saved as records the way the await node saves its
// waits (saved-records.ts): memory carries a job across a redeploy whatever the settings, a
// persistent store across a restart, and a deploy that changes the Store property moves the jobs
// to the new store. One context key per job.
import type { NodeMessageInFlow } from "node-red";
import type { JobRecord } from "../fleet/job";
import { checkJobRecord } from "../fleet/job";
import type { RecordKind } from "./saved-records";
import { parseMessage } from "./saved-message";
import { FLEET_COMMAND_RANGES } from "../node-red/ranges";
import type { Range } from "../node-red/ranges";
import { MAX_DEVICES } from "../fleet/targets";

/** A saved job that passed its check, with the message it resumes on. */
export interface Resumable {
  job: JobRecord;
  msg: NodeMessageInFlow;
  /** Read from the context store (a restart), not carried in memory across a redeploy. */
  fromStore: boolean;
}

const R = FLEET_COMMAND_RANGES;
const inRange = (v: number, r: Range): boolean =>
  Number.isSafeInteger(v) && v >= r.min && v <= r.max;

/**
 * The first setting of a saved job that its node would never have accepted, else undefined. The
 * store is a file a user can edit: `concurrency: 0` started no device and held the node for good,
 * 20,000 devices passed the bound every loop over them relies on.
 */
function outOfRange(job: JobRecord): string | undefined {
  const s = job.settings;
  if (!inRange(s.rate, R.rate)) return "settings.rate";
  if (!inRange(s.concurrency, R.concurrency)) return "settings.concurrency";
  if (!inRange(s.maxFailures, R.maxFailures)) return "settings.maxFailures";
  if (!inRange(s.timeoutMs, R.timeout)) return "settings.timeoutMs";
  if (!inRange(s.intervalMs, R.interval)) return "settings.intervalMs";
  if (s.ttl !== undefined && !inRange(s.ttl, R.ttl)) return "settings.ttl";
  if (job.devices.length > MAX_DEVICES) return "devices";
  if (job.queued && job.queued.given.length > MAX_DEVICES) return "queued";
  return undefined;
}

/** What the fleet node's jobs are, as records: saved-lifecycle.ts keeps them by this. */
export const JOBS: RecordKind<JobRecord, Resumable> = {
  prefix: "edgewire-fleet-",
  check(value, _now, fromMemory) {
    const checked = checkJobRecord(value);
    if (!checked.ok) return checked;
    const field = outOfRange(checked.job);
    if (field !== undefined) return { ok: false, field };
    let msg: unknown;
    try {
      msg = parseMessage(checked.job.msg);
    } catch {
      return { ok: false, field: "msg" };
    }
    if (typeof msg !== "object" || msg === null || Array.isArray(msg))
      return { ok: false, field: "msg" };
    return {
      ok: true,
      record: checked.job,
      job: checked.job,
      msg: msg as NodeMessageInFlow,
      fromStore: !fromMemory,
    };
  },
  // A device whose POST left and that has no outcome yet; a job still queued sent nothing.
  abandoned(job) {
    return job.devices
      .filter((d) => d.state === "sending" || d.state === "sent")
      .map((d) => `${d.commandId ?? "?"} (${d.device})`);
  },
};
