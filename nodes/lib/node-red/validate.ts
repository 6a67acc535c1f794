// Checks of user input, made before any request so that a bad message costs no API call and the
// error says exactly what to fix.
import { EdgeError } from "../api/errors";
import type { Elems, State, StateValue } from "../api/types";

export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStateValue(value: unknown): value is StateValue {
  return (
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw new EdgeError("not-object", { what, type: typeName(value) });
  return value;
}

/** A whole state: resource paths to strings, numbers or booleans. */
export function checkState(value: unknown, what: string): State {
  const state = objectOf(value, what);
  for (const [key, v] of Object.entries(state)) {
    if (v === null) throw new EdgeError("null-value", { what, key });
    if (!isStateValue(v)) throw new EdgeError("bad-value", { what, key, type: typeName(v) });
  }
  return state as State;
}

/** A merge patch: like a state, where `null` removes the key. */
export function checkPatch(value: unknown, what: string): Record<string, StateValue | null> {
  const patch = objectOf(value, what);
  for (const [key, v] of Object.entries(patch)) {
    if (v !== null && !isStateValue(v))
      throw new EdgeError("bad-value", { what, key, type: typeName(v) });
  }
  return patch as Record<string, StateValue | null>;
}

/** Command elems: flat resource paths or nested objects of values, never empty. */
export function checkElems(value: unknown, what: string): Elems {
  const walk = (node: Record<string, unknown>, prefix: string): void => {
    const entries = Object.entries(node);
    if (entries.length === 0)
      throw new EdgeError("empty", { what: prefix ? `${what} at "${prefix}"` : what });
    for (const [key, v] of entries) {
      const path = prefix ? `${prefix}/${key}` : key;
      if (isPlainObject(v)) walk(v, path);
      else if (!isStateValue(v))
        throw new EdgeError("bad-value", { what, key: path, type: typeName(v) });
    }
  };
  walk(objectOf(value, what), "");
  return value as Elems;
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
