// What a fleet job tells when it ends: the report on output 1, one entry per device.
import { countsOf, outcomeCounts } from "./counts";
import type { OutcomeCounts } from "./counts";
import type { Outcome, JobRecord } from "./job";

export interface DeviceReport {
  device: string;
  outcome: Outcome;
  commandId: string | null;
  elapsed: number | null;
  /** The error's code of a `failed` device (or of an inbox that could not be read), else null. */
  error: string | null;
  /** Its sentence, else absent. */
  message?: string;
  /**
   * True when it ended not knowing whether its command arrived (not sent again), or when a crash
   * cut its job off after its command went out (its outcome may have been told before); else absent.
   */
  mayHaveBeenSent?: true;
  /** Its result came from a marker that names no command, taken by its date. */
  matchedBy?: "date";
}

/** The job, its devices counted per outcome, how and when it ended, and each device. */
export interface Report extends OutcomeCounts {
  job: string;
  /** The stop rule (Max failures) stopped the rollout. */
  aborted: boolean;
  /** msg.cancel stopped the rollout. */
  cancelled: boolean;
  /** The job was resumed after a redeploy or a restart. */
  restored: boolean;
  dryRun: boolean;
  startedAt: number;
  endedAt: number;
  devices: DeviceReport[];
}

export function reportOf(
  job: JobRecord,
  opts: { restored: boolean; dryRun: boolean; endedAt: number },
): Report {
  return {
    job: job.job,
    ...outcomeCounts(countsOf(job.devices)),
    aborted: job.stopped === "aborted",
    cancelled: job.stopped === "cancelled",
    restored: opts.restored,
    dryRun: opts.dryRun,
    startedAt: job.startedAt,
    endedAt: opts.endedAt,
    devices: job.devices.map((d) => ({
      device: d.device,
      outcome: d.outcome ?? "not-sent",
      commandId: d.commandId ?? null,
      elapsed: d.elapsed ?? null,
      error: d.error ?? null,
      ...(d.message !== undefined ? { message: d.message } : {}),
      ...(d.mayHaveBeenSent === true ? { mayHaveBeenSent: true as const } : {}),
      ...(d.matchedBy === "date" ? { matchedBy: "date" as const } : {}),
    })),
  };
}
