// Pending waits kept in a Node-RED context store, so that a result that comes after a redeploy or
// a restart still reaches the flow. One context key per wait (saving one wait never rewrites the
// others); the message is kept as JSON, so what cannot be saved is known when the wait starts,
// not when a file store flushes.
import { randomUUID } from "node:crypto";
import type { Node, NodeMessageInFlow } from "node-red";
import type { InboxRef } from "./inbox-poller";

const PREFIX = "edgewire-await-";

export interface SavedWait {
  v: 1;
  inbox: InboxRef;
  commandId?: string;
  /** Markers created before this (server time) are not for the command. */
  since: number;
  /** When the wait times out, wall clock ms. */
  deadline: number;
  timeoutMs: number;
  intervalMs: number;
  ttl?: number;
  /** When the wait started, wall clock ms. */
  startedAt: number;
  /** The message, as JSON, without what could not be saved. */
  msg: string;
}

/** The message as JSON, and the names of its properties that could not be kept. */
export function serializeMessage(msg: NodeMessageInFlow): { json: string; dropped: string[] } {
  const dropped: string[] = [];
  const keep = new Map<string, unknown>();
  for (const [key, value] of Object.entries(msg)) {
    if (typeof value === "function" || typeof value === "symbol") dropped.push(key);
    else keep.set(key, value);
  }
  try {
    return { json: JSON.stringify(Object.fromEntries(keep)), dropped };
  } catch {
    // A cycle, a BigInt, a socket (msg.req of an http in node): find which, keep the rest.
    for (const [key, value] of keep) {
      try {
        JSON.stringify(value);
      } catch {
        dropped.push(key);
        keep.delete(key);
      }
    }
    return { json: JSON.stringify(Object.fromEntries(keep)), dropped };
  }
}

/** The saved message back, with its Buffers as Buffers. */
export function parseMessage(json: string): NodeMessageInFlow {
  return JSON.parse(json, (_key, value: unknown) => {
    if (
      value !== null &&
      typeof value === "object" &&
      (value as { type?: unknown }).type === "Buffer" &&
      Array.isArray((value as { data?: unknown }).data)
    ) {
      return Buffer.from((value as { data: number[] }).data);
    }
    return value;
  }) as NodeMessageInFlow;
}

function isSavedWait(value: unknown): value is SavedWait {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<SavedWait>;
  return (
    v.v === 1 &&
    typeof v.inbox === "object" &&
    typeof v.since === "number" &&
    typeof v.deadline === "number" &&
    typeof v.intervalMs === "number" &&
    typeof v.startedAt === "number" &&
    typeof v.msg === "string"
  );
}

/** The waits of one node in one context store (undefined = Node-RED's default store). */
export class WaitStore {
  constructor(
    private readonly node: Node,
    private readonly store: string | undefined,
    private readonly onError: (err: unknown) => void,
  ) {}

  newKey(): string {
    return PREFIX + randomUUID();
  }

  save(key: string, wait: SavedWait): void {
    this.set(key, wait);
  }

  remove(key: string): void {
    this.set(key, undefined);
  }

  /** Every saved wait of the node. */
  async list(): Promise<[string, SavedWait][]> {
    const context = this.node.context();
    const keys = await new Promise<string[]>((resolve, reject) => {
      context.keys(this.store as string, (err: Error | null | undefined, keys?: unknown[]) => {
        if (err) reject(err);
        else resolve((keys ?? []).filter((k): k is string => typeof k === "string"));
      });
    });
    const out: [string, SavedWait][] = [];
    for (const key of keys) {
      if (!key.startsWith(PREFIX)) continue;
      const value = await new Promise<unknown>((resolve, reject) => {
        context.get(key, this.store as string, (err: Error | null | undefined, v?: unknown) => {
          if (err) reject(err);
          else resolve(v);
        });
      });
      if (isSavedWait(value)) out.push([key, value]);
      else this.remove(key);
    }
    return out;
  }

  async removeAll(): Promise<void> {
    for (const [key] of await this.list()) this.remove(key);
  }

  private set(key: string, value: SavedWait | undefined): void {
    try {
      this.node.context().set(key, value, this.store as string, (err?: Error | null) => {
        if (err) this.onError(err);
      });
    } catch (err) {
      this.onError(err);
    }
  }
}
