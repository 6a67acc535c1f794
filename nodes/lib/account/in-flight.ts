// The pending waits of every edge-await-command node, by account, for the editor's sidebar. An
// await node registers the set it already keeps (its waits by abort signal, its pending-wait.ts) and
// a counter it bumps as a wait starts or ends: nothing else is done here when a wait comes or goes.
// The sets are walked only when an editor has the sidebar open and the counters say they changed;
// the walk's order is kept, so that an unchanged list costs a sum of counters, not a walk of ten
// thousand waits twice a second. What is listed is one page (PAGE_ROWS rows, oldest first, from an
// offset the editor asks for) under the devices of those rows, with counts: bounded however many.
import { MIN_PIECE } from "../api/redact";
import { jsonStart } from "./json-start";

/** Rows in one page, the waits in order of their start, oldest first. */
export const PAGE_ROWS = 50;
/** Characters of a command's elems shown, as JSON. */
const ELEMS_CHARS = 80;
/** JSON written past what is shown, so that a token there is redacted whole before the cut. */
const ELEMS_MARGIN = 4096;

/** What the editor's sidebar shows of one wait, read only while the sidebar is open. */
export interface WaitView {
  commandId: string | undefined;
  device: string;
  /** The elems the command was sent with (msg.payload.elems), as they are. */
  elems: unknown;
  startedAt: number;
  deadline: number;
  ttl: number | undefined;
  restored: boolean;
}

/** One pending wait as the sidebar lists and cancels it. */
export interface ListedWait {
  /** Wall clock ms of the start: the sidebar's order, read for every wait while it is open. */
  readonly started: number;
  /** The device, as the sidebar groups by it. */
  device(): string;
  /** Computed only for the rows shown. */
  describe(): WaitView;
  /**
   * Ends the wait with the error `cancelled`, the saved wait forgotten. Not silently, as msg.reset
   * ends a wait: the operator's click is no part of the flow, and a flow that joins on the
   * message's outcome hung when it ended with no output and no error (issue 35).
   */
  cancelFromTab(): void;
}

/** One await node as the sidebar sees it. */
export interface AwaitSource {
  readonly nodeId: string;
  readonly accountId: string;
  /** The node's pending waits, by abort signal (AwaitShared.bySignal). */
  readonly bySignal: ReadonlyMap<AbortSignal, ReadonlySet<ListedWait>>;
  /** Grows whenever a wait joins or leaves bySignal (AwaitShared.changes). */
  changes(): number;
  /** Logs a cancel in the node's log. */
  log(text: string): void;
  /**
   * `count` of its waits were cancelled from the sidebar: the node's status says so. Left as it
   * was, it went on saying "waiting (n)" for waits that were gone.
   */
  cancelled(count: number): void;
}

export interface WaitRow {
  /** Names the wait for a cancel: `<node id>:<n>`. */
  id: string;
  node: string;
  device: string;
  commandId: string | undefined;
  /** JSON of the elems, shortened and redacted. */
  elems: string;
  startedAt: number;
  deadline: number;
  ttl: number | undefined;
  restored: boolean;
}

export interface PendingList {
  total: number;
  /** Where the page starts among all waits, oldest first (0: the oldest). */
  offset: number;
  pageSize: number;
  /** The devices of the page's rows, in the order of their first row, each with all its count. */
  devices: { device: string; count: number; oldest: number; rows: WaitRow[] }[];
}

interface Entry {
  readonly source: AwaitSource;
  readonly wait: ListedWait;
  readonly started: number;
  readonly device: string;
}

/** An account's waits in order, as of `changes` (the sum of its sources' counters). */
interface Ordered {
  generation: number;
  changes: number;
  entries: Entry[];
  devices: Map<string, { count: number; oldest: number }>;
}

const sources = new Set<AwaitSource>();
/** Grows when a source comes or goes: the sum of counters alone would not see that. */
let generation = 0;
const ordered = new Map<string, Ordered>();
/** Numbers given to waits when first listed: a cancel names one of them. */
const numbers = new WeakMap<ListedWait, number>();
let lastNumber = 0;

/** Lists the node's waits in the sidebar until the returned function is called (on close). */
export function registerAwait(source: AwaitSource): () => void {
  sources.add(source);
  generation++;
  return () => {
    sources.delete(source);
    generation++;
  };
}

/**
 * Lets go of the ordered lists: they hold the waits (and their messages) as of the last look,
 * which an editor that closed the tab will not take again. The sidebar calls it when it stops.
 */
export function forgetPending(): void {
  ordered.clear();
}

function* waitsOf(accountId: string): Generator<[AwaitSource, ListedWait]> {
  for (const source of sources) {
    if (source.accountId !== accountId) continue;
    for (const set of source.bySignal.values()) for (const wait of set) yield [source, wait];
  }
}

function numberOf(wait: ListedWait): number {
  let n = numbers.get(wait);
  if (n === undefined) {
    n = ++lastNumber;
    numbers.set(wait, n);
  }
  return n;
}

