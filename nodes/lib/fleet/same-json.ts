// Whether two JSON values are the same whatever the order of their keys: a server may answer an
// event's elems with its keys in another order than they were sent.
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  // Elems are at most 32 levels deep (validate.ts): deeper is not ours.
  if (depth > 64 || typeof a !== "object" || typeof b !== "object" || a === null || b === null)
    return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => sameJson(v, b[i], depth + 1));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ob = b as Record<string, unknown>;
  const oa = a as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(ob, k) && sameJson(oa[k], ob[k], depth + 1));
}
