// The editor's device and stream pickers: an admin route that lists an account's devices, or the
// streams of its devices, for the Device, Stream and Inbox fields of every node. It reads with the
// deployed account (its client, so the account's rate limit holds) or, while the account is being
// edited and its token typed, with the typed values. Lists come from the hosted service's
// `GET /device` and `GET /stream` (docs/api-notes.md, Fall-backs), a page of PAGE at a time, cached for
// CACHE_MS; a server answering 404 or 405 there lists nothing and the picker says so.
import { createHash } from "node:crypto";
import type { NodeAPI } from "node-red";
import type { Request, Response } from "express";
import { EdgeClient } from "../lib/api/client";
import { EdgeError } from "../lib/api/errors";
import type { AccountNode } from "../lib/account/lookup";
import { errorText } from "../lib/node-red/i18n";
import type { Translate } from "../lib/node-red/i18n";
import { settingsOf } from "./settings";
import { UNCHANGED_PASSWORD } from "./test-connection";

const PAGE = 100;
/** Pages read per request: past PAGE x MAX_PAGES objects the user narrows the search instead. */
const MAX_PAGES = 10;
const MAX_ITEMS = 50;
const CACHE_MS = 30_000;
const MAX_CACHED = 200;

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
  error?: string;
}

interface Listed {
  objects: Record<string, unknown>[];
  unsupported: boolean;
}

const cache = new Map<string, { at: number; page: Promise<Listed> }>();
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

function nameOf(device: Record<string, unknown>): string {
  return str(device.name) || str(device.path).split("/").at(-1) || "";
}

export async function listFor(
  client: EdgeClient,
  key: string,
  kind: string,
  search: string,
  stream: string,
): Promise<PickerAnswer> {
  const wanted = search.trim().toLowerCase();
  const matches = (...texts: string[]): boolean =>
    !wanted || texts.some((text) => text.toLowerCase().includes(wanted));
  if (kind === "devices") {
    const found = await scan(client, key, "device", (d) => {
      const name = nameOf(d);
      return name && matches(name, str(d.id)) ? [{ value: name, detail: str(d.id) }] : [];
    });
    return found.unsupported ? { unsupported: true } : found;
  }
  // Streams: the :command and :inbox of every matching device (every device has both), then
  // any other stream the server lists; `stream` keeps only one of the two device streams.
  const suffixes = stream === ":command" || stream === ":inbox" ? [stream] : [":command", ":inbox"];
  const devices = await scan(client, key, "device", (d) => {
    const name = nameOf(d);
    if (!name) return [];
    const paths = suffixes.map((s) => `/${client.company}/devices/${name}/${s}`);
    return paths.filter((p) => matches(p, str(d.id))).map((value) => ({ value }));
  });
  if (suffixes.length === 1) return devices.unsupported ? { unsupported: true } : devices;
  const streams = await scan(client, key, "stream", (s) => {
    const path = str(s.path);
    return path && matches(path, str(s.id)) ? [{ value: path, detail: str(s.id) }] : [];
  });
  if (devices.unsupported && streams.unsupported) return { unsupported: true };
  const items = [...devices.items];
  for (const item of streams.items) {
    const known = items.find((i) => i.value === item.value);
    if (known) known.detail = item.detail;
    else if (items.length < MAX_ITEMS) items.push(item);
  }
  return { items, truncated: devices.truncated || streams.truncated };
}

export function registerDirectory(RED: NodeAPI, t: Translate): void {
  RED.httpAdmin.post(
    "/edge-account/directory",
    RED.auth.needsPermission("edge-account.read"),
    (req: Request, res: Response) => {
      void answer(req.body as Record<string, unknown>).then((a) => res.json(a));
    },
  );

  async function answer(body: Record<string, unknown>): Promise<PickerAnswer> {
    const kind = str(body.kind) === "streams" ? "streams" : "devices";
    const search = str(body.search).slice(0, 200);
    const stream = str(body.stream);
    const typed = (body.typed ?? {}) as Record<string, unknown>;
    const token = str(typed.token);
    let temporary: EdgeClient | undefined;
    try {
      let client: EdgeClient;
      let key: string;
      if (token && token !== UNCHANGED_PASSWORD) {
        // Values typed in the account's dialog and not deployed yet: its own token goes with them.
        const def = {
          baseUrl: str(typed.baseUrl),
          company: str(typed.company),
          useTls: typed.useTls === true,
          tls: str(typed.tls),
        };
        temporary = new EdgeClient({
          ...settingsOf(RED, def, { user: str(typed.user), token }),
          retry: { retries: 0 },
        });
        client = temporary;
        key = createHash("sha256")
          .update([def.baseUrl, def.company, str(typed.user), token].join("\n"))
          .digest("hex");
      } else {
        // A stored token only ever goes to the deployed account's own URL.
        const id = str(body.account);
        const node = id ? (RED.nodes.getNode(id) as AccountNode | null) : null;
        if (!node?.services) return { needsDeploy: true };
        client = node.services.client;
        key = keyOf(client);
      }
      return await listFor(client, key, kind, search, stream);
    } catch (err) {
      const e =
        err instanceof EdgeError ? err : new EdgeError("bad-config", { detail: String(err) });
      return { error: errorText(t, e) };
    } finally {
      await temporary?.close();
    }
  }
}
