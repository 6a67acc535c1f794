// The editor's "Test connection" button: an admin route that tries the account's URL and
// credentials with the cheapest request, and answers the API's own error text when they fail.
//
// Node-RED runs without adminAuth by default, and then any web page the user visits can POST to
// this route: a form or a text/plain body needs no CORS preflight. So the route takes only
// application/json bodies (which a browser sends cross-site only after a preflight that
// Node-RED does not grant), refuses a foreign Origin, and sends a stored token only to the base
// URL its account was deployed with: to try another URL, the token must be typed.
import type { NodeAPI } from "node-red";
import type { Request, Response } from "express";
import { parseBaseUrl } from "../lib/api/account-settings";
import { EdgeClient } from "../lib/api/client";
import { EdgeError } from "../lib/api/errors";
import { errorText } from "../lib/node-red/i18n";
import type { Translate } from "../lib/node-red/i18n";
import { settingsOf } from "./settings";
import type { AccountDef, Credentials, DeployedAccount } from "./settings";

/** The editor keeps this in a password field whose stored value it never received. */
export const UNCHANGED_PASSWORD = "__PWRD__";

interface Answer {
  ok: boolean;
  message: string;
  code?: string;
  status?: number;
  ms?: number;
  /** For the editor to write the sentence in the browser's language. */
  company?: string;
  params?: Record<string, string | number>;
}

/** Whether the request comes from a page of another site than the editor's. */
function foreignOrigin(req: Request): boolean {
  const origin = req.headers.origin;
  // Browsers send Origin with every POST; tools such as curl send none and are not the threat.
  if (origin === undefined) return false;
  const forwarded = req.headers["x-forwarded-host"];
  const hosts = [req.headers.host, ...(typeof forwarded === "string" ? forwarded.split(",") : [])]
    .filter((h): h is string => typeof h === "string")
    .map((h) => h.trim().toLowerCase());
  try {
    return !hosts.includes(new URL(origin).host.toLowerCase());
  } catch {
    // "null" (a sandboxed frame, a file) and anything unparsable.
    return true;
  }
}

/**
 * A property as the deployed node sees it: Node-RED replaces a whole `${NAME}` with the
 * environment variable when it starts the flow, and the dialog sends the text as typed.
 */
function fromEnv(value: string | undefined): string | undefined {
  const name = value === undefined ? undefined : /^\s*\$\{(\w+)\}\s*$/.exec(value)?.[1];
  return name === undefined ? value : (process.env[name] ?? "");
}

/** The same origin and path prefix, however the two were written. */
function sameBaseUrl(a: string, b: string): boolean {
  try {
    const x = parseBaseUrl(a);
    const y = parseBaseUrl(b);
    return x.origin === y.origin && x.basePath === y.basePath;
  } catch {
    return false;
  }
}

export function registerTestConnection(RED: NodeAPI, t: Translate): void {
  // Typed values win; an unchanged token is taken from the deployed node. It needs write
  // permission because it sends a token to the URL given in the request.
  RED.httpAdmin.post(
    "/edge-account/test",
    RED.auth.needsPermission("edge-account.write"),
    (req: Request, res: Response) => {
      if (!req.is("application/json")) {
        const message = t("edge-account.test.jsonOnly");
        res.status(415).json({ ok: false, code: "json-only", message });
        return;
      }
      if (foreignOrigin(req)) {
        const message = t("edge-account.test.foreignOrigin");
        res.status(403).json({ ok: false, code: "foreign-origin", message });
        return;
      }
      const body: unknown = req.body;
      const fields = typeof body === "object" && body !== null ? body : {};
      testConnection(fields as Record<string, unknown>).then(
        (answer) => res.json(answer),
        (err: unknown) =>
          res
            .status(500)
            .json({ ok: false, message: t("edge-account.test.error", { message: String(err) }) }),
      );
    },
  );

  async function testConnection(body: Record<string, unknown>): Promise<Answer> {
    const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
    const id = str(body.id);
    const baseUrl = fromEnv(str(body.baseUrl)) ?? "";
    const typedToken = str(body.token);
    const typed = typedToken && typedToken !== UNCHANGED_PASSWORD ? typedToken : undefined;
    const stored = id ? (RED.nodes.getCredentials(id) as Credentials | undefined) : undefined;
    let token = typed;
    if (!token && id) {
      const deployed = RED.nodes.getNode(id) as (object & Partial<DeployedAccount>) | null;
      if (stored?.token) {
        const home = deployed?.baseUrl ?? "";
        if (!sameBaseUrl(home, baseUrl)) {
          return {
            ok: false,
            code: "type-token",
            message: t("edge-account.test.typeToken", { url: home }),
          };
        }
        token = stored.token;
      }
    }
    const creds: Credentials = { user: str(body.user) ?? stored?.user, token };
    const def: Partial<AccountDef> = {
      baseUrl,
      company: fromEnv(str(body.company)),
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
      // The company and the error's params let the editor say it in the browser's language.
      const company = client.company;
      return { ok: true, ms, company, message: t("edge-account.test.ok", { company, ms }) };
    } catch (err) {
      const e =
        err instanceof EdgeError
          ? err
          : new EdgeError("network", { origin: "?", detail: String(err) });
      return {
        ok: false,
        code: e.code,
        status: e.status,
        params: e.params,
        message: t("edge-account.test.failed", { message: errorText(t, e) }),
      };
    } finally {
      await client?.close();
    }
  }
}

/**
 * The cheapest request that proves the URL and the credentials: one event of a stream id that
 * cannot exist. Past authentication the API answers 404 in its JSON envelope (or an empty list);
 * bad credentials answer 401/403. A 404 that is not the envelope (an HTML page: the Node-RED
 * editor, any web server) proves nothing but a wrong URL.
 */
async function probe(client: EdgeClient): Promise<void> {
  try {
    await client.listEvents("s000000000000000000000000", { limit: 1 });
  } catch (err) {
    if (err instanceof EdgeError && err.code === "not-found") {
      // apiStatus is set only when the answer had the envelope's head.
      if (err.apiStatus !== undefined) return;
      throw new EdgeError("not-api", { status: err.status ?? 404 }, { status: err.status });
    }
    throw err;
  }
}