/**
 * JSON of the elems, cut to ELEMS_CHARS, with the account's token taken out. Only the start of the
 * JSON is written (json-start.ts): 50 listed waits of 1 MB of elems each were written and redacted
 * whole at every refresh of the sidebar.
 */
function shortElems(elems: unknown, redact: (text: string) => string): string {
  let text: string;
  try {
    const start = jsonStart(elems, ELEMS_CHARS + ELEMS_MARGIN);
    // Redacted before the cut, so a token that the cut would split is still found. Where the walk
    // stopped, a token may be cut short; redact() finds any piece of MIN_PIECE characters or
    // more, and the shorter rest at the very end is dropped.
    text = redact(start.text);
    if (!start.whole) text = `${text.slice(0, text.length - (MIN_PIECE - 1))}…`;
  } catch {
    // Circular or a BigInt: the wait is still listed.
    text = "…";
  }
  return text.length > ELEMS_CHARS ? `${text.slice(0, ELEMS_CHARS - 1)}…` : text;
}

/** The account's waits oldest first, walked again only when a counter moved. */
function orderedOf(accountId: string): Ordered {
  let changes = 0;
  for (const source of sources) if (source.accountId === accountId) changes += source.changes();
  const known = ordered.get(accountId);
  // Counters only grow, so an equal sum means no wait came or went since the last walk.
  if (known?.generation === generation && known.changes === changes) return known;
  const entries: Entry[] = [];
  const devices = new Map<string, { count: number; oldest: number }>();
  // Per wait only its device and start are read: the rest is described for the rows shown.
  // Plain loops, not waitsOf(): no generator step and no pair allocated per wait.
  for (const source of sources) {
    if (source.accountId !== accountId) continue;
    for (const set of source.bySignal.values()) {
      for (const wait of set) {
        const started = wait.started;
        const device = wait.device();
        entries.push({ source, wait, started, device });
        const d = devices.get(device);
        if (d) {
          d.count++;
          if (started < d.oldest) d.oldest = started;
        } else devices.set(device, { count: 1, oldest: started });
      }
    }
  }
  // Each set holds its waits in the order they started, so this sort has little to do.
  entries.sort((a, b) => a.started - b.started);
  const now: Ordered = { generation, changes, entries, devices };
  ordered.set(accountId, now);
  return now;
}

/** The page's first row: a multiple of PAGE_ROWS, at most the last page's. */
function pageStart(offset: number, total: number): number {
  const last = total === 0 ? 0 : Math.floor((total - 1) / PAGE_ROWS) * PAGE_ROWS;
  const asked = Number.isFinite(offset) && offset > 0 ? offset : 0;
  return Math.min(last, Math.floor(asked / PAGE_ROWS) * PAGE_ROWS);
}

/**
 * One page of the account's pending waits, oldest first from `offset` (0 when not asked), as rows
 * under their devices; the total, and each listed device's count of all its waits.
 */
export function pendingOf(
  accountId: string,
  redact: (text: string) => string,
  offset = 0,
): PendingList {
  const { entries, devices } = orderedOf(accountId);
  const start = pageStart(offset, entries.length);
  const listed: PendingList["devices"] = [];
  const byDevice = new Map<string, PendingList["devices"][number]>();
  for (const { source, wait, device: raw } of entries.slice(start, start + PAGE_ROWS)) {
    let group = byDevice.get(raw);
    if (!group) {
      const d = devices.get(raw);
      group = { device: redact(raw), count: d?.count ?? 0, oldest: d?.oldest ?? 0, rows: [] };
      byDevice.set(raw, group);
      listed.push(group);
    }
    const view = wait.describe();
    group.rows.push({
      id: `${source.nodeId}:${numberOf(wait)}`,
      node: source.nodeId,
      device: group.device,
      commandId: view.commandId === undefined ? undefined : redact(view.commandId),
      elems: shortElems(view.elems, redact),
      startedAt: view.startedAt,
      deadline: view.deadline,
      ttl: view.ttl,
      restored: view.restored,
    });
  }
  return { total: entries.length, offset: start, pageSize: PAGE_ROWS, devices: listed };
}

/**
 * Ends the waits that `pick` chooses with the error `cancelled` (a Catch node gets it), the saved
 * wait forgotten, a line in the node's log. Returns how many ended.
 */
export function cancelWaits(
  accountId: string,
  pick: (id: string, view: WaitView) => boolean,
  logText: (view: WaitView) => string,
): number {
  const chosen: [AwaitSource, ListedWait, WaitView][] = [];
  for (const [source, wait] of waitsOf(accountId)) {
    const n = numbers.get(wait);
    const view = wait.describe();
    if (pick(n === undefined ? "" : `${source.nodeId}:${n}`, view))
      chosen.push([source, wait, view]);
  }
  // Cancelled after the walk: a cancel changes the sets being walked.
  const bySource = new Map<AwaitSource, number>();
  for (const [source, wait, view] of chosen) {
    wait.cancelFromTab();
    source.log(logText(view));
    bySource.set(source, (bySource.get(source) ?? 0) + 1);
  }
  for (const [source, count] of bySource) source.cancelled(count);
  return chosen.length;
}
