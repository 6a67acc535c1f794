// The editor's device and stream pickers: an admin route that lists an account's devices, or the
// streams of its devices, for the Device, Stream and Inbox fields of every node. It reads with the
// deployed account (its client, so the account's rate limit holds) or, while the account is being
// edited and its token typed, with the typed values. Lists come from the hosted service's
// `GET /device` and `GET /stream` (docs/api-notes.md, Fall-backs), a page of PAGE at a time, cached for
// CACHE_MS; a server answering 404 or 405 there lists nothing and the picker says so.
//
// Who may make the runtime send what: a user with read permission lists a DEPLOYED account, with
// its stored credentials, its own URL and TLS node, through its own client (so its connection
// pool and rate limit hold). Typed values make the runtime send credentials, and a TLS node's
// client certificate, to any URL and answer what came back: that needs edge-account.write, as Test
// connection does. Typed reads pass one small gate (TYPED_LIMIT) with a client of one connection
// each, so no number of calls holds more than TYPED_LIMIT.concurrent connections. Every text of an
// answer is redacted with the token it was read with: a server that echoes the token in a device
// name must not hand it to a reader.
import { createHash } from "node:crypto";
import type { NodeAPI } from "node-red";
import type { NextFunction, Request, Response } from "express";
import type { AccountSettings } from "../lib/api/account-settings";
import { EdgeClient } from "../lib/api/client";
import { EdgeError } from "../lib/api/errors";
import { RateLimiter } from "../lib/api/rate-limiter";
import type { AccountNode } from "../lib/account/lookup";
import { errorText } from "../lib/node-red/i18n";
import type { Translate } from "../lib/node-red/i18n";
import { editorPost } from "./admin-guard";
import { settingsOf } from "./settings";
import { UNCHANGED_PASSWORD } from "./test-connection";

const PAGE = 100;
/** Pages read per request: past PAGE x MAX_PAGES objects the user narrows the search instead. */
const MAX_PAGES = 10;
const MAX_ITEMS = 50;
const CACHE_MS = 30_000;
const MAX_CACHED = 200;
/**
 * Reads with typed values: two at once, eight more waiting at most TYPED_WAIT_MS, any more are
 * answered "busy" at once. A picker asks again as the user types, so a short wait is enough.
 */
const TYPED_LIMIT = { perSecond: 0, concurrent: 2, queueMax: 8 } as const;
const TYPED_WAIT_MS = 20_000;

export interface PickerItem {
  /** What the field gets: a device name, or a stream path. */
  value: string;
  /** Shown beside it: a device's id, a stream's id when listed. */
  detail?: string;
}

export interface PickerAnswer {
  items?: PickerItem[];
  /** More matched than are shown, or the scan stopped before the end of the list. */
  truncated?: boolean;
  /** The server does not list devices (404/405): type an id or a name. */
  unsupported?: boolean;
  /** Neither deployed nor typed credentials to read with. */
  needsDeploy?: boolean;
  /** `host:port` of the proxy the list was read through (never its credentials). */
  proxy?: string;
  error?: string;
}

interface Listed {
  objects: Record<string, unknown>[];
  unsupported: boolean;
}

const cache = new Map<string, { at: number; page: Promise<Listed> }>();
const typedGate = new RateLimiter(TYPED_LIMIT);
const clientKeys = new WeakMap<EdgeClient, string>();
let clients = 0;

function keyOf(client: EdgeClient): string {
  let key = clientKeys.get(client);
  if (key === undefined) {
    key = `c${++clients}`;
    clientKeys.set(client, key);
  }
  return key;
}

/**
 * The cache key of typed values: a hash of every setting the client is made from (URL, company,
 * user, token, the TLS node's options with its certificates), so two reads share a page only when
 * they would send the same request over the same kind of connection.
 */
function settingsKey(settings: AccountSettings): string {
  return createHash("sha256").update(JSON.stringify(settings)).digest("hex");
}

