// A pending wait's message as it is saved: JSON, so what cannot be saved is known when the wait
// starts, not when a file store flushes, and read back with its Buffers as Buffers.
import type { NodeMessageInFlow } from "node-red";

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
