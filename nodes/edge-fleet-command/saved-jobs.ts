// The jobs of one edge-fleet-command node, kept in this process's memory and in a Node-RED
// context store, as the await node keeps its waits (lib/node-red/saved-waits.ts): memory carries a
// job across a redeploy whatever the settings (with Node-RED's stock settings the context is
// deleted when a node closes), a persistent store across a restart. One context key per job.
import { randomUUID } from "node:crypto";
import type { Node } from "node-red";
import type { JobRecord } from "../lib/fleet/job";
import { checkJobRecord } from "../lib/fleet/job";

const PREFIX = "edgewire-fleet-";

/** The jobs of one node, as this process knows them. */
export interface NodeJobs {
  /** True once the store was read in this process: memory is then the whole truth. */
  loaded: boolean;
  readonly jobs: Map<string, JobRecord>;
}

/** Per registration of the type: the jobs of every node, by context id (context-id.ts). */
export class KeptJobs {
  private readonly byNode = new Map<string, NodeJobs>();

  of(contextId: string): NodeJobs {
    let entry = this.byNode.get(contextId);
    if (!entry) {
      entry = { loaded: false, jobs: new Map() };
      this.byNode.set(contextId, entry);
    }
    return entry;
  }

  forget(contextId: string): void {
    this.byNode.delete(contextId);
  }
}

export interface RestorableJob {
  key: string;
  job: JobRecord;
}

export class JobStore {
  /** The jobs in memory when this instance was made: those of the instance before the deploy. */
  private readonly previous: ReadonlySet<string>;

  constructor(
    private readonly node: Node,
    private readonly store: string | undefined,
    private readonly kept: NodeJobs,
    private readonly onError: (err: unknown) => void,
  ) {
    this.previous = new Set(kept.jobs.keys());
  }

  newKey(): string {
    return PREFIX + randomUUID();
  }

  save(key: string, job: JobRecord): void {
    this.kept.jobs.set(key, job);
    this.set(key, job);
  }

  remove(key: string): void {
    this.kept.jobs.delete(key);
    this.set(key, undefined);
  }

  /**
   * The jobs to resume, oldest first: those of the instance before the deploy and, the first
   * time the node starts in this process, those in the store. A record that fails its check is
   * removed and told to `onBad` with the field that failed.
   */
  async restorable(onBad: (key: string, field: string) => void): Promise<RestorableJob[]> {
    const { kept } = this;
    const candidates = new Map<string, unknown>();
    for (const [key, job] of kept.jobs) if (this.previous.has(key)) candidates.set(key, job);
    if (!kept.loaded) {
      let complete = true;
      let stored: string[] = [];
      try {
        stored = await this.keys();
      } catch (err) {
        // The jobs in memory still resume; the store is read again at the next start.
        this.onError(err);
        complete = false;
      }
      for (const key of stored) {
        if (candidates.has(key) || kept.jobs.has(key)) continue;
        try {
          const value = await this.get(key);
          if (value !== undefined) candidates.set(key, value);
        } catch (err) {
          this.onError(err);
          complete = false;
        }
      }
      if (complete) kept.loaded = true;
    }
    const out: RestorableJob[] = [];
    for (const [key, value] of candidates) {
      const checked = checkJobRecord(value);
      if (!checked.ok) {
        this.remove(key);
        onBad(key, checked.field);
        continue;
      }
      this.save(key, checked.job);
      out.push({ key, job: checked.job });
    }
    return out.sort((a, b) => a.job.startedAt - b.job.startedAt);
  }

  /** The node was removed from the flows: its jobs go from memory and from the store. */
  async removeAll(): Promise<void> {
    const keys = new Set(this.kept.jobs.keys());
    this.kept.jobs.clear();
    try {
      for (const key of await this.keys()) keys.add(key);
    } finally {
      for (const key of keys) this.set(key, undefined);
    }
  }

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

  private set(key: string, value: JobRecord | undefined): void {
    try {
      this.node.context().set(key, value, this.store as string, (err?: Error | null) => {
        if (err) this.onError(err);
      });
    } catch (err) {
      this.onError(err);
    }
  }
}
