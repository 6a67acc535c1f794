// The commands this runtime sent to device `:command` streams, for the one place that has to tell
// its own command from another's by looking at a stream: a fleet job resumed after a redeploy or
// a restart, with a device whose send was cut off before its answer came. Two identical jobs back
// to back make identical commands; without this, the second job's resumed device adopted the
// first job's command as its own and reported it complete though it was never sent (issue 28).
// Process-level on purpose: every node of the runtime sends through here, and a redeploy keeps it.
//
// It also sees a server give one id to two commands of this runtime on one stream (issue 35): a
// COMPLETE naming that id then cannot be told to be either command's, though both waits took one
// and reported complete. The second send ends with `id-reused` instead of a command reference,
// and the waits for the first command end with it too (watchReuse): no result is taken for either.
// Where a send to a stream may have made a command whose id never came back (its answer lost), a
// later send there cannot tell a reused id from the registry alone: it looks (unknownMade). So
// does the send whose answer was lost, for the commands answered while it was on the wire
// (claimedSince): a send answered before that loss was known had no reason to look.
import { EdgeError } from "../api/errors";

/** Who sent a command: a fleet job's device (fleet-job.ts), or "" for any other flow. */
export type Sender = string;

/**
 * Ids remembered, oldest forgotten first. A resumed device reads the newest 100 events of its
 * stream: ten full fleets of 10,000 devices is more than any look-up can meet.
 */
const MAX_REMEMBERED = 100_000;

/**
 * How long after a send whose answer was lost the sends to its stream look for their id twice
 * there: a command made then is on the stream before any later one, and a marker it gets is
 * written within its device's answer time. Ten minutes is past every Timeout the nodes accept
 * for a result to be awaited at once, and past the ttl a command usually has.
 */
const UNKNOWN_MS = 10 * 60_000;

/** A wait for a command that a later send may find the server gave its id to again. */
export interface ReuseWatcher {
  /** The server gave the command's id to another command of this runtime: `err` says so. */
  idReused(err: EdgeError): void;
}

/** The error of a command whose id the server gave another command of this runtime on `path`. */
export function idReused(id: string, device: string, path: string): EdgeError {
  return new EdgeError(
    "id-reused",
    { id, device, method: "POST", path },
    { method: "POST", path, mayHaveBeenSent: true },
  );
}

/** The device of a `:command` stream path, else the path as it is. */
function deviceOf(path: string): string {
  return /\/devices\/([^/]+)\/:command$/.exec(path)?.[1] ?? path;
}

export class SentCommands {
  /** `path \n id` to its sender, in the order they were sent. */
  private readonly senders = new Map<string, Sender>();
  /**
   * An id to the creation date the server gave it (its clock), for a reference rebuilt by hand in
   * a Function node without its date: waiting "from its arrival, less a skew" let such a wait take
   * an earlier command's marker on a server whose markers name no command (the fault harness).
   */
  private readonly dates = new Map<string, number>();
  /**
   * An id to our clock before its request left (send.ts), for the wait on it: a marker read
   * before then is another command's, whatever its date (inbox-types.ts, Wait.sentAt).
   */
  private readonly sentTimes = new Map<string, number>();
  /**
   * `origin path \n id` of every command a send of this runtime was answered with, oldest first:
   * by the server's origin too, as two servers' ids have nothing to do with each other.
   */
  private readonly made = new Set<string>();
  /**
   * Of those, the ones whose markers cannot be taken for them, with the error that says why: a
   * server gave the id to a second command as well (`id-reused`), or may have and the stream
   * could not be read to tell (`id-unchecked`).
   */
  private readonly reused = new Map<string, () => EdgeError>();
  /** Counts the commands claimed, for claimedSince. */
  private claims = 0;
  /** The waits for a command of `made`, by its key, told when its id is given again. */
  private readonly watchers = new Map<string, Set<ReuseWatcher>>();
  /** `origin path` to when a send there may have made a command whose id never came back. */
  private readonly unknown = new Map<string, number>();
  /** Requests of this runtime on the wire to a stream, and who waits for the stream to be quiet. */
  private readonly onWire = new Map<string, OnWire>();

  /** A command this runtime made on `path` (a `:command` stream path), sent by `sender`. */
  remember(path: string, id: string, sender: Sender, creationDate?: number, sentAt?: number): void {
    setBounded(this.senders, `${path}\n${id}`, sender);
    if (sentAt !== undefined) setBounded(this.sentTimes, id, sentAt);
    if (creationDate !== undefined && Number.isFinite(creationDate))
      setBounded(this.dates, id, creationDate);
  }

  /**
   * A send of this runtime to `path` at `origin` was answered with the new command `id`: undefined
   * when no earlier send was, else the error that ends this send (`id-reused`); the waits for
   * the earlier command are then told too, and so is any wait for it that starts later.
   */
  claim(origin: string, path: string, id: string): EdgeError | undefined {
    const key = `${origin} ${path}\n${id}`;
    if (!this.made.has(key)) {
      this.made.add(key);
      bound(this.made);
      this.claims++;
      // Kept while a request to the stream is on the wire: its answer may be lost yet, and this
      // id then be the one the server gave its command too (claimedSince).
      const wire = this.onWire.get(path);
      if (wire) {
        wire.claimed.push({ origin, id, n: this.claims });
        if (wire.claimed.length > MAX_CLAIMED) wire.claimed.shift();
      }
      return undefined;
    }
    const device = deviceOf(path);
    this.spoil(origin, path, id, () => idReused(id, device, path));
    return idReused(id, device, path);
  }

