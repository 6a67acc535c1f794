// The fleet jobs of every edge-fleet-command node, by account, for the editor's sidebar. A fleet
// node registers a function that describes its job as it stands (or says there is none); it is
// called only while an editor has the sidebar open, a few times a second, so a job in progress does
// no work here. A job that ends stays listed with how it ended (done, cancelled, aborted) for
// ENDED_MS, at most MAX_ENDED of them per account: a row that vanished the moment its job ended
// told nobody how it went. At most MAX_JOBS rows are listed, running jobs oldest first, then the
// ended ones newest first; the others are counted.
import { progressCounts } from "../fleet/counts";
import type { ProgressCounts } from "../fleet/counts";

/** A fleet job as the sidebar shows it: its progress, counted per outcome (lib/fleet/counts.ts). */
export interface JobView extends ProgressCounts {
  /** The job's name, as the node or msg gave it, or the one made for it (`named` false). */
  job: string;
  /** Date.now() of the job's start (earlier than now when restored). */
  startedAt: number;
  /** Resumed after a restart or a redeploy. */
  restored: boolean;
  state: "running" | "stopping";
  /** False when msg.job gave no name and the node made one (a UUID nobody reads). */
  named: boolean;
}

/** How a job ended: every device had its outcome, msg.cancel (or the tab), or Max failures. */
export type EndState = "done" | "cancelled" | "aborted";

export interface JobRow extends Omit<JobView, "state"> {
  /** Names the job's run for a cancel, and the editor's row: `<node id>:<run>`. */
  id: string;
  /** The fleet node running it: the editor reveals it. */
  node: string;
  state: JobView["state"] | EndState;
  /** Date.now() of its end, for an ended job. */
  endedAt?: number;
}

export interface JobList {
  total: number;
  rows: JobRow[];
}

/** One edge-fleet-command node as the sidebar sees it. */
export interface JobSource {
  readonly nodeId: string;
  readonly accountId: string;
  /** The node's running job as it stands now with its run's key, or undefined when it runs none. */
  job(): (JobView & { run: string }) | undefined;
  /** Cancels the job of that run as msg.cancel would; false when it is not running any more. */
  cancel(run: string): boolean;
  /** Logs a cancel in the node's log. */
  log(text: string): void;
}

/** What a fleet node tells of its job's end, and that it closes. */
export interface JobListing {
  /** The job of `run` ended as `state`, its counts as `view`: listed so for a while. */
  ended(run: string, view: JobView, state: EndState, endedAt: number): void;
  /** The node closes: its running job leaves the list (its ended ones stay for their time). */
  unlist(): void;
}

/** Job rows listed per account; more are counted. */
export const MAX_JOBS = 50;
/** Ended jobs kept per account, the newest. */
export const MAX_ENDED = 10;
/** How long an ended job stays listed. */
export const ENDED_MS = 15 * 60_000;

interface Ended {
  accountId: string;
  row: JobRow;
}

const sources = new Set<JobSource>();
/** Newest last; bounded by MAX_ENDED per account and by ENDED_MS. */
let ended: Ended[] = [];

function rowId(nodeId: string, run: string): string {
  return `${nodeId}:${run}`;
}

/** Drops the ended jobs older than ENDED_MS, and the oldest past MAX_ENDED of `accountId`. */
function prune(now: number, accountId?: string): void {
  ended = ended.filter((e) => now - (e.row.endedAt ?? 0) < ENDED_MS);
  if (accountId === undefined) return;
  let mine = ended.filter((e) => e.accountId === accountId).length;
  if (mine <= MAX_ENDED) return;
  ended = ended.filter((e) => e.accountId !== accountId || mine-- <= MAX_ENDED);
}

/**
 * Forgets every ended job: called as the fleet type registers, once per process in Node-RED, and
 * again for every flow the test helper loads, whose runtime then starts with none.
 */
export function forgetEndedJobs(): void {
  ended = [];
}

/** Lists the node's job in the sidebar until unlist() is called (on close). */
export function registerJob(source: JobSource): JobListing {
  sources.add(source);
  return {
    ended(run, view, state, endedAt) {
      const row: JobRow = { ...view, id: rowId(source.nodeId, run), node: source.nodeId, state };
      row.endedAt = endedAt;
      ended.push({ accountId: source.accountId, row });
      prune(endedAt, source.accountId);
    },
    unlist() {
      sources.delete(source);
    },
  };
}

/** Field by field: whatever else the node's object holds stays in the runtime. */
function rowOf(
  id: string,
  node: string,
  view: Omit<JobView, "state">,
  state: JobRow["state"],
  redact: (text: string) => string,
): JobRow {
  return {
    id,
    job: redact(view.job),
    named: view.named,
    node,
    ...progressCounts(view),
    startedAt: view.startedAt,
    restored: view.restored,
    state,
  };
}

/**
 * The account's running jobs, oldest first, then those ended in the last ENDED_MS, newest first;
 * at most MAX_JOBS. The job's name is the user's, but a token typed into it must not reach a
 * reader either: it is redacted like a stream path.
 */
export function jobsOf(accountId: string, redact: (text: string) => string): JobList {
  prune(Date.now());
  const over = ended.filter((e) => e.accountId === accountId);
  const endedIds = new Set(over.map((e) => e.row.id));
  const rows: JobRow[] = [];
  for (const source of sources) {
    if (source.accountId !== accountId) continue;
    const view = source.job();
    if (view === undefined) continue;
    const id = rowId(source.nodeId, view.run);
    // Ended a moment ago, its node not yet told: the ended row says how.
    if (endedIds.has(id)) continue;
    rows.push(rowOf(id, source.nodeId, view, view.state, redact));
  }
  rows.sort((a, b) => a.startedAt - b.startedAt);
  // Newest first; of two ended at the same ms, the one told last.
  over.reverse().sort((a, b) => (b.row.endedAt ?? 0) - (a.row.endedAt ?? 0));
  for (const { row } of over)
    rows.push({ ...rowOf(row.id, row.node, row, row.state, redact), endedAt: row.endedAt });
  return { total: rows.length, rows: rows.slice(0, MAX_JOBS) };
}

/**
 * Cancels the running job listed as `id` (JobRow.id) as msg.cancel would: nothing more is sent,
 * the commands sent are still awaited, and the report says cancelled. Returns how many (0 or 1).
 */
export function cancelJob(accountId: string, id: string, logText: (job: string) => string): number {
  for (const source of sources) {
    if (source.accountId !== accountId) continue;
    const view = source.job();
    if (view === undefined || rowId(source.nodeId, view.run) !== id) continue;
    if (!source.cancel(view.run)) return 0;
    source.log(logText(view.job));
    return 1;
  }
  return 0;
}