/** The token of values typed in the dialog and not deployed yet, or undefined. */
function typedToken(body: Record<string, unknown>): string | undefined {
  const typed = body.typed;
  if (typeof typed !== "object" || typed === null) return undefined;
  const token = (typed as Record<string, unknown>).token;
  return typeof token === "string" && token && token !== UNCHANGED_PASSWORD ? token : undefined;
}

function unsupported(err: unknown): boolean {
  return err instanceof EdgeError && (err.status === 404 || err.status === 405);
}

/** One page of a list, from the cache when it is fresh; a 404/405 answer is remembered too. */
function page(
  client: EdgeClient,
  key: string,
  resource: "device" | "stream",
  start: number,
): Promise<Listed> {
  const id = `${key} ${resource} ${start}`;
  const now = performance.now();
  const hit = cache.get(id);
  if (hit && now - hit.at < CACHE_MS) return hit.page;
  const only = "id,name,path";
  const listed = client
    .list(resource, { limit: PAGE, start, only }, { retries: 0 })
    .then((objects) => ({ objects, unsupported: false }))
    .catch((err: unknown) => {
      if (unsupported(err)) return { objects: [], unsupported: true };
      cache.delete(id);
      throw err;
    });
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(id, { at: now, page: listed });
  return listed;
}

/** Walks the list a page at a time, keeping what `pick` makes of each object. */
async function scan(
  client: EdgeClient,
  key: string,
  resource: "device" | "stream",
  pick: (o: Record<string, unknown>) => PickerItem[],
): Promise<{ items: PickerItem[]; truncated: boolean; unsupported: boolean }> {
  const items: PickerItem[] = [];
  for (let n = 0; n < MAX_PAGES; n++) {
    const listed = await page(client, key, resource, n * PAGE);
    if (listed.unsupported) return { items, truncated: false, unsupported: true };
    for (const o of listed.objects) {
      for (const item of pick(o)) {
        if (items.length >= MAX_ITEMS) return { items, truncated: true, unsupported: false };
        if (!items.some((i) => i.value === item.value)) items.push(item);
      }
    }
    if (listed.objects.length < PAGE) return { items, truncated: false, unsupported: false };
  }
  return { items, truncated: true, unsupported: false };
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** A device's own :command or :inbox stream, listed after the data streams. */
const DEVICE_STREAM = /\/devices\/[^/]+\/:(command|inbox)$/;

export async function listFor(
  client: EdgeClient,
  key: string,
  kind: string,
  search: string,
  stream: string,
): Promise<PickerAnswer> {
  // Redacted before the search too: whether a search matched must not tell pieces of the token.
  const shown = (v: unknown): string => client.redact(typeof v === "string" ? v : "");
  const nameOf = (device: Record<string, unknown>): string =>
    shown(device.name) || shown(device.path).split("/").at(-1) || "";
  const wanted = search.trim().toLowerCase();
  const matches = (...texts: string[]): boolean =>
    !wanted || texts.some((text) => text.toLowerCase().includes(wanted));
  if (kind === "devices") {
    const found = await scan(client, key, "device", (d) => {
      const name = nameOf(d);
      return name && matches(name, shown(d.id)) ? [{ value: name, detail: shown(d.id) }] : [];
    });
    return found.unsupported ? { unsupported: true } : found;
  }
  // Streams: the data streams the server lists first, then the :command and :inbox of every
  // matching device (every device has both); `stream` keeps only one of the two device streams.
  // Device streams came first until issue 37: 15 devices put 30 of them above the two data
  // streams a Stream field wants.
  const suffixes = stream === ":command" || stream === ":inbox" ? [stream] : [":command", ":inbox"];
  const devices = await scan(client, key, "device", (d) => {
    const name = nameOf(d);
    if (!name) return [];
    const paths = suffixes.map((s) => `/${client.company}/devices/${name}/${s}`);
    return paths.filter((p) => matches(p, shown(d.id))).map((value) => ({ value }));
  });
  if (suffixes.length === 1) return devices.unsupported ? { unsupported: true } : devices;
  // The server's list holds the device streams too: they only lend their ids to the devices'
  // entries, so that they do not take the room of the data streams.
  const ids = new Map<string, string>();
  const streams = await scan(client, key, "stream", (s) => {
    const path = shown(s.path);
    if (!path || !matches(path, shown(s.id))) return [];
    if (DEVICE_STREAM.test(path)) {
      ids.set(path, shown(s.id));
      return [];
    }
    return [{ value: path, detail: shown(s.id) }];
  });
  if (devices.unsupported && streams.unsupported) return { unsupported: true };
  // A server that lists no devices still names their streams in its stream list.
  const deviceItems = devices.unsupported
    ? [...ids].map(([value, detail]) => ({ value, detail }))
    : devices.items.map((item) => {
        const detail = ids.get(item.value);
        return detail ? { ...item, detail } : item;
      });
  const all = [...streams.items, ...deviceItems];
  const items = all.slice(0, MAX_ITEMS);
  const truncated = devices.truncated || streams.truncated || all.length > items.length;
  return { items, truncated };
}

/** The answer, saying which proxy it was read through when there was one. */
function viaProxy(client: EdgeClient, answer: PickerAnswer): PickerAnswer {
  return client.proxyHost ? { ...answer, proxy: client.proxyHost } : answer;
}

export function registerDirectory(RED: NodeAPI, t: Translate): void {
  const mayWrite = RED.auth.needsPermission("edge-account.write");
  editorPost(
    RED,
    t,
    "/edge-account/directory",
    "edge-account.read",
    (fields, res) => {
      void answer(fields).then((a) => res.json(a));
    },
    // Typed values send credentials and a TLS node's certificate where the caller says: only a
    // user who may change the account may do that (Node-RED answers 401 to anyone else).
    (req: Request, res: Response, next: NextFunction) => {
      const body: unknown = req.body;
      if (typeof body === "object" && body !== null && typedToken(body as Record<string, unknown>))
        mayWrite(req, res, next);
      else next();
    },
  );

  async function answer(body: Record<string, unknown>): Promise<PickerAnswer> {
    const kind = str(body.kind) === "streams" ? "streams" : "devices";
    const search = str(body.search).slice(0, 200);
    const stream = str(body.stream);
    const token = typedToken(body);
    try {
      if (token)
        return await withTyped(body.typed as Record<string, unknown>, token, kind, search, stream);
      // A stored token only ever goes to the deployed account's own URL.
      const id = str(body.account);
      const node = id ? (RED.nodes.getNode(id) as AccountNode | null) : null;
      if (node?.type !== "edge-account" || !node.services) return { needsDeploy: true };
      const client = node.services.client;
      return viaProxy(client, await listFor(client, keyOf(client), kind, search, stream));
    } catch (err) {
      const e =
        err instanceof EdgeError ? err : new EdgeError("bad-config", { detail: String(err) });
      return { error: errorText(t, e) };
    }
  }

  /** Values typed in the account's dialog and not deployed yet: its own token goes with them. */
  async function withTyped(
    typed: Record<string, unknown>,
    token: string,
    kind: string,
    search: string,
    stream: string,
  ): Promise<PickerAnswer> {
    let release: () => void;
    try {
      release =
        typedGate.tryAcquire() ?? (await typedGate.acquire(AbortSignal.timeout(TYPED_WAIT_MS)));
    } catch {
      return { error: t("edge-account.directory.busy") };
    }
    let client: EdgeClient | undefined;
    try {
      const def = {
        baseUrl: str(typed.baseUrl),
        company: str(typed.company),
        useTls: typed.useTls === true,
        tls: str(typed.tls),
        proxy: str(typed.proxy),
      };
      const settings = settingsOf(RED, def, { user: str(typed.user), token });
      client = new EdgeClient({
        ...settings,
        retry: { retries: 0 },
        // One connection: a scan reads one page at a time.
        rateLimit: { ...settings.rateLimit, concurrent: 1 },
      });
      return viaProxy(client, await listFor(client, settingsKey(settings), kind, search, stream));
    } finally {
      await client?.close();
      release();
    }
  }
}
