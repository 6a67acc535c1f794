// Whether Node-RED can copy a msg. Its copy (RED.util.cloneMessage, a recursive deep clone) runs
// when send() hands one message to more than one wire, for every Catch and Complete node, and
// overflows the stack at about 2,500 levels of nesting, or throws on a getter that throws. For a
// send() to two wires the first has the message before the copy for the second throws, so the
// depth is checked before a message is handed over, never after.
import type { NodeMessage } from "node-red";

/** The deepest msg property that goes out; well below where Node-RED's copy overflows. */
export const MAX_MSG_DEPTH = 1000;
/** Bounds the walk on a huge msg (a listing of every page, say). */
const MAX_VISITS = 1_000_000;
/** cloneMessage leaves these out of the copy (the HTTP in node's request and response). */
const NOT_COPIED = new Set(["_msgid", "req", "res"]);

/**
 * Whether a copy of `value` would fail: it nests objects or arrays deeper than `max` levels, or
 * reading it throws. Iterative: no recursion.
 */
export function uncopyable(value: unknown, max: number = MAX_MSG_DEPTH): boolean {
  if (typeof value !== "object" || value === null) return false;
  return walkFails([[value, 1]], max);
}

/** The walk of uncopyable(), from the given objects and their depths. */
function walkFails(stack: [object, number][], max: number): boolean {
  const seen = new Set<object>();
  try {
    for (let visits = 0; stack.length > 0 && visits < MAX_VISITS; visits++) {
      const [v, depth] = stack.pop() as [object, number];
      if (depth > max) return true;
      if (seen.has(v) || ArrayBuffer.isView(v)) continue;
      seen.add(v);
      for (const child of Object.values(v) as unknown[])
        if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  } catch {
    // A getter or proxy that throws: the clone would throw the same way.
    return true;
  }
  return false;
}

/**
 * Whether Node-RED's copy of the msg would fail; one walk over the whole msg, since it runs for
 * every message sent (under a microsecond for a command's answer).
 */
export function msgUncopyable(msg: object): boolean {
  const stack: [object, number][] = [];
  try {
    for (const key of Object.keys(msg)) {
      if (NOT_COPIED.has(key)) continue;
      const value: unknown = (msg as Record<string, unknown>)[key];
      if (typeof value === "object" && value !== null) stack.push([value, 1]);
    }
  } catch {
    // A getter on the msg itself.
    return true;
  }
  return stack.length > 0 && walkFails(stack, MAX_MSG_DEPTH);
}

/** The msg's own properties that Node-RED's copy could not hold. */
export function uncopyableKeys(msg: object): string[] {
  const bad: string[] = [];
  let keys: string[];
  try {
    keys = Object.keys(msg);
  } catch {
    return [];
  }
  for (const key of keys) {
    if (NOT_COPIED.has(key)) continue;
    try {
      if (uncopyable((msg as Record<string, unknown>)[key])) bad.push(key);
    } catch {
      // A getter on the msg itself.
      bad.push(key);
    }
  }
  return bad;
}

/** Takes out the msg properties a Catch node's copy of the msg could not hold, and names them. */
export function fitForCatch(msg: object): string[] {
  const removed = uncopyableKeys(msg);
  for (const key of removed) Reflect.deleteProperty(msg, key);
  return removed;
}

/** What a node's send() takes: one message, or per output a message, a list of them or null. */
export type Outgoing = NodeMessage | (NodeMessage | NodeMessage[] | null)[];

/** Every message in what is about to be sent. */
export function messagesOf(out: Outgoing): NodeMessage[] {
  if (!Array.isArray(out)) return [out];
  // Node-RED skips a null where a message could be, also inside an output's list.
  const isMessage = (m: unknown): m is NodeMessage => typeof m === "object" && m !== null;
  const all: NodeMessage[] = [];
  for (const port of out as unknown[]) {
    if (Array.isArray(port)) {
      for (const m of port as unknown[]) if (isMessage(m)) all.push(m);
    } else if (isMessage(port)) all.push(port);
  }
  return all;
}
