// The editor's "edge devices" sidebar (resources/edge-sidebar.js): what each deployed account has
// in flight. GET /edge-account/sidebar answers a snapshot; while an editor has the tab open it
// POSTs /edge-account/sidebar/subscribe every few seconds with the page of pending waits it shows
// per account, and for as long as those come the runtime publishes the snapshot of each page asked
// over the editor's comms (TOPIC, to the connections of users who may read it:
// sidebar-readers.ts) when it changed, at most every PUBLISH_MS. Without a subscriber no timer runs
// and nothing is built. POST /edge-account/sidebar/cancel ends one wait, or all of a device's, with
// the error `cancelled`, or a fleet job as msg.cancel would (its report says cancelled): either
// way the message ends once, as the README promises.
//
// Reading needs edge-account.read, cancelling edge-account.write; both POSTs take JSON from the
// editor's own pages only (admin-guard.ts). A snapshot holds counts, dates, codes and node ids:
// no token, credential or message contents beyond a command's elems, shortened and redacted with
// the account's token. Its size is bounded (in-flight.ts, stream-watcher.ts) however many waits.
import type { NodeAPI } from "node-red";
import type { Request, Response } from "express";
import { cancelWaits, forgetPending, pendingOf } from "../lib/account/in-flight";
import type { PendingList } from "../lib/account/in-flight";
import { cancelJob, jobsOf } from "../lib/account/jobs";
import type { JobList } from "../lib/account/jobs";
import type { HealthView } from "../lib/account/health";
import type { AccountNode } from "../lib/account/lookup";
import type { WatchView } from "../lib/events/stream-watcher";
import type { Translate } from "../lib/node-red/i18n";
import { editorPost } from "./admin-guard";
import { sidebarReadersOf } from "./sidebar-readers";

/** The comms topic the sidebar subscribes to: the package's own. */
export const TOPIC = "edgewire/sidebar";
/** Publishes at most this often (a few times a second). */
const PUBLISH_MS = 500;
/** Publishing stops this long after the last subscribe (the editor repeats it every 5 s). */
const HEARTBEAT_MS = 15_000;
/** Accounts listed. */
const MAX_ACCOUNTS = 50;
/**
 * Editors remembered with the pages they show, the most recent subscribes; each page asked is one
 * snapshot built and published per change, so this bounds the work of the open tabs.
 */
const MAX_CLIENTS = 20;
/** Longest client id (the editor makes one of 16 per page load) or account id taken. */
const ID_CHARS = 64;

/** The offset of the page of pending waits shown, per account id; 0 (the oldest) when absent. */
type Pages = ReadonlyMap<string, number>;

interface Client {
  pages: Pages;
  /** The pages as one string: editors showing the same pages share the snapshots published. */
  view: string;
  beat: number;
}

export interface AccountSnapshot {
  id: string;
  name: string;
  /** The code of the configuration error, when the account could not start. */
  configError?: string;
  health?: HealthView & {
    limit: number;
    inFlight: number;
    concurrent: number;
    queued: number;
    queueMax: number;
  };
  pending?: PendingList;
  watches?: { total: number; rows: WatchView[] };
  /** The running and lately ended jobs of its edge-fleet-command nodes. */
  jobs?: JobList;
}

export interface Snapshot {
  at: number;
  /** The pages the snapshot lists (viewOf): an editor takes the published ones of its own. */
  view: string;
  accounts: AccountSnapshot[];
}

/** The offsets asked, from a body or a query: account id to a whole number, at most one each. */
function pagesOf(value: unknown): Pages {
  const pages = new Map<string, number>();
  if (typeof value !== "object" || value === null) return pages;
  const asked = value as Record<string, unknown>;
  // The first MAX_ACCOUNTS keys only, without listing all of a body's keys first.
  let seen = 0;
  for (const id in asked) {
    if (!Object.hasOwn(asked, id)) continue;
    if (++seen > MAX_ACCOUNTS) break;
    // Node ids are 16 characters: a longer key names no account, and the view would carry it.
    if (id.length > ID_CHARS) continue;
    const offset = asked[id];
    const n = typeof offset === "string" ? Number(offset) : offset;
    if (typeof n === "number" && Number.isFinite(n) && n >= 1) pages.set(id, Math.floor(n));
  }
  return pages;
}

