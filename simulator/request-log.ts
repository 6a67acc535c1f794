// What the client did, for tests and benchmarks to read through the control interface: the
// request counts per route and the last requests with their answers' status.

export interface Stats {
  total: number;
  byRoute: Record<string, number>;
}

export interface RequestRecord {
  method: string;
  url: string;
  pathname: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  time: number;
  /** null while unanswered, or when the connection was dropped on purpose. */
  status: number | null;
}

export const LOG_CAPACITY = 10000;

/** The last LOG_CAPACITY requests in a ring, so logging stays O(1) at any rate. */
export class RequestLog {
  private ring: RequestRecord[] = [];
  private next = 0;

  add(record: RequestRecord): void {
    if (this.ring.length < LOG_CAPACITY) this.ring.push(record);
    else this.ring[this.next] = record;
    this.next = (this.next + 1) % LOG_CAPACITY;
  }

  /** The last n records, oldest first. */
  last(n: number): RequestRecord[] {
    const size = this.ring.length;
    const count = Math.min(n, size);
    const out: RequestRecord[] = [];
    const first = size < LOG_CAPACITY ? size - count : this.next - count + LOG_CAPACITY;
    for (let i = 0; i < count; i += 1) {
      const record = this.ring.at((first + i) % LOG_CAPACITY);
      if (record !== undefined) out.push(record);
    }
    return out;
  }

  clear(): void {
    this.ring = [];
    this.next = 0;
  }
}

export class StatsCounter {
  total = 0;
  private byRoute = new Map<string, number>();

  count(route: string): void {
    this.total += 1;
    this.byRoute.set(route, (this.byRoute.get(route) ?? 0) + 1);
  }

  snapshot(): Stats {
    return { total: this.total, byRoute: Object.fromEntries(this.byRoute) };
  }

  reset(): void {
    this.total = 0;
    this.byRoute = new Map();
  }
}
