// The editor's "Test connection" button: an admin route that tries the account's URL and
// credentials with the cheapest request, and answers the API's own error text when they fail.
import type { NodeAPI } from "node-red";
import type { Request, Response } from "express";
import { EdgeClient } from "../lib/api/client";
import { EdgeError } from "../lib/api/errors";
import { describe } from "../lib/node-red/i18n";
import type { Translate } from "../lib/node-red/i18n";
import { settingsOf } from "./settings";
import type { AccountDef, Credentials } from "./settings";

/** The editor keeps this in a password field whose stored value it never received. */
const UNCHANGED_PASSWORD = "__PWRD__";

export function registerTestConnection(RED: NodeAPI, t: Translate): void {
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
}

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
