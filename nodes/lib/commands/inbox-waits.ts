// The pending waits on one inbox, kept so that a marker finds its wait without a look at every
// wait: in order of creation (all of them, and apart those without a command id, for the rule
// "the oldest wait created at or before the marker"), and by command id through an index of the
// ids' strings (docs/api-notes.md, Markers). The ids of ended waits are remembered for a while, so
// that their late markers go to nobody else.
import type { Wait, WatchHandle } from "./inbox-types";
import { IdIndex, tokensOf } from "./markers";
import type { Marker } from "./markers";
import type { Unclaimed } from "./unclaimed-markers";

/** Ids of ended waits remembered, so their late markers go to nobody else. */
const MAX_ENDED = 10_000;
/** Id shapes remembered: ids of one server share one, so a few are all there are. */
const MAX_SHAPES = 100;

const HEX = /[0-9a-f]/i;

/**
 * A string's shape: hex digits, other letters, the rest as is. Ids of one server share one. One
 * pass: two made every letter and digit "a" (the "h" of the first was a letter of the second).
 */
function shapeOf(s: string): string {
  return s.replace(/[0-9a-z]/gi, (c) => (HEX.test(c) ? "h" : "a"));
}

/**
 * The shape of a short id with each run of one class as one: short ids grow in length (`7`, `17`,
 * `2001`; `cmd-42`, `cmd-421`), so a marker that names another command of the same server has the
 * run shape of our ids, not always their length. Digits and letters are told apart here (not hex
 * and the rest, as in shapeOf): with runs collapsed, `h` would be any hex word with a digit, and
 * `be3` would name a command of a server whose ids are numbers.
 */
function runShapeOf(s: string): string {
  // One pass: a second would take the "d" of the first for a letter. A decimal number is one run:
  // `7.1` beside a wait for `7` names another number, not no id at all, and must not complete
  // that wait by date (issue 28).
  return s.replace(/[0-9]+(?:\.[0-9]+)*|\p{L}+/gu, (run) => (DIGIT.test(run) ? "d" : "a"));
}

/**
 * A date or a time of day written out (`2024-05-01T10:00:00Z`, `10:00:00`): its numbers are not
 * ids, however short the server's ids are.
 */
const DATE_OR_TIME =
  /^(\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?)?|\d{1,2}:\d{2}(:\d{2}([.,]\d+)?)?)(Z|[+-]\d{2}:?\d{2})?$/;

const DIGIT = /[0-9]/;
/**
 * Ids shorter than this are matched by run shape too. Long ids keep one length on a server (the
 * hosted service's 25, a UUID's 36), and a number in a marker (`progress: 100`) must not count as
 * naming another of them, or markers without an id would complete no wait by date.
 */
const SHORT_ID = 16;

/** What a wait's handle calls back: the inbox watch it was added to. */
export interface EntryOwner {
  remove(entry: Entry, handBack?: boolean): void;
  requestFinal(entry: Entry): void;
}

/** One wait on the inbox, linked into the lists below; the handle its caller holds. */
export class Entry implements WatchHandle {
  /** The list of all waits, oldest `since` first. */
  prev: Entry | undefined;
  next: Entry | undefined;
  /** The list of waits without a command id, oldest first. */
  prevNoId: Entry | undefined;
  nextNoId: Entry | undefined;
  /** The next wait with the same command id. */
  sameId: Entry | undefined;
  active = true;
  /** performance.now() of a final read request, or -1. */
  finalAfter = -1;
  finalTries = 0;
  /**
   * The server's clock stepped back this much (ms) before the wait's command (clock-steps.ts):
   * it takes nothing by date. Undefined when no step was seen.
   */
  stepMs: number | undefined = undefined;
  /** The markers handed to the wait, to give back should it be cancelled (WatchHandle.stop). */
  handed: Unclaimed[] | undefined = undefined;

  constructor(
    readonly owner: EntryOwner,
    readonly wait: Wait,
  ) {}

  stop(handBack = false): void {
    this.owner.remove(this, handBack);
  }

  finalRead(): void {
    this.owner.requestFinal(this);
  }
}

/** The pending waits of one inbox, by creation and by command id. */
export class InboxWaits {
  private head: Entry | undefined;
  private tail: Entry | undefined;
  private headNoId: Entry | undefined;
  private tailNoId: Entry | undefined;
  private size = 0;
  private readonly byId = new IdIndex<Entry>();
  private readonly ended = new IdIndex<number>();
  private readonly lengths = new Set<number>();
  private readonly shapes = new Set<string>();
  private readonly runShapes = new Set<string>();
  private readonly intervals = new Map<number, number>();

  get count(): number {
    return this.size;
  }

  /** The oldest pending wait: the list of all goes on through `next`. */
  get oldest(): Entry | undefined {
    return this.head;
  }

  /** The oldest pending wait without a command id. */
  get oldestWithoutId(): Entry | undefined {
    return this.headNoId;
  }

  /** The lengths of the command ids of the waits so far: the substrings markers are indexed by. */
  get idLengths(): ReadonlySet<number> {
    return this.lengths;
  }

