// The pending waits of every edge-await-command node, by account, for the editor's sidebar. An
// await node registers the set it already keeps (its waits by abort signal, its pending-wait.ts)
// and nothing else: a wait that starts or ends does no work here. The list is walked only when an
// editor has the sidebar open, a few times a second, and what it gives is bounded (MAX_ROWS rows,
// MAX_DEVICES device counts) however many waits there are.

/** Rows listed in all, the oldest waits; the others are counted. */
export const MAX_ROWS = 50;
/** Devices listed with their counts, those with the oldest waits first. */
export const MAX_DEVICES = 100;
/** Characters of a command's elems shown, as JSON. */
const ELEMS_CHARS = 80;

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
  /** Ends the wait as msg.reset would: no output, the saved wait forgotten. */
  cancel(): void;
}

/** One await node as the sidebar sees it. */
export interface AwaitSource {
  readonly nodeId: string;
  readonly accountId: string;
  /** The node's pending waits, by abort signal (AwaitShared.bySignal). */
  readonly bySignal: ReadonlyMap<AbortSignal, ReadonlySet<ListedWait>>;
  /** Logs a cancel in the node's log. */
  log(text: string): void;
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
  devices: { device: string; count: number; oldest: number; rows: WaitRow[] }[];
}

const sources = new Set<AwaitSource>();
/** Numbers given to waits when first listed: a cancel names one of them. */
const numbers = new WeakMap<ListedWait, number>();
let lastNumber = 0;

/** Lists the node's waits in the sidebar until the returned function is called (on close). */
export function registerAwait(source: AwaitSource): () => void {
  sources.add(source);
  return () => {
    sources.delete(source);
  };
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

/** JSON of the elems, cut to ELEMS_CHARS, with the account's token taken out. */
function shortElems(elems: unknown, redact: (text: string) => string): string {
  if (elems === undefined) return "";
  let text: string;
  try {
    // JSON.stringify gives undefined (typed string) for these two.
    text = typeof elems === "function" || typeof elems === "symbol" ? "" : JSON.stringify(elems);
  } catch {
    // Circular or a BigInt: the wait is still listed.
    text = "…";
  }
  // Redacted whole before the cut, so a token that the cut would split is still found.
  text = redact(text);
  return text.length > ELEMS_CHARS ? `${text.slice(0, ELEMS_CHARS - 1)}…` : text;
}

/**
 * The account's pending waits: the oldest MAX_ROWS as rows under their devices, and the count of
 * every device (the MAX_DEVICES with the oldest waits), devices oldest first.
 */
export function pendingOf(accountId: string, redact: (text: string) => string): PendingList {
  let total = 0;
  const devices = new Map<string, { count: number; oldest: number }>();
  // The oldest MAX_ROWS so far, oldest first: a wait younger than the last is passed over.
  // Per wait only its device and start are read: the rest is described for the rows shown.
  const oldest: { source: AwaitSource; wait: ListedWait; started: number }[] = [];
  // Plain loops, not waitsOf(): no generator step and no pair allocated per wait at every snapshot.
  for (const source of sources) {
    if (source.accountId !== accountId) continue;
    for (const set of source.bySignal.values()) {
      for (const wait of set) {
        total++;
        const started = wait.started;
        const device = wait.device();
        const d = devices.get(device);
        if (d) {
          d.count++;
          if (started < d.oldest) d.oldest = started;
        } else devices.set(device, { count: 1, oldest: started });
        const last = oldest.at(-1);
        if (oldest.length >= MAX_ROWS && last && last.started <= started) continue;
        let i = oldest.length;
        while (i > 0 && (oldest[i - 1]?.started ?? 0) > started) i--;
        oldest.splice(i, 0, { source, wait, started });
        if (oldest.length > MAX_ROWS) oldest.pop();
      }
    }
  }
  const listed = [...devices.entries()]
    .sort((a, b) => a[1].oldest - b[1].oldest)
    .slice(0, MAX_DEVICES)
    .map(([device, d]) => ({
      device: redact(device),
      count: d.count,
      oldest: d.oldest,
      rows: [] as WaitRow[],
    }));
  const byDevice = new Map(listed.map((d) => [d.device, d]));
  for (const { source, wait } of oldest) {
    const view = wait.describe();
    const device = redact(view.device);
    byDevice.get(device)?.rows.push({
      id: `${source.nodeId}:${numberOf(wait)}`,
      node: source.nodeId,
      device,
      commandId: view.commandId === undefined ? undefined : redact(view.commandId),
      elems: shortElems(view.elems, redact),
      startedAt: view.startedAt,
      deadline: view.deadline,
      ttl: view.ttl,
      restored: view.restored,
    });
  }
  return { total, devices: listed };
}

/**
 * Ends the waits that `pick` chooses as msg.reset would end them: no output, the saved wait
 * forgotten, a line in the node's log. Returns how many ended.
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
  for (const [source, wait, view] of chosen) {
    wait.cancel();
    source.log(logText(view));
  }
  return chosen.length;
}
