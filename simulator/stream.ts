// A stream and its events: kept in order of creation, bounded by the stream's capacity, and
// sized for the benchmark (100,000 events paged at high rates), so adding, dropping the oldest and
// reading a page never walk the stream. Each event is serialised once, on its first read.
import type { JsonObject } from "./json";

export const DEFAULT_CAPACITY = 1000;
export const MAX_CAPACITY = 100000;

export type StreamKind = "command" | "inbox" | "free";

export interface StoredEvent {
  id: string;
  streamId: string;
  path: string;
  creationDate: number;
  creatorId: string;
  elems: JsonObject;
  metadata: JsonObject | undefined;
  /** Serialised once, on first read: a page of 1000 events is then a copy of bytes. */
  bytes: Buffer | undefined;
}

export function eventJson(event: StoredEvent): string {
  return eventBytes(event).toString("utf8");
}

/** prefix, the events' JSON separated by commas, then suffix, in one buffer. */
export function joinEvents(prefix: string, events: StoredEvent[], suffix: string): Buffer {
  let size = Buffer.byteLength(prefix) + Buffer.byteLength(suffix) + events.length;
  for (const event of events) size += eventBytes(event).length;
  const out = Buffer.allocUnsafe(size);
  let offset = out.write(prefix, 0);
  events.forEach((event, i) => {
    if (i > 0) offset = out.writeUInt8(0x2c, offset);
    offset += eventBytes(event).copy(out, offset);
  });
  offset += out.write(suffix, offset);
  return out.subarray(0, offset);
}

function eventBytes(event: StoredEvent): Buffer {
  if (event.bytes === undefined) {
    const view: JsonObject = {
      id: event.id,
      streamId: event.streamId,
      path: event.path,
      creationDate: event.creationDate,
      generatedDate: event.creationDate,
      lastEditDate: event.creationDate,
      creatorId: event.creatorId,
      version: 0,
      elems: event.elems,
    };
    if (event.metadata !== undefined) view.metadata = event.metadata;
    event.bytes = Buffer.from(JSON.stringify(view), "utf8");
  }
  return event.bytes;
}

/**
 * Events kept in ascending (creationDate, insertion) order in an array whose dropped head is
 * skipped by an offset and compacted only once it is at least half of the array. The stream
 * carries its company and device (`C` and `D`, the store's Company and Device: StoreStream in
 * store.ts) for its readers and never looks into them, so it does not name the store's types.
 */
export class Stream<C = unknown, D = unknown> {
  private items: (StoredEvent | undefined)[] = [];
  private head = 0;

  constructor(
    readonly id: string,
    readonly path: string,
    readonly capacity: number,
    readonly creationDate: number,
    readonly company: C,
    readonly kind: StreamKind,
    readonly device: D | undefined,
  ) {}

  get name(): string {
    return this.path.slice(this.path.lastIndexOf("/") + 1);
  }

  get count(): number {
    return this.items.length - this.head;
  }

  add(event: StoredEvent): void {
    const last = this.items[this.items.length - 1];
    if (this.count === 0 || last === undefined || last.creationDate <= event.creationDate) {
      this.items.push(event);
    } else {
      // Only control-seeded events with an explicit older date get here: rare, so O(n) is fine.
      this.compact();
      let low = 0;
      let high = this.items.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        const item = this.items[mid];
        if (item !== undefined && item.creationDate <= event.creationDate) low = mid + 1;
        else high = mid;
      }
      this.items.splice(low, 0, event);
    }
    while (this.count > this.capacity) {
      this.items[this.head] = undefined;
      this.head += 1;
    }
    if (this.head >= 1024 && this.head * 2 >= this.items.length) this.compact();
  }

  /** Events from index start, newest first (or oldest first when ascending), at most limit. */
  page(start: number, limit: number, ascending = false): StoredEvent[] {
    const out: StoredEvent[] = [];
    const count = this.count;
    if (start >= count) return out;
    const n = Math.min(limit, count - start);
    for (let i = 0; i < n; i += 1) {
      const index = ascending ? this.head + start + i : this.items.length - 1 - start - i;
      const item = this.items[index];
      if (item !== undefined) out.push(item);
    }
    return out;
  }

  private compact(): void {
    if (this.head === 0) return;
    this.items = this.items.slice(this.head);
    this.head = 0;
  }
}

export interface StreamView {
  id: string;
  name: string;
  path: string;
  capacity: number;
  creationDate: number;
  count: number;
}

export function streamView(stream: Stream): StreamView {
  return {
    id: stream.id,
    name: stream.name,
    path: stream.path,
    capacity: stream.capacity,
    creationDate: stream.creationDate,
    count: stream.count,
  };
}
