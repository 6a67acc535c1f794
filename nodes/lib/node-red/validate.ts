// Checks of user input, made before any request so that a bad message costs no API call and the
// error says exactly what to fix. What is checked is also what is sent: the checks return fresh
// copies made of the values they saw, so a getter, a class instance or a toJSON() cannot make the
// request body differ from the checked input (a Buffer once went out as {"type":"Buffer",...}
// and a Map as {}, wiping a device's state).
import { EdgeError } from "../api/errors";
import type { Elems, State, StateValue } from "../api/types";
import { isPlainObject, typeName } from "../api/value-kind";

export { isPlainObject, typeName };

/** Nesting of command elems; real resource paths are a handful of levels deep. */
export const MAX_ELEMS_DEPTH = 32;

function isStateValue(value: unknown): value is StateValue {
  return (
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (isPlainObject(value)) return value;
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    throw new EdgeError("not-plain", { what, type: typeName(value) });
  throw new EdgeError("not-object", { what, type: typeName(value) });
}

/** A whole state: resource paths to strings, numbers or booleans. Never empty: that wipes it. */
export function checkState(value: unknown, what: string): State {
  const entries = Object.entries(objectOf(value, what));
  if (entries.length === 0) throw new EdgeError("empty", { what });
  for (const [key, v] of entries) {
    if (v === null) throw new EdgeError("null-value", { what, key });
    if (!isStateValue(v)) throw new EdgeError("bad-value", { what, key, type: typeName(v) });
  }
  // fromEntries defines keys as data properties: a "__proto__" key stays a key.
  return Object.fromEntries(entries) as State;
}

/** A merge patch: like a state, where `null` removes the key. */
export function checkPatch(value: unknown, what: string): Record<string, StateValue | null> {
  const entries = Object.entries(objectOf(value, what));
  for (const [key, v] of entries) {
    if (v !== null && !isStateValue(v))
      throw new EdgeError("bad-value", { what, key, type: typeName(v) });
  }
  return Object.fromEntries(entries) as Record<string, StateValue | null>;
}

/** Command elems: flat resource paths or nested objects of values, never empty. */
export function checkElems(value: unknown, what: string): Elems {
  // Objects on the way down from the root: meeting one again is a cycle, which JSON cannot hold.
  const ancestors = new Set<object>();
  const copy = (node: Record<string, unknown>, prefix: string, depth: number): Elems => {
    const where = prefix ? `${what} at "${prefix}"` : what;
    if (depth > MAX_ELEMS_DEPTH) throw new EdgeError("too-deep", { what, max: MAX_ELEMS_DEPTH });
    const entries = Object.entries(node);
    if (entries.length === 0) throw new EdgeError("empty", { what: where });
    ancestors.add(node);
    const out: [string, StateValue | Elems][] = [];
    for (const [key, v] of entries) {
      const path = prefix ? `${prefix}/${key}` : key;
      if (isStateValue(v)) out.push([key, v]);
      else if (isPlainObject(v)) {
        if (ancestors.has(v)) throw new EdgeError("circular", { what, key: path });
        out.push([key, copy(v, path, depth + 1)]);
      } else throw new EdgeError("bad-value", { what, key: path, type: typeName(v) });
    }
    ancestors.delete(node);
    return Object.fromEntries<StateValue | Elems>(out);
  };
  return copy(objectOf(value, what), "", 1);
}

/** A whole number in range, given as a number or as decimal text (msg properties often are). */
export function checkInteger(value: unknown, what: string, min: number, max: number): number {
  const n = typeof value === "string" && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    const shown =
      typeof value === "string"
        ? JSON.stringify(value)
        : typeof value === "number"
          ? String(value)
          : typeName(value);
    throw new EdgeError("integer", { what, min, max, value: shown });
  }
  return n;
}

/** The JSON text of a node property, after mustache. */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new EdgeError("bad-json", { what, detail: (err as Error).message });
  }
}
