// Records that must outlive a node instance (the await node's pending waits, the fleet node's
// jobs), kept in memory and in a Node-RED context store, so that what they wait for still reaches
// the flow after a redeploy or a restart. One context key per record (saving one never rewrites
// the others); each record carries its message as JSON (saved-message.ts). What a record is, and
// how one read back is checked, is the node's: a RecordKind.
import { randomUUID } from "node:crypto";
import type { Node, NodeMessageInFlow } from "node-red";
import type { NodeRecords } from "./kept-records";

/** A record read back, as what resumes from it, or the first field that is wrong. */
export type CheckedRecord<T, R> = ({ ok: true; record: T } & R) | { ok: false; field: string };

export interface RecordKind<T, R extends { msg: NodeMessageInFlow }> {
  /** What the context keys of these records start with: the store holds other keys too. */
  prefix: string;
  /**
   * Checks a record read back from memory or the store (anything a user or an older version may
   * have left there). `fromMemory`: made by this process, across a redeploy: its clocks are not
   * in doubt, its shape is.
   */
  check(value: unknown, now: number, fromMemory: boolean): CheckedRecord<T, R>;
  /**
   * The commands a record sent and saw no end of, each as "<id> (<device>)": what a node deleted
   * by a deploy abandons, named in its warning (issue 35, item 5).
   */
  abandoned(record: T): string[];
}

/**
 * The records of one node: in this process's memory (kept-records.ts), which carries them across
 * a redeploy, and in one context store (undefined = Node-RED's default store), which carries them
 * across a restart when it is persistent.
 */
export class SavedRecords<T, R extends { msg: NodeMessageInFlow }> {
  /**
   * The records in memory when this instance was made: those of the instance before the deploy.
   * Only these resume from memory: a message that reaches the new instance before flows:started
   * (from a node the deploy left running) starts a record that is in memory too, and resuming it
   * as well would end its message twice.
   */
  private readonly previous: ReadonlySet<string>;

  constructor(
    private readonly node: Node,
    private readonly store: string | undefined,
    private readonly kept: NodeRecords<T>,
    private readonly kind: RecordKind<T, R>,
    private readonly onError: (err: unknown) => void,
  ) {
    this.previous = new Set(kept.records.keys());
  }

  newKey(): string {
    return this.kind.prefix + randomUUID();
  }

  save(key: string, record: T): void {
    this.kept.records.set(key, record);
    this.set(key, record);
  }

  /**
   * As save(), resolving once the store has the record (a store that caches, as Node-RED's
   * localfilesystem does by default, has it in its cache then, on disk at its next flush).
   */
  saveNow(key: string, record: T): Promise<void> {
    this.kept.records.set(key, record);
    return new Promise<void>((resolve) => {
      this.set(key, record, this.store, resolve);
    });
  }

  remove(key: string): void {
    this.kept.records.delete(key);
    this.set(key, undefined);
  }

  /**
   * The records to resume when the node starts, each once: those in memory and, the first time
   * the node starts in this process, those in the store. Each record is checked; one that fails
   * is removed and told to `onBad` with the field that failed, and the others resume. Afterwards
   * memory and the store hold the same records, in the node's store of this deploy only.
   */
  async restorable(onBad: (key: string, field: string) => void): Promise<({ key: string } & R)[]> {
    const { kept } = this;
    // Taken before any await: a record made while the store is read is not one to resume.
    const fromMemory = new Map<string, unknown>();
    for (const [key, record] of kept.records)
      if (this.previous.has(key)) fromMemory.set(key, record);
    const candidates = new Map<string, unknown>(fromMemory);
    let stored: string[] = [];
    let complete = true;
    try {
      stored = await this.keys();
    } catch (err) {
      // The records in memory still resume; the store is read again at the next start.
      this.onError(err);
      complete = false;
    }
    if (!kept.loaded) {
      for (const key of stored) {
        if (kept.records.has(key) || candidates.has(key)) continue;
        let value: unknown;
        try {
          value = await this.get(key);
        } catch (err) {
          // Left in the store, and the store read again at the next start.
          this.onError(err);
          complete = false;
          continue;
        }
        // Removed since the keys were listed: a record that ended meanwhile.
        if (value !== undefined) candidates.set(key, value);
      }
    }
    const inStore = new Set(stored);
    const out: ({ key: string } & R)[] = [];
    const now = Date.now();
    for (const [key, value] of candidates) {
      const checked = this.kind.check(value, now, fromMemory.has(key));
      if (!checked.ok) {
        this.remove(key);
        onBad(key, checked.field);
        continue;
      }
      const { record } = checked;
      kept.records.set(key, record);
      // Only in memory: the store was emptied by Node-RED at the close (no contextStorage), or
      // the node's Store property changed in the deploy.
      if (!inStore.has(key)) this.set(key, record);
      out.push({ ...checked, key });
    }
    if (kept.loaded && complete) {
      // Memory is the whole truth here: a record only in the store is one that ended but whose
      // removal did not reach the store, and must not resume.
      for (const key of stored) if (!kept.records.has(key)) this.set(key, undefined);
    }
    if (complete) kept.loaded = true;
    if (kept.store !== null && kept.store !== this.store) {
      // The Store property changed in the deploy: the records now live in the new store only.
      for (const key of this.previous) this.set(key, undefined, kept.store);
    }
    kept.store = this.store;
    return out;
  }

  /** The commands the node's records in memory sent and saw no end of (RecordKind.abandoned). */
  abandoned(): string[] {
    return [...this.kept.records.values()].flatMap((r) => this.kind.abandoned(r));
  }

  /** The node was removed from the flows: its records go from memory and from the store. */
  async removeAll(): Promise<void> {
    const keys = new Set(this.kept.records.keys());
    this.kept.records.clear();
    try {
      for (const key of await this.keys()) keys.add(key);
    } finally {
      for (const key of keys) this.set(key, undefined);
    }
  }

  /** The keys of the node's records in the store. */
  private async keys(): Promise<string[]> {
    const context = this.node.context();
    const keys = await new Promise<unknown[]>((resolve, reject) => {
      context.keys(this.store as string, (err: Error | null | undefined, keys?: unknown[]) => {
        if (err) reject(err);
        else resolve(Array.isArray(keys) ? keys : []);
      });
    });
    const { prefix } = this.kind;
    return keys.filter((k): k is string => typeof k === "string" && k.startsWith(prefix));
  }

  private get(key: string): Promise<unknown> {
    const context = this.node.context();
    return new Promise<unknown>((resolve, reject) => {
      context.get(key, this.store as string, (err: Error | null | undefined, v?: unknown) => {
        if (err) reject(err);
        else resolve(v);
      });
    });
  }

  /** `then`: told once the store answered, whether or not it failed (then onError is told). */
  private set(key: string, value: T | undefined, store = this.store, then?: () => void): void {
    try {
      this.node.context().set(key, value, store as string, (err?: Error | null) => {
        if (err) this.onError(err);
        then?.();
      });
    } catch (err) {
      this.onError(err);
      then?.();
    }
  }
}