  /**
   * No marker naming the command `id` on `path` at `origin` is surely its own: `error` ends every
   * wait for it, those under way now and any that starts later (watchReuse).
   */
  spoil(origin: string, path: string, id: string, error: () => EdgeError): void {
    const key = `${origin} ${path}\n${id}`;
    if (this.reused.has(key)) return;
    setBounded(this.reused, key, error);
    const watchers = this.watchers.get(key);
    this.watchers.delete(key);
    for (const w of watchers ?? []) w.idReused(error());
  }

  /** Where the commands claimed from now on start: a mark for claimedSince. */
  claimMark(): number {
    return this.claims;
  }

  /**
   * The ids of the commands of this runtime claimed on `path` at `origin` after `mark`
   * (claimMark) while the caller's own request to it was still on the wire. Asked by a send
   * whose answer was lost before that request ends (leaving), so that none is missed.
   */
  claimedSince(origin: string, path: string, mark: number): string[] {
    const wire = this.onWire.get(path);
    return (wire?.claimed ?? []).filter((c) => c.n > mark && c.origin === origin).map((c) => c.id);
  }

  /**
   * A command of this runtime found again on its stream (a fleet device resumed after its send
   * was cut off): made by this runtime, so a later send answered with its id is told (claim).
   * Never an error itself: its own send may have claimed it before the cut.
   */
  found(origin: string, path: string, id: string): void {
    this.made.add(`${origin} ${path}\n${id}`);
    bound(this.made);
  }

  /**
   * Tells `watcher` when the server gives the id of its command (`id` on `path` at `origin`) to
   * another command of this runtime; returns the error at once when it already has, else the key
   * to stop with (unwatchReuse).
   */
  watchReuse(
    origin: string,
    path: string,
    id: string,
    watcher: ReuseWatcher,
  ): { reused: EdgeError } | { key: string } {
    const key = `${origin} ${path}\n${id}`;
    const spoiled = this.reused.get(key);
    if (spoiled) return { reused: spoiled() };
    let set = this.watchers.get(key);
    if (!set) {
      set = new Set();
      this.watchers.set(key, set);
    }
    set.add(watcher);
    return { key };
  }

  /** The wait ended: it is told nothing more. */
  unwatchReuse(key: string, watcher: ReuseWatcher): void {
    const set = this.watchers.get(key);
    if (!set?.delete(watcher) || set.size > 0) return;
    this.watchers.delete(key);
  }

  /**
   * A send to `path` at `origin` may have made a command whose id this runtime never learned (its
   * answer was lost, or named no id): a server that gives that id again cannot be caught by claim.
   */
  madeUnknown(origin: string, path: string, now = Date.now()): void {
    setBounded(this.unknown, `${origin} ${path}`, now);
  }

  /** Whether a send to `path` made a command of unknown id there within UNKNOWN_MS. */
  unknownMade(origin: string, path: string, now = Date.now()): boolean {
    const at = this.unknown.get(`${origin} ${path}`);
    return at !== undefined && now - at <= UNKNOWN_MS;
  }

  /** The server's creation date of the command `id` this runtime made, if it remembers one. */
  createdAt(id: string): number | undefined {
    return this.dates.get(id);
  }

  /** Our clock before the request of the command `id` this runtime made left, if remembered. */
  sentAt(id: string): number | undefined {
    return this.sentTimes.get(id);
  }

  /** Who sent the command `id` on `path`: undefined when this runtime did not (or forgot). */
  senderOf(path: string, id: string): Sender | undefined {
    return this.senders.get(`${path}\n${id}`);
  }

  /** A request to `path` left the limiter; call the function returned when it has ended. */
  leaving(path: string): () => void {
    const entry = this.onWire.get(path) ?? { count: 0, quiet: [], claimed: [] };
    this.onWire.set(path, entry);
    entry.count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.count--;
      if (entry.count > 0) return;
      this.onWire.delete(path);
      for (const resolve of entry.quiet.splice(0)) resolve();
    };
  }

  /**
   * Resolves when no request of this runtime is on the wire to `path`: a command another send is
   * making there now has no id here yet, and could pass for anyone's. Bounded by their budgets.
   */
  quiet(path: string): Promise<void> {
    const entry = this.onWire.get(path);
    if (!entry) return Promise.resolve();
    return new Promise<void>((resolve) => entry.quiet.push(resolve));
  }

  /** Whether a request of this runtime is on the wire to `path` now. */
  busy(path: string): boolean {
    return this.onWire.has(path);
  }
}

/** Requests of this runtime on the wire to one stream, and the commands claimed meanwhile. */
interface OnWire {
  count: number;
  quiet: (() => void)[];
  claimed: { origin: string; id: string; n: number }[];
}

/**
 * Commands claimed on a stream kept while a request to it is on the wire. Past it the oldest go
 * unchecked after a lost answer: a look-up reads the stream's newest 100 events, so a command
 * made more than 100 commands before the read could not be found twice anyway.
 */
const MAX_CLAIMED = 1000;

/** Drops the oldest entries of `set` past MAX_REMEMBERED. */
function bound(set: Set<string>): void {
  if (set.size <= MAX_REMEMBERED) return;
  const oldest = set.values().next().value;
  if (oldest !== undefined) set.delete(oldest);
}

/** Sets `key` as the newest entry of `map`, the oldest dropped past MAX_REMEMBERED. */
function setBounded<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_REMEMBERED) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}

/** The runtime's one registry (a module is loaded once per process). */
export const sentCommands = new SentCommands();
