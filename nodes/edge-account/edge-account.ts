// The config node: base URL, company and credentials, and the one EdgeClient (connection pool,
// rate limit) plus the per-device merge queue that every node using this account shares. It also
// serves the editor's "Test connection" button.
import type { NodeAPI, NodeDef } from "node-red";
import type { Request, Response } from "express";
import { EdgeClient } from "../lib/api/client";
import type { AccountSettings } from "../lib/api/client";
import { EdgeError } from "../lib/api/errors";
import type { TlsOptions } from "../lib/api/transport";
import { KeyedQueue } from "../lib/account/keyed-queue";
import { InboxPoller } from "../lib/commands/inbox-poller";
import { DeviceNames } from "../lib/device/names";
import type { AccountNode } from "../lib/account/lookup";
import { describe, translator } from "../lib/node-red/i18n";

interface AccountDef extends NodeDef {
  baseUrl: string;
  company: string;
  timeout?: number | string;
  retries?: number | string;
  rate?: number | string;
  concurrency?: number | string;
  queue?: number | string;
  maxPayload?: number | string;
  useTls?: boolean;
  tls?: string;
}

interface Credentials {
  user?: string;
  token?: string;
}

interface TlsConfigNode {
  addTLSOptions(options: TlsOptions): void;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The editor keeps this in a password field whose stored value it never received. */
const UNCHANGED_PASSWORD = "__PWRD__";

/** A number setting from the editor, or its default when blank or not a whole number >= min. */
function setting(value: number | string | undefined, fallback: number, min = 0): number {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= min ? n : fallback;
}

function settingsOf(RED: NodeAPI, def: Partial<AccountDef>, creds: Credentials): AccountSettings {
  let tls: TlsOptions | undefined;
  if (def.useTls && def.tls) {
    const tlsNode = RED.nodes.getNode(def.tls) as unknown as TlsConfigNode | null;
    if (!tlsNode)
      throw new EdgeError("bad-config", { detail: "the TLS configuration node is missing" });
    tls = {};
    tlsNode.addTLSOptions(tls);
  }
  return {
    baseUrl: def.baseUrl ?? "",
    company: def.company ?? "",
    user: creds.user,
    token: creds.token ?? "",
    timeoutMs: setting(def.timeout, 10_000, 1),
    retry: { retries: setting(def.retries, 3) },
    rateLimit: {
      perSecond: setting(def.rate, 20),
      concurrent: setting(def.concurrency, 8, 1),
      queueMax: setting(def.queue, 1000),
    },
    maxPayloadBytes: setting(def.maxPayload, 256 * 1024, 1),
    tls,
  };
}

export = function (RED: NodeAPI): void {
  const t = translator(RED, "edge-account");

  function EdgeAccountNode(this: AccountNode, def: AccountDef) {
    RED.nodes.createNode(this, def);
    this.name = def.name;
    const self = this as Mutable<AccountNode>;
    self.serial = new KeyedQueue();
    try {
      self.client = new EdgeClient(settingsOf(RED, def, this.credentials));
      self.poller = new InboxPoller(self.client);
      self.names = new DeviceNames(self.client);
    } catch (err) {
      self.configError =
        err instanceof EdgeError ? err : new EdgeError("bad-config", { detail: String(err) });
      this.error(describe(t, self.configError));
    }
    this.on("close", (_removed: boolean, done: () => void) => {
      self.poller?.close();
      void (self.client?.close() ?? Promise.resolve()).then(() => {
        done();
      });
    });
  }

  RED.nodes.registerType<AccountNode, AccountDef, unknown, Credentials>(
    "edge-account",
    EdgeAccountNode,
    {
      credentials: { user: { type: "text" }, token: { type: "password" } },
    },
  );

  // The editor's "Test connection": typed values win, and missing or unchanged credentials are
  // taken from the deployed node. It needs write permission because it sends the stored token to
  // the URL given in the request.
  RED.httpAdmin.post(
    "/edge-account/test",
    RED.auth.needsPermission("edge-account.write"),
    (req: Request, res: Response) => {
      void testConnection(RED, req.body as Record<string, unknown>).then((answer) =>
        res.json(answer),
      );
    },
  );

  async function testConnection(RED: NodeAPI, body: Record<string, unknown>) {
    const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
    const id = str(body.id);
    const stored =
      (id ? (RED.nodes.getCredentials(id) as Credentials | undefined) : undefined) ?? {};
    const typedToken = str(body.token);
    const creds: Credentials = {
      user: str(body.user) ?? stored.user,
      token: typedToken && typedToken !== UNCHANGED_PASSWORD ? typedToken : stored.token,
    };
    const def: Partial<AccountDef> = {
      baseUrl: str(body.baseUrl),
      company: str(body.company),
      timeout: str(body.timeout),
      // The TLS configuration is a deployed tls-config node, referred to by id.
      useTls: body.useTls === true,
      tls: str(body.tls),
    };
    const started = performance.now();
    let client: EdgeClient | undefined;
    try {
      client = new EdgeClient({ ...settingsOf(RED, def, creds), retry: { retries: 0 } });
      await probe(client);
      const ms = Math.round(performance.now() - started);
      return { ok: true, ms, message: t("edge-account.test.ok", { company: client.company, ms }) };
    } catch (err) {
      const e =
        err instanceof EdgeError
          ? err
          : new EdgeError("network", { origin: "?", detail: String(err) });
      return {
        ok: false,
        code: e.code,
        status: e.status,
        message: t("edge-account.test.failed", { message: describe(t, e) }),
      };
    } finally {
      await client?.close();
    }
  }
};

/**
 * The cheapest request that proves the URL and the credentials: one event of a stream id that
 * cannot exist. Past authentication the server answers 404 in its envelope (or an empty list);
 * bad credentials answer 401/403, a wrong URL anything but an envelope.
 */
async function probe(client: EdgeClient): Promise<void> {
  try {
    await client.listEvents("s000000000000000000000000", { limit: 1 });
  } catch (err) {
    if (err instanceof EdgeError && err.code === "not-found") return;
    throw err;
  }
}
