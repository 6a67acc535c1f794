// What Test connection asks the server, and what the answers prove. The cheapest request is one
// event of a stream id that cannot exist: past authentication the API answers 404 in its JSON
// envelope (or an empty list), bad credentials answer 401/403, and a 404 that is not the envelope
// (an HTML page: the Node-RED editor, any web server) proves nothing but a wrong URL.
//
// A 404 in the envelope once counted as proof, and Test connection said "Connected" for
// http://127.0.0.1:8686/nothing with any company and any token: a server may answer a path it
// does not know in its envelope before it looks at credentials (the bundled simulator does). So
// the same request goes again with a made-up token, and only when that one is refused (401/403)
// while ours was accepted do the URL and the credentials count as proven.
//
// The made-up token looks like the one tried: its length, its first half, and for the rest random
// characters of the token's own kinds. It was `edgewire-probe-` and 24 hex digits, and a server
// that refused only that shape made Test connection say "Connected" for any token (issue 28).
import { randomInt } from "node:crypto";
import type { AccountSettings } from "../lib/api/account-settings";
import { EdgeClient } from "../lib/api/client";
import { EdgeError } from "../lib/api/errors";

/** Ids are a type letter and 24 hex digits; all zeros names no stream. */
const NO_STREAM = "s000000000000000000000000";

export type ProbeResult =
  | { proven: true; ms: number; company: string }
  /** Ours was accepted, but so was a made-up token: `answer` says how the server answered it. */
  | { proven: false; answer: string };

/**
 * How the server answered when it took the request ("HTTP 2xx", "HTTP 404"), else throws what it
 * answered.
 */
async function ask(client: EdgeClient): Promise<string> {
  try {
    await client.listEvents(NO_STREAM, { limit: 1 });
    return "HTTP 2xx";
  } catch (err) {
    if (err instanceof EdgeError && err.code === "not-found") {
      // apiStatus is set only when the answer had the envelope's head.
      if (err.apiStatus !== undefined) return `HTTP ${err.status ?? 404}`;
      throw new EdgeError("not-api", { status: err.status ?? 404 }, { status: err.status });
    }
    throw err;
  }
}

const KINDS = [/[0-9]/, /[a-z]/, /[A-Z]/];

/**
 * A token with the shape of `token`: the same length and first half; each later letter or digit
 * drawn at random from the token's own characters of its kind (digit, lower case, upper case), so
 * a hex token stays hex; anything else kept. Never `token` itself.
 */
export function lookalike(token: string, pick: (n: number) => number = randomInt): string {
  // A token is a header value: ASCII, one character a code unit.
  const chars = token.split("");
  const kindOf = (c: string): number => KINDS.findIndex((k) => k.test(c));
  const pools = KINDS.map((_, i) => chars.filter((c) => kindOf(c) === i));
  const from = Math.floor(chars.length / 2);
  for (let tries = 0; tries < 8; tries++) {
    const made = chars.map((c, i) => {
      const pool = i < from ? [] : (pools[kindOf(c)] ?? []);
      return pool.length > 0 ? (pool[pick(pool.length)] ?? c) : c;
    });
    const text = made.join("");
    if (text !== token) return text;
  }
  // Its own characters cannot make another token (one kind, one character, or none): the last
  // letter or digit becomes another of its kind, or a character is added.
  let last = chars.length - 1;
  while (last >= 0 && kindOf(chars[last] ?? "") < 0) last--;
  if (last < 0) return `${token}0`;
  const c = chars[last] ?? "";
  const pair = ["01", "ab", "AB"][kindOf(c)] ?? "01";
  chars[last] = c === pair[0] ? pair.slice(1) : pair.slice(0, 1);
  return chars.join("");
}

/** How the control request failed, for the sentence: "HTTP 500", or the error's code. */
function answered(err: unknown): string {
  if (!(err instanceof EdgeError)) return "?";
  return err.status !== undefined ? `HTTP ${err.status}` : err.code;
}

/**
 * Tries `settings` (the token they hold), then the same request with a made-up token. Throws the
 * EdgeError of the first request when it fails: refused credentials, no server, not the API.
 */
export async function probe(settings: AccountSettings): Promise<ProbeResult> {
  const started = performance.now();
  let client: EdgeClient | undefined;
  let control: EdgeClient | undefined;
  try {
    client = new EdgeClient({ ...settings, retry: { retries: 0 } });
    await ask(client);
    const ms = Math.round(performance.now() - started);
    // A token no server issued, that a server cannot tell from the one tried by its shape.
    const madeUp = lookalike(settings.token);
    control = new EdgeClient({ ...settings, token: madeUp, retry: { retries: 0 } });
    try {
      return { proven: false, answer: await ask(control) };
    } catch (err) {
      if (err instanceof EdgeError && err.code === "auth") {
        return { proven: true, ms, company: client.company };
      }
      return { proven: false, answer: answered(err) };
    }
  } finally {
    await client?.close();
    await control?.close();
  }
}

/**
 * The API's own path (/v5.0/...) in a base URL, when it is more than the trailing
 * `/v5.0/<company>` of this same company that the client takes off (account-settings.ts): a
 * pasted `.../v5.0/demo/device` or `.../v5.0/other` would send every request to a path the
 * server answers before it checks credentials. Undefined when there is none, or the URL is not
 * one (the client reports that).
 */
export function apiPathIn(baseUrl: string, company: string): string | undefined {
  let path: string;
  try {
    path = new URL(baseUrl.trim()).pathname.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
  const at = /\/v5\.0(?:\/|$)/.exec(path)?.index;
  if (at === undefined) return undefined;
  const rest = path.slice(at);
  return rest === "/v5.0" || rest === `/v5.0/${company.trim()}` ? undefined : rest;
}
