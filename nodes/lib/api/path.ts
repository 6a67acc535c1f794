// Names that go into a request path or a stream path: device ids and names, stream ids and paths.
// Each is checked before any request and sent as exactly one path segment. Encoding alone is not
// enough for two kinds of name: one made only of dots is still read as "." or ".." by URL parsers,
// proxies and servers once decoded (`PUT .../device/%2E%2E` addressed the company root), and one
// holding an unpaired surrogate has no UTF-8 form (encodeURIComponent throws a bare URIError,
// URLSearchParams silently sends U+FFFD instead, another name).
import { EdgeError } from "./errors";

/** An unpaired surrogate: in a `u` regex a valid pair is one code point, never Cs. */
const LONE_SURROGATE = /\p{Cs}/u;
/** What a name needs for a part of it to be read as dots: a dot, or a % that may decode to one. */
const MAY_BE_DOTS = /[.%]/;
/** Decoding passes tried when looking for dots written as %2E (or %252E for a double decode). */
const DECODE_PASSES = 3;

/**
 * A piece that is only dots, between slashes or backslashes: a server or proxy that decodes `%2F`
 * (or takes `\` for `/`, as some do) reads `x%2F..%2Fpump-3` as `x/../pump-3`, another device.
 */
const DOT_PIECE = /(^|[/\\])\.+($|[/\\])/;

/**
 * Whether the name, decoded as a server might, is only dots (`.`, `..`, `%2E%2E`, `.%2e`) or holds
 * a piece of dots between slashes (`x/../y`, `x%2F..%2Fy`).
 */
function isDotName(name: string): boolean {
  let text = name;
  for (let i = 0; i <= DECODE_PASSES; i++) {
    if (DOT_PIECE.test(text)) return true;
    if (!text.includes("%")) return false;
    let decoded: string;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      return false;
    }
    if (decoded === text) return false;
    text = decoded;
  }
  return false;
}

/**
 * Refuses a name that cannot be sent as itself. `what` says which input it was (a device, a
 * stream); every segment of a stream path is checked the same way.
 */
export function checkName(name: string, what: string): string {
  if (LONE_SURROGATE.test(name)) throw new EdgeError("bad-text", { what });
  // The common name has neither: no part of it can be dots, however often it is decoded, and it
  // costs no split (this runs several times per request).
  if (!MAY_BE_DOTS.test(name)) return name;
  const parts = name.startsWith("/") ? name.split("/").filter(Boolean) : [name];
  for (const part of parts) {
    if (isDotName(part)) throw new EdgeError("dot-name", { what, value: name });
  }
  return name;
}

/**
 * Encodes one path segment: `/`, `?`, `#` and `%` are escaped, so it stays one segment. Checked
 * again here, so that no caller can build a path from a name that was not.
 */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(checkName(segment, "The name"));
}