/** The same string for the same pages, whatever the order they came in. */
function viewOf(pages: Pages): string {
  return JSON.stringify([...pages].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

/** Stream paths are the user's, but a token typed into one must not reach a reader either. */
function watchesOf(
  list: { total: number; rows: WatchView[] },
  redact: (text: string) => string,
): { total: number; rows: WatchView[] } {
  return { total: list.total, rows: list.rows.map((w) => ({ ...w, stream: redact(w.stream) })) };
}

function accountSnapshot(node: AccountNode, offset: number): AccountSnapshot {
  const base = { id: node.id, name: node.name ?? "" };
  const services = node.services;
  if (!services) return { ...base, configError: node.configError?.code ?? "bad-config" };
  const { client } = services;
  const redact = (text: string): string => client.redact(text);
  const limits = client.limiter.limits;
  return {
    ...base,
    health: {
      ...services.health.view(),
      limit: limits.perSecond,
      inFlight: client.limiter.running,
      concurrent: limits.concurrent,
      queued: client.limiter.queued,
      queueMax: limits.queueMax,
    },
    pending: pendingOf(node.id, redact, offset),
    watches: watchesOf(services.watcher.list(), redact),
    jobs: jobsOf(node.id, redact),
  };
}

export function registerSidebar(RED: NodeAPI, t: Translate): void {
  const readers = sidebarReadersOf(RED);
  /** By client id, the least recently subscribed first. */
  const clients = new Map<string, Client>();
  let timer: NodeJS.Timeout | undefined;
  /** The JSON last published of each view. */
  const published = new Map<string, string>();

  function snapshot(pages: Pages): Snapshot {
    const accounts: AccountSnapshot[] = [];
    RED.nodes.eachNode((def) => {
      if (def.type !== "edge-account" || accounts.length >= MAX_ACCOUNTS) return;
      const node = RED.nodes.getNode(def.id) as AccountNode | null;
      if (node) accounts.push(accountSnapshot(node, pages.get(def.id) ?? 0));
    });
    return { at: Date.now(), view: viewOf(pages), accounts };
  }

  /** The ordered waits are kept for the next tick only while one runs. */
  function answered(): void {
    if (timer === undefined) forgetPending();
  }

  function tick(): void {
    const now = performance.now();
    for (const [id, client] of clients) if (now - client.beat > HEARTBEAT_MS) clients.delete(id);
    if (clients.size === 0) {
      clearInterval(timer);
      timer = undefined;
      published.clear();
      forgetPending();
      return;
    }
    // Nobody connected who may read it: nothing to build.
    if (readers.size === 0) return;
    const views = new Map<string, Pages>();
    for (const client of clients.values()) views.set(client.view, client.pages);
    for (const view of published.keys()) if (!views.has(view)) published.delete(view);
    for (const [view, pages] of views) {
      const snap = snapshot(pages);
      // Unchanged but for its time: not sent again (the editor counts ages itself).
      const text = JSON.stringify(snap.accounts);
      if (published.get(view) === text) continue;
      published.set(view, text);
      readers.publish(TOPIC, snap);
    }
  }

  const mayRead = RED.auth.needsPermission("edge-account.read");
  // ?account=<id>&offset=<n>: that account's waits from the nth oldest; the others' from the first.
  RED.httpAdmin.get("/edge-account/sidebar", mayRead, (req: Request, res: Response) => {
    const { account, offset } = req.query;
    res.json(snapshot(pagesOf(typeof account === "string" ? { [account]: offset } : undefined)));
    answered();
  });

  // Body: { client: "<id of the editor page>", pages: { "<account id>": <offset> }, snapshot }.
  editorPost(RED, t, "/edge-account/sidebar/subscribe", "edge-account.read", (b, res) => {
    const id = typeof b.client === "string" ? b.client.slice(0, ID_CHARS) : "";
    const pages = pagesOf(b.pages);
    const view = viewOf(pages);
    // Taken out and put back: the Map's order is the order of the last subscribes.
    clients.delete(id);
    clients.set(id, { pages, view, beat: performance.now() });
    for (const old of clients.keys()) {
      if (clients.size <= MAX_CLIENTS) break;
      clients.delete(old);
    }
    if (timer === undefined) {
      // A new subscriber gets the next change even when it equals what was sent before.
      published.clear();
      timer = setInterval(tick, PUBLISH_MS).unref();
    }
    // A page turned: its rows now, not at the next change.
    const snap = b.snapshot === true ? { snapshot: snapshot(pages) } : {};
    res.json({ ok: true, topic: TOPIC, heartbeatMs: HEARTBEAT_MS, view, ...snap });
  });

  editorPost(RED, t, "/edge-account/sidebar/cancel", "edge-account.write", (b, res) => {
    const account = typeof b.account === "string" ? b.account : "";
    const wait = typeof b.wait === "string" ? b.wait : undefined;
    const device = typeof b.device === "string" ? b.device : undefined;
    const job = typeof b.job === "string" ? b.job : undefined;
    const node = account ? (RED.nodes.getNode(account) as AccountNode | null) : null;
    if (
      node?.type !== "edge-account" ||
      (wait === undefined && device === undefined && job === undefined)
    ) {
      res.status(400).json({ ok: false, cancelled: 0 });
      return;
    }
    const redact = (text: string): string => node.services?.client.redact(text) ?? text;
    if (job !== undefined) {
      const cancelled = cancelJob(account, job, (name) =>
        t("edge-account.sidebar.cancelledJob", { job: redact(name) }),
      );
      published.clear();
      res.json({ ok: true, cancelled });
      return;
    }
    const cancelled = cancelWaits(
      account,
      (id, view) => (wait !== undefined ? id === wait : redact(view.device) === device),
      (view) =>
        t("edge-account.sidebar.cancelled", {
          device: redact(view.device),
          command: redact(view.commandId ?? "-"),
        }),
    );
    // The next tick publishes the list without them.
    published.clear();
    res.json({ ok: true, cancelled });
  });
}
