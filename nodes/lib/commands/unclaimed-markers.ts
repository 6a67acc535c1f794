// Markers an inbox poll read that no pending wait took: each waits here for a wait that may start
// a moment later (a delay node between send and await, an answer that came after the device
// acted). A new wait finds its own by the command id the marker holds, through an index of the
// marker's strings and their whole-token substrings of the lengths the waits' ids have, or by date. Bounded
// in count here and in age by the watch (expire), so an inbox nobody awaits costs little.
import { holdsId, isWholeToken } from "./markers";
import type { Marker } from "./markers";

/** At most this many unclaimed markers per inbox; past it the oldest read are dropped. */
const MAX_UNCLAIMED = 10_000;
/** Strings longer than this are not indexed but searched, when a wait starts. */
const MAX_INDEXED = 512;

export interface Unclaimed {
  readonly marker: Marker;
  readonly date: number;
  readonly readAt: number;
  /** Names some id (not of a pending wait): only a wait with that id, or one without id, takes it. */
  readonly named: boolean;
  /** Names the id of a wait that has ended: only a wait with that id (resumed) takes it. */
  readonly ofEnded?: boolean;
  claimed: boolean;
  /** Lengths of the substrings it is indexed by. */
  readonly lengths: Set<number>;
}

/** Markers read and given to no wait yet, findable by the strings they hold and by date. */
export class UnclaimedMarkers {
  /** In read order, for the age and count bounds. */
  private readonly items = new Set<Unclaimed>();
  private readonly byString = new Map<string, Set<Unclaimed>>();
  private readonly long = new Set<Unclaimed>();
  /** By date, oldest first, for the rule of markers without a known id. */
  private byDate: Unclaimed[] = [];
  private claimedInByDate = 0;

  get size(): number {
    return this.items.size;
  }

  add(item: Unclaimed, lengths: ReadonlySet<number>): void {
    this.items.add(item);
    for (const key of this.keysOf(item, lengths, true)) this.indexKey(key, item);
    let i = this.byDate.length;
    // Indexes below are within the array's bounds, which the compiler cannot see.
    while (i > 0 && (this.byDate[i - 1] as Unclaimed).date > item.date) i--;
    this.byDate.splice(i, 0, item);
    for (const oldest of this.items) {
      if (this.items.size <= MAX_UNCLAIMED) break;
      this.drop(oldest);
    }
  }

  /** Adds the substrings of a newly seen id length to the index. */
  indexLength(length: number): void {
    const only = new Set([length]);
    for (const item of this.items) {
      for (const key of this.keysOf(item, only, false)) this.indexKey(key, item);
    }
  }

  /** Drops what was read at or before `cutoff` (Date.now() time). */
  expire(cutoff: number): void {
    for (const item of this.items) {
      if (item.readAt > cutoff) break;
      this.drop(item);
    }
  }

  /** The unclaimed markers that hold `id`, oldest first. */
  withId(id: string): Unclaimed[] {
    // A set: a marker may hold the id in a string that is indexed and in one too long to be, and
    // was listed twice, and handed to its wait twice (inbox-watch-found-twice.spec.js).
    const found = new Set(this.byString.get(id) ?? []);
    for (const item of this.long) {
      if (item.marker.strings.some((s) => s.length > MAX_INDEXED && holdsId(s, id)))
        found.add(item);
    }
    return [...found].sort((a, b) => a.date - b.date);
  }

  /**
   * Unclaimed markers created at or after `since`, oldest first, named ones only if asked; never
   * those of an ended wait's id, which go to a wait with that id alone.
   */
  since(since: number, named: boolean): Unclaimed[] {
    let lo = 0;
    let hi = this.byDate.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.byDate[mid] as Unclaimed).date < since) lo = mid + 1;
      else hi = mid;
    }
    const out: Unclaimed[] = [];
    for (let i = lo; i < this.byDate.length; i++) {
      const item = this.byDate[i] as Unclaimed;
      if (!item.claimed && !item.ofEnded && (named || !item.named)) out.push(item);
    }
    return out;
  }

  /** Takes the marker out: it was handed to a wait, or dropped. */
  drop(item: Unclaimed): void {
    if (item.claimed) return;
    item.claimed = true;
    this.items.delete(item);
    this.long.delete(item);
    for (const key of this.keysOf(item, item.lengths, true)) {
      const set = this.byString.get(key);
      set?.delete(item);
      if (set?.size === 0) this.byString.delete(key);
    }
    if (++this.claimedInByDate * 2 > this.byDate.length) {
      this.byDate = this.byDate.filter((i) => !i.claimed);
      this.claimedInByDate = 0;
    }
  }

  private indexKey(key: string, item: Unclaimed): void {
    let set = this.byString.get(key);
    if (!set) this.byString.set(key, (set = new Set()));
    set.add(item);
  }

  /**
   * The marker's strings (when `whole`) and their substrings of the given lengths, which become
   * the item's; strings too long to index are searched instead, when a wait starts.
   */
  private keysOf(item: Unclaimed, lengths: ReadonlySet<number>, whole: boolean): Set<string> {
    const keys = new Set<string>();
    for (const s of item.marker.strings) {
      if (s.length > MAX_INDEXED) {
        if (!item.claimed) this.long.add(item);
        continue;
      }
      if (whole) keys.add(s);
      for (const length of lengths) {
        // Only whole tokens (markers.ts, ID_CHAR): `7` inside `17` is part of another id.
        for (let i = 0; length > 0 && i + length <= s.length; i++)
          if (isWholeToken(s, i, length)) keys.add(s.slice(i, i + length));
      }
    }
    if (lengths !== item.lengths) for (const l of lengths) item.lengths.add(l);
    return keys;
  }
}
