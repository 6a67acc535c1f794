// The hosted service's list requests, `GET /device` and `GET /stream`, with its query parameters:
// `limit` and `start` page, `only` projects fields (`only=id,name`), and `filter` keeps the objects
// an expression matches (`name=="pump-3" && lastSeen>=1600000000000`, operators == != > >= < <=,
// `&&` and `EXISTS`). Neither request is in the API's own description (docs/api-notes.md, Fall-backs): clients use them only for the editor's
// pickers and fall back when a server answers 404 or 405.

import type { JsonObject, JsonValue } from "./json";

export class ListQueryError extends Error {}

const MAX_LIMIT = 1000;

type Test = (item: JsonObject) => boolean;

function field(item: JsonObject, path: string): JsonValue | undefined {
  let value: JsonValue | undefined = item;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    value = value[part];
  }
  return value;
}

const COMPARISON =
  /^\s*([A-Za-z_][\w.]*)\s*(==|!=|>=|<=|>|<)\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false)\s*$/;
const EXISTS = /^\s*([A-Za-z_][\w.]*)\s+EXISTS\s*$/;

function comparison(text: string): Test {
  const exists = EXISTS.exec(text);
  if (exists) {
    const name = exists[1] ?? "";
    return (item) => field(item, name) !== undefined;
  }
  const m = COMPARISON.exec(text);
  if (!m) throw new ListQueryError(`Invalid filter expression: ${text.trim()}`);
  const [, name = "", op, literal = ""] = m;
  const wanted = JSON.parse(literal) as string | number | boolean;
  return (item) => {
    const value = field(item, name);
    if (typeof value !== typeof wanted) return op === "!=";
    const a = value as string | number | boolean;
    switch (op) {
      case "==":
        return a === wanted;
      case "!=":
        return a !== wanted;
      case ">":
        return a > wanted;
      case ">=":
        return a >= wanted;
      case "<":
        return a < wanted;
      default:
        return a <= wanted;
    }
  };
}

/** `a && b && c`; a quoted string may itself hold "&&". */
function parseFilter(text: string): Test {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (c === '"' && text[i - 1] !== "\\") quoted = !quoted;
    if (!quoted && c === "&" && text[i + 1] === "&") {
      parts.push(current);
      current = "";
      i += 1;
      continue;
    }
    current += c;
  }
  parts.push(current);
  const tests = parts.map(comparison);
  return (item) => tests.every((test) => test(item));
}

function integer(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,15}$/.test(raw)) throw new ListQueryError(`${name} must be a non-negative integer`);
  return Number(raw);
}

/** One page of `items` as the query asks, in their given order. */
export function listPage(items: JsonObject[], query: URLSearchParams): JsonObject[] {
  const limit = Math.min(integer(query, "limit", 20), MAX_LIMIT);
  const start = integer(query, "start", 0);
  const filter = query.get("filter");
  const test = filter ? parseFilter(filter) : undefined;
  const only = query
    .get("only")
    ?.split(",")
    .map((f) => f.trim())
    .filter((f) => f !== "");
  const matching = test ? items.filter(test) : items;
  return matching.slice(start, start + limit).map((item) => {
    if (!only || only.length === 0) return item;
    const picked: JsonObject = {};
    for (const name of only) {
      const value = field(item, name);
      if (value !== undefined && !name.includes(".")) picked[name] = value;
    }
    return picked;
  });
}
