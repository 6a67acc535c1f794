// A fleet job's devices counted per outcome, once, for all who show them: the report on output 1,
// the node's status and the editor's sidebar. The report and the sidebar each show a part of the
// counts; the parts are named here, so that a count added or renamed changes every place at once
// (the sidebar's counts and the report's were three lists of the same fields, kept alike by hand).
import type { DeviceRecord } from "./job";

export interface Counts {
  /** Devices the job is for. */
  total: number;
  /** Commands the server took: awaited now, or ended with a result or none in time. */
  sent: number;
  complete: number;
  fault: number;
  timedOut: number;
  /** Commands the server refused or that could not be sent. */
  failed: number;
  /** Devices not sent to (yet, or at all when the job stops). */
  notSent: number;
  /** Sent and not ended yet. */
  inFlight: number;
  /** Not started yet. */
  pending: number;
}

/** The counts a job's report tells, in the order it lists them. */
const OUTCOME_KEYS = ["total", "complete", "fault", "timedOut", "failed", "notSent"] as const;
/** The counts the sidebar shows of a running job, in the order it lists them. */
const PROGRESS_KEYS = [
  "total",
  "sent",
  "complete",
  "fault",
  "timedOut",
  "failed",
  "notSent",
  "inFlight",
] as const;

export type OutcomeCounts = Pick<Counts, (typeof OUTCOME_KEYS)[number]>;
export type ProgressCounts = Pick<Counts, (typeof PROGRESS_KEYS)[number]>;

/** One pass over the devices. */
export function countsOf(devices: readonly DeviceRecord[]): Counts {
  const c: Counts = {
    total: devices.length,
    sent: 0,
    complete: 0,
    fault: 0,
    timedOut: 0,
    failed: 0,
    notSent: 0,
    inFlight: 0,
    pending: 0,
  };
  for (const d of devices) {
    if (
      d.state === "sent" ||
      d.outcome === "complete" ||
      d.outcome === "fault" ||
      d.outcome === "timed-out"
    )
      c.sent++;
    if (d.state === "sending" || d.state === "sent") c.inFlight++;
    else if (d.state === "pending") c.pending++;
    switch (d.outcome) {
      case "complete":
        c.complete++;
        break;
      case "fault":
        c.fault++;
        break;
      case "timed-out":
        c.timedOut++;
        break;
      case "failed":
        c.failed++;
        break;
      case "not-sent":
        c.notSent++;
        break;
      default:
        break;
    }
  }
  return c;
}

/**
 * The one count a job is read by, in the node's status, the sidebar's row and the report: devices
 * whose outcome is complete, of all devices (`5/12 complete`), and the devices that ended in
 * fault, timed out or failed (`· 1 ✗`). Devices not sent are in neither: a job cancelled after 6
 * of 12 never reads `12/12`.
 */
export function summaryOf(c: OutcomeCounts): { complete: number; total: number; failed: number } {
  return { complete: c.complete, total: c.total, failed: c.fault + c.timedOut + c.failed };
}

/**
 * Only the named counts, copied one by one: what the sidebar is handed goes out field by field,
 * so whatever else a node's object holds stays in the runtime.
 */
function pick<K extends keyof Counts>(c: Pick<Counts, K>, keys: readonly K[]): Pick<Counts, K> {
  const out = {} as Pick<Counts, K>;
  for (const key of keys) out[key] = c[key];
  return out;
}

/** The counts a job's report tells. */
export function outcomeCounts(c: OutcomeCounts): OutcomeCounts {
  return pick(c, OUTCOME_KEYS);
}

/** The counts the sidebar shows of a running job. */
export function progressCounts(c: ProgressCounts): ProgressCounts {
  return pick(c, PROGRESS_KEYS);
}