  add(entry: Entry): void {
    this.insert(entry);
    const wait = entry.wait;
    this.intervals.set(wait.intervalMs, (this.intervals.get(wait.intervalMs) ?? 0) + 1);
    const id = wait.commandId;
    if (id === undefined || id === "") return;
    this.lengths.add(id.length);
    if (this.shapes.size < MAX_SHAPES) this.shapes.add(shapeOf(id));
    if (id.length < SHORT_ID && this.runShapes.size < MAX_SHAPES)
      this.runShapes.add(runShapeOf(id));
    const first = this.byId.get(id);
    if (first) {
      let last = first;
      while (last.sameId) last = last.sameId;
      last.sameId = entry;
    } else this.byId.set(id, entry);
  }

  remove(entry: Entry): void {
    this.unlink(entry);
    const n = (this.intervals.get(entry.wait.intervalMs) ?? 1) - 1;
    if (n === 0) this.intervals.delete(entry.wait.intervalMs);
    else this.intervals.set(entry.wait.intervalMs, n);
    const id = entry.wait.commandId;
    if (id === undefined || id === "") return;
    const first = this.byId.get(id);
    if (first === entry) {
      if (entry.sameId) this.byId.set(id, entry.sameId);
      else {
        this.byId.delete(id);
        this.ended.set(id, Date.now());
        if (this.ended.size > MAX_ENDED) {
          for (const oldest of this.ended.keys()) {
            this.ended.delete(oldest);
            break;
          }
        }
      }
    } else {
      for (let e = first; e; e = e.sameId) {
        if (e.sameId === entry) {
          e.sameId = entry.sameId;
          break;
        }
      }
    }
  }

  /** The first pending wait whose command id the marker holds. */
  withIdOf(marker: Marker): Entry | undefined {
    return this.byId.find(marker.strings);
  }

  /** True when the marker holds the command id of a wait that has ended. */
  endedIdOf(marker: Marker): boolean {
    return this.ended.find(marker.strings) !== undefined;
  }

  /**
   * True when one of the marker's strings, or one of their tokens, is shaped like the waits'
   * command ids: such a marker names some command, and when it is not one of ours it must not
   * complete a wait by date. `17` or `done 17` beside a wait for `7` is that. Only a string with a
   * digit counts: the words and keys of a marker (`added`, `b`) have the shape of hex ids.
   */
  hasIdShaped(marker: Marker): boolean {
    if (this.shapes.size === 0) return false;
    const looksLikeId = (t: string): boolean =>
      DIGIT.test(t) && (this.shapes.has(shapeOf(t)) || this.runShapes.has(runShapeOf(t)));
    return marker.strings.some(
      (s) => !DATE_OR_TIME.test(s) && (looksLikeId(s) || tokensOf(s).some(looksLikeId)),
    );
  }

  /** The shortest interval a wait asked for, 1 s without a wait. */
  interval(): number {
    let ms = Infinity;
    for (const i of this.intervals.keys()) ms = Math.min(ms, i);
    return ms === Infinity ? 1000 : ms;
  }

  /** Forgets the ids of waits that ended before `cutoff` (Date.now() time). */
  forgetEnded(cutoff: number): void {
    for (const id of [...this.ended.keys()]) {
      const at = this.ended.get(id);
      if (at !== undefined && at < cutoff) this.ended.delete(id);
    }
  }

  private insert(entry: Entry): void {
    this.size++;
    const since = entry.wait.since;
    // Waits mostly start in the order of their commands: walk back from the newest, unless the
    // wait is older than all (commands replayed newest first).
    let after = this.head && since < this.head.wait.since ? undefined : this.tail;
    while (after && after.wait.since > since) after = after.prev;
    entry.prev = after;
    entry.next = after ? after.next : this.head;
    if (entry.next) entry.next.prev = entry;
    else this.tail = entry;
    if (after) after.next = entry;
    else this.head = entry;
    // An empty id is no id (add() indexes none): such a wait takes markers by date.
    if (!entry.wait.commandId) {
      let a = this.headNoId && since < this.headNoId.wait.since ? undefined : this.tailNoId;
      while (a && a.wait.since > since) a = a.prevNoId;
      entry.prevNoId = a;
      entry.nextNoId = a ? a.nextNoId : this.headNoId;
      if (entry.nextNoId) entry.nextNoId.prevNoId = entry;
      else this.tailNoId = entry;
      if (a) a.nextNoId = entry;
      else this.headNoId = entry;
    }
  }

  private unlink(entry: Entry): void {
    this.size--;
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = undefined;
    if (!entry.wait.commandId) {
      if (entry.prevNoId) entry.prevNoId.nextNoId = entry.nextNoId;
      else this.headNoId = entry.nextNoId;
      if (entry.nextNoId) entry.nextNoId.prevNoId = entry.prevNoId;
      else this.tailNoId = entry.prevNoId;
      entry.prevNoId = entry.nextNoId = undefined;
    }
  }
}
