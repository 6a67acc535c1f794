// The editor's "edge devices" sidebar (resources/edge-sidebar.js): what each deployed account has
// in flight. GET /edge-account/sidebar answers the first snapshot; while an editor has the tab
// open it POSTs /edge-account/sidebar/subscribe every few seconds, and for as long as those come
// the runtime publishes the snapshot over the editor's comms (TOPIC, to the connections of users
// who may read it: sidebar-readers.ts) when it changed, at most every PUBLISH_MS. Without a
// subscriber no timer runs and nothing is built. POST /edge-account/sidebar/cancel ends one wait,
// or all of a device's, as msg.reset would.
//
// Reading needs edge-account.read, cancelling edge-account.write; both POSTs take JSON from the
// editor's own pages only (admin-guard.ts). A snapshot holds counts, dates, codes and node ids:
// no token, credential or message contents beyond a command's elems, shortened and redacted with
// the account's token. Its size is bounded (in-flight.ts, stream-watcher.ts) however many waits.
import type { NodeAPI } from "node-red";
import type { Request, Response } from "express";
import { cancelWaits, pendingOf } from "../lib/account/in-flight";
import type { PendingList } from "../lib/account/in-flight";
import type { HealthView } from "../lib/account/health";
import type { AccountNode } from "../lib/account/lookup";
import type { WatchView } from "../lib/events/stream-watcher";
import type { Translate } from "../lib/node-red/i18n";
import { editorOnly } from "./admin-guard";
import { sidebarReadersOf } from "./sidebar-readers";

/** The comms topic the sidebar subscribes to: the package's own. */
export const TOPIC = "edgewire/sidebar";
/** Publishes at most this often (a few times a second). */
const PUBLISH_MS = 500;
/** Publishing stops this long after the last subscribe (the editor repeats it every 5 s). */
const HEARTBEAT_MS = 15_000;
/** Accounts listed. */
const MAX_ACCOUNTS = 50;

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
  /** edge-fleet-command does not exist yet: no fleet jobs to list. */
  fleet: null;
}

export interface Snapshot {
  at: number;
  accounts: AccountSnapshot[];
}

/** Stream paths are the user's, but a token typed into one must not reach a reader either. */
function watchesOf(
  list: { total: number; rows: WatchView[] },
  redact: (text: string) => string,
): { total: number; rows: WatchView[] } {
  return { total: list.total, rows: list.rows.map((w) => ({ ...w, stream: redact(w.stream) })) };
}

function accountSnapshot(node: AccountNode): AccountSnapshot {
  const base = { id: node.id, name: node.name ?? "", fleet: null };
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
    pending: pendingOf(node.id, redact),
    watches: watchesOf(services.watcher.list(), redact),
  };
}

export function registerSidebar(RED: NodeAPI, t: Translate): void {
  const readers = sidebarReadersOf(RED);
  let lastBeat = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let published = "";

  function snapshot(): Snapshot {
    const accounts: AccountSnapshot[] = [];
    RED.nodes.eachNode((def) => {
      if (def.type !== "edge-account" || accounts.length >= MAX_ACCOUNTS) return;
      const node = RED.nodes.getNode(def.id) as AccountNode | null;
      if (node) accounts.push(accountSnapshot(node));
    });
    return { at: Date.now(), accounts };
  }

  function tick(): void {
    if (performance.now() - lastBeat > HEARTBEAT_MS) {
      clearInterval(timer);
      timer = undefined;
      published = "";
      return;
    }
    // Nobody connected who may read it: nothing to build.
    if (readers.size === 0) return;
    const snap = snapshot();
    // Unchanged but for its time: not sent again (the editor counts ages itself).
    const text = JSON.stringify(snap.accounts);
    if (text === published) return;
    published = text;
    readers.publish(TOPIC, snap);
  }

  const mayRead = RED.auth.needsPermission("edge-account.read");
  RED.httpAdmin.get("/edge-account/sidebar", mayRead, (_req: Request, res: Response) => {
    res.json(snapshot());
  });

  RED.httpAdmin.post(
    "/edge-account/sidebar/subscribe",
    mayRead,
    editorOnly(t),
    (_req: Request, res: Response) => {
      lastBeat = performance.now();
      if (timer === undefined) {
        // A new subscriber gets the next change even when it equals what was sent before.
        published = "";
        timer = setInterval(tick, PUBLISH_MS).unref();
      }
      res.json({ ok: true, topic: TOPIC, heartbeatMs: HEARTBEAT_MS });
    },
  );

  RED.httpAdmin.post(
    "/edge-account/sidebar/cancel",
    RED.auth.needsPermission("edge-account.write"),
    editorOnly(t),
    (req: Request, res: Response) => {
      const body: unknown = req.body;
      const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
      const account = typeof b.account === "string" ? b.account : "";
      const wait = typeof b.wait === "string" ? b.wait : undefined;
      const device = typeof b.device === "string" ? b.device : undefined;
      const node = account ? (RED.nodes.getNode(account) as AccountNode | null) : null;
      if (node?.type !== "edge-account" || (wait === undefined && device === undefined)) {
        res.status(400).json({ ok: false, cancelled: 0 });
        return;
      }
      const redact = (text: string): string => node.services?.client.redact(text) ?? text;
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
      published = "";
      res.json({ ok: true, cancelled });
    },
  );
}
