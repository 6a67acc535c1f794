// The running jobs of every edge-fleet-command node, by account, for the editor's sidebar. A fleet
// node registers a function that describes its job as it stands (or says there is none); it is
// called only while an editor has the sidebar open, a few times a second, so a job in progress does
// no work here. At most MAX_JOBS rows are listed, the oldest jobs first; the others are counted.
import { progressCounts } from "../fleet/counts";
import type { ProgressCounts } from "../fleet/counts";

/** A fleet job as the sidebar shows it: its progress, counted per outcome (lib/fleet/counts.ts). */
export interface JobView extends ProgressCounts {
  /** The job's name, as the node or msg gave it. */
  job: string;
  /** Date.now() of the job's start (earlier than now when restored). */
  startedAt: number;
  /** Resumed after a restart or a redeploy. */
  restored: boolean;
  state: "running" | "stopping";
}

export interface JobRow extends JobView {
  /** The fleet node running it: the editor reveals it. */
  node: string;
}

export interface JobList {
  total: number;
  rows: JobRow[];
}

/** One edge-fleet-command node as the sidebar sees it. */
export interface JobSource {
  readonly nodeId: string;
  readonly accountId: string;
  /** The node's running job as it stands now, or undefined when it runs none. */
  job(): JobView | undefined;
}

/** Job rows listed per account; more are counted. */
export const MAX_JOBS = 50;

const sources = new Set<JobSource>();

/** Lists the node's job in the sidebar until the returned function is called (on close). */
export function registerJob(source: JobSource): () => void {
  sources.add(source);
  return () => {
    sources.delete(source);
  };
}

/**
 * The account's running jobs, oldest first, at most MAX_JOBS. The job's name is the user's, but a
 * token typed into it must not reach a reader either: it is redacted like a stream path.
 */
export function jobsOf(accountId: string, redact: (text: string) => string): JobList {
  const rows: JobRow[] = [];
  for (const source of sources) {
    if (source.accountId !== accountId) continue;
    const view = source.job();
    if (view === undefined) continue;
    // Field by field: whatever else the node's object holds stays in the runtime.
    rows.push({
      job: redact(view.job),
      node: source.nodeId,
      ...progressCounts(view),
      startedAt: view.startedAt,
      restored: view.restored,
      state: view.state,
    });
  }
  rows.sort((a, b) => a.startedAt - b.startedAt);
  return { total: rows.length, rows: rows.slice(0, MAX_JOBS) };
}
