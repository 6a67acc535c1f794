// Pending waits kept in memory and in a Node-RED context store, so that a result that comes after
// a redeploy or a restart still reaches the flow. One context key per wait (saving one wait never
// rewrites the others); the message is kept as JSON (saved-message.ts).
import { randomUUID } from "node:crypto";
import type { Node, NodeMessageInFlow } from "node-red";
import type { NodeWaits } from "./kept-waits";
import type { SavedWait } from "./saved-wait";
import { checkSavedWait } from "./saved-wait-check";

const PREFIX = "edgewire-await-";

export type { SavedWait } from "./saved-wait";

/** A saved wait that passed its check, ready to resume. */
export interface Restorable {
  key: string;
  wait: SavedWait;
  msg: NodeMessageInFlow;
}

/**
 * The waits of one node: in this process's memory (kept-waits.ts), which carries them across a
 * redeploy, and in one context store (undefined = Node-RED's default store), which carries them
 * across a restart when it is persistent.
 */
export class WaitStore {
  /**
   * The waits in memory when this instance was made: those of the instance before the deploy.
   * Only these resume from memory: a message that reaches the new instance before flows:started
   * (from a node the deploy left running) starts a wait that is in memory too, and resuming it
   * as well would end its message twice.
   */
  private readonly previous: ReadonlySet<string>;

  constructor(
    private readonly node: Node,
    private readonly store: string | undefined,
    private readonly kept: NodeWaits,
    private readonly onError: (err: unknown) => void,
  ) {
    this.previous = new Set(kept.waits.keys());
  }

  newKey(): string {
    return PREFIX + randomUUID();
  }

  save(key: string, wait: SavedWait): void {
    this.kept.waits.set(key, wait);
    this.set(key, wait);
  }

  remove(key: string): void {
    this.kept.waits.delete(key);
    this.set(key, undefined);
  }

  /**
   * The waits to resume when the node starts, each once: those in memory and, the first time the
   * node starts in this process, those in the store. Each record is checked; one that fails is
   * removed and told to `onBad` with the field that failed, and the others resume. Afterwards
   * memory and the store hold the same waits.
   */
  async restorable(onBad: (key: string, field: string) => void): Promise<Restorable[]> {
    const { kept } = this;
    // Taken before any await: a wait that starts while the store is read is not one to resume.
    const fromMemory = new Map<string, unknown>();
    for (const [key, wait] of kept.waits) if (this.previous.has(key)) fromMemory.set(key, wait);
    const candidates = new Map<string, unknown>(fromMemory);
    let stored: string[] = [];
    let complete = true;
    try {
      stored = await this.keys();
    } catch (err) {
      // The waits in memory still resume; the store is read again at the next start.
      this.onError(err);
      complete = false;
    }
    if (!kept.loaded) {
      for (const key of stored) {
        if (kept.waits.has(key) || candidates.has(key)) continue;
        let value: unknown;
        try {
          value = await this.get(key);
        } catch (err) {
          // Left in the store, and the store read again at the next start.
          this.onError(err);
          complete = false;
          continue;
        }
        // Removed since the keys were listed: a wait that ended meanwhile.
        if (value !== undefined) candidates.set(key, value);
      }
    }
    const inStore = new Set(stored);
    const out: Restorable[] = [];
    const now = Date.now();
    for (const [key, value] of candidates) {
      const checked = checkSavedWait(value, now, fromMemory.has(key));
      if (!checked.ok) {
        this.remove(key);
        onBad(key, checked.field);
        continue;
      }
      kept.waits.set(key, checked.wait);
      // Only in memory: the store was emptied by Node-RED at the close (no contextStorage), or
      // the node's Store property changed in the deploy.
      if (!inStore.has(key)) this.set(key, checked.wait);
      out.push({ key, wait: checked.wait, msg: checked.msg });
    }
    if (kept.loaded && complete) {
      // Memory is the whole truth here: a record only in the store is a wait that ended but
      // whose removal did not reach the store, and must not resume.
      for (const key of stored) if (!kept.waits.has(key)) this.set(key, undefined);
    }
    if (complete) kept.loaded = true;
    if (kept.store !== null && kept.store !== this.store) {
      // The Store property changed in the deploy: the waits now live in the new store only.
      for (const key of this.previous) this.set(key, undefined, kept.store);
    }
    kept.store = this.store;
    return out;
  }

  /** The node was removed from the flows: its waits go from memory and from the store. */
  async removeAll(): Promise<void> {
    const keys = new Set(this.kept.waits.keys());
    this.kept.waits.clear();
    try {
      for (const key of await this.keys()) keys.add(key);
    } finally {
      for (const key of keys) this.set(key, undefined);
    }
  }

  /** The keys of the node's saved waits in the store. */
  private async keys(): Promise<string[]> {
    const context = this.node.context();
    const keys = await new Promise<unknown[]>((resolve, reject) => {
      context.keys(this.store as string, (err: Error | null | undefined, keys?: unknown[]) => {
        if (err) reject(err);
        else resolve(Array.isArray(keys) ? keys : []);
      });
    });
    return keys.filter((k): k is string => typeof k === "string" && k.startsWith(PREFIX));
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

  private set(key: string, value: SavedWait | undefined, store = this.store): void {
    try {
      this.node.context().set(key, value, store as string, (err?: Error | null) => {
        if (err) this.onError(err);
      });
    } catch (err) {
      this.onError(err);
    }
  }
}
