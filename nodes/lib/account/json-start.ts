// The start of a value's JSON, written by a walk that stops once it has enough: the sidebar shows
// 80 characters of each listed wait's elems, and JSON.stringify of the whole elems (then a
// redaction of all of it) cost 29 % of a core with 50 waits of 1 MB each listed, 150 ms per GET
// (issue 28). What is written is what JSON.stringify writes, up to the stop.

/** The walk stopped: `max` characters are written. */
class Full extends Error {}

/** What the walk reads of a value: JSON.stringify's unwrapping of boxed primitives and toJSON. */
function jsonValue(v: unknown, key: string): unknown {
  if (typeof v === "object" && v !== null) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return (toJSON as (k: string) => unknown).call(v, key);
    // Objects of a Function node's realm fail instanceof: their tag is read instead.
    const tag = Object.prototype.toString.call(v);
    if (tag === "[object Number]") return Number(v);
    if (tag === "[object String]") return (v as { valueOf(): string }).valueOf();
    if (tag === "[object Boolean]") return (v as { valueOf(): boolean }).valueOf();
  }
  return v;
}

/**
 * The first `max` characters of JSON.stringify(value) (more when the last piece written is long),
 * with `whole` false when the walk stopped before the end. Throws a TypeError, as JSON.stringify
 * does, for a cycle or a BigInt met before the stop; "" for what JSON.stringify gives undefined.
 */
export function jsonStart(value: unknown, max: number): { text: string; whole: boolean } {
  let out = "";
  const ancestors = new Set<object>();
  const put = (s: string): void => {
    out += s;
    if (out.length >= max) throw new Full();
  };
  /** Writes `raw` as a value; false when JSON leaves it out (undefined, a function, a symbol). */
  const walk = (raw: unknown, key: string): boolean => {
    const v = jsonValue(raw, key);
    switch (typeof v) {
      case "undefined":
      case "function":
      case "symbol":
        return false;
      case "string":
        // A long string is written only as far as it can show.
        put(JSON.stringify(v.length > max ? v.slice(0, max) : v));
        return true;
      case "number":
        put(Number.isFinite(v) ? String(v) : "null");
        return true;
      case "boolean":
        put(String(v));
        return true;
      case "bigint":
        throw new TypeError("Do not know how to serialize a BigInt");
      case "object":
        break;
    }
    if (v === null) {
      put("null");
      return true;
    }
    if (ancestors.has(v)) throw new TypeError("Converting circular structure to JSON");
    ancestors.add(v);
    if (Array.isArray(v)) {
      put("[");
      for (let i = 0; i < v.length; i++) {
        if (i > 0) put(",");
        if (!walk(v[i], String(i))) put("null");
      }
      put("]");
    } else {
      put("{");
      let first = true;
      const record = v as Record<string, unknown>;
      for (const k in record) {
        if (!Object.prototype.hasOwnProperty.call(record, k)) continue;
        const before = out;
        put(`${first ? "" : ","}${JSON.stringify(k)}:`);
        if (walk(record[k], k)) first = false;
        else out = before;
      }
      put("}");
    }
    ancestors.delete(v);
    return true;
  };
  try {
    walk(value, "");
  } catch (err) {
    if (err instanceof Full) return { text: out, whole: false };
    throw err;
  }
  return { text: out, whole: true };
}
