// The editor's "Test connection" button: an admin route that tries the account's URL and
// credentials (connection-probe.ts), says "Connected" only when the answers prove both, and
// answers the API's own error text when they fail.
//
// Like the device picker it takes JSON from the editor's own pages only (admin-guard.ts), and it
// sends a stored token only to the base URL its account was deployed with: to try another URL,
// the token must be typed.
//
// A `${NAME}` in the URL or the company is read from the environment, as the deployed node reads
// it (else a test of an account configured that way would try another URL than the node uses),
// but the answer never shows the value: `${AWS_SECRET_ACCESS_KEY}` as the URL once came back as
// "Invalid base URL: <the key>" (issue 28). The value and every piece of 8 of its characters are
// replaced in the answer, as a token is (redact.ts).
import type { NodeAPI } from "node-red";
import { parseBaseUrl } from "../lib/api/account-settings";
import { EdgeError } from "../lib/api/errors";
import { proxyHost } from "../lib/api/proxy-pool";
import { redact } from "../lib/api/redact";
import type { Translate } from "../lib/node-red/i18n";
import { editorPost } from "./admin-guard";
import { apiPathIn, probe } from "./connection-probe";
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
  /** `host:port` of the proxy the test went through (never its credentials). */
  proxy?: string;
  /** For the editor to write the sentence in the browser's language. */
  company?: string;
  params?: Record<string, string | number>;
}

/**
 * A property as the deployed node sees it: Node-RED replaces a whole `${NAME}` with the
 * environment variable when it starts the flow, and the dialog sends the text as typed. A value
 * read is added to `read`, to be kept out of the answer.
 */
function fromEnv(value: string | undefined, read: string[]): string | undefined {
  const name = value === undefined ? undefined : /^\s*\$\{(\w+)\}\s*$/.exec(value)?.[1];
  if (name === undefined) return value;
  const found = process.env[name] ?? "";
  if (found) read.push(found);
  return found;
}

/** The answer without any value in `hidden`, nor a piece of one (the texts the editor shows). */
function withoutValues(answer: Answer, hidden: readonly string[]): Answer {
  if (hidden.length === 0) return answer;
  const hide = (text: string): string => hidden.reduce((t, v) => redact(t, v), text);
  const params =
    answer.params &&
    Object.fromEntries(
      Object.entries(answer.params).map(([k, v]) => [k, typeof v === "string" ? hide(v) : v]),
    );
  return {
    ...answer,
    message: hide(answer.message),
    ...(answer.company === undefined ? {} : { company: hide(answer.company) }),
    ...(params ? { params } : {}),
  };
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
  editorPost(RED, t, "/edge-account/test", "edge-account.write", (fields, res) => {
    const read: string[] = [];
    testConnection(fields, read).then(
      (answer) => res.json(withoutValues(answer, read)),
      (err: unknown) =>
        res
          .status(500)
          .json(
            withoutValues(
              { ok: false, message: t("edge-account.test.error", { message: String(err) }) },
              read,
            ),
          ),
    );
  });

  async function testConnection(body: Record<string, unknown>, read: string[]): Promise<Answer> {
    const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
    const id = str(body.id);
    const baseUrl = fromEnv(str(body.baseUrl), read) ?? "";
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
        // A proxy sees what goes through it (all of an http request): not another one either.
        if ((deployed?.proxy ?? "") !== (str(body.proxy) ?? "")) {
          return {
            ok: false,
            code: "type-token-proxy",
            message: t("edge-account.test.typeTokenProxy"),
          };
        }
        token = stored.token;
      }
    }
    const creds: Credentials = { user: str(body.user) ?? stored?.user, token };
    const def: Partial<AccountDef> = {
      baseUrl,
      company: fromEnv(str(body.company), read),
      timeout: str(body.timeout),
      // The TLS configuration is a deployed tls-config node, referred to by id.
      useTls: body.useTls === true,
      tls: str(body.tls),
      // An http proxy node, deployed, referred to by id like the TLS node.
      proxy: str(body.proxy),
    };
    const company = def.company ?? "";
    const apiPath = apiPathIn(baseUrl, company);
    if (apiPath !== undefined) {
      const params = { path: apiPath };
      const message = t("edge-account.test.apiPath", params);
      return { ok: false, code: "api-path", params, message };
    }
    let proxy: string | undefined;
    try {
      const settings = settingsOf(RED, def, creds);
      proxy = settings.proxy ? proxyHost(settings.proxy) || undefined : undefined;
      const result = await probe(settings);
      if (!result.proven) {
        const params = { answer: result.answer };
        const message = t("edge-account.test.unverified", params);
        return { ok: false, code: "unverified", params, message, proxy };
      }
      // The company and the error's params let the editor say it in the browser's language.
      const { ms, company } = result;
      const message = proxy
        ? t("edge-account.test.okProxy", { company, ms, proxy })
        : t("edge-account.test.ok", { company, ms });
      return { ok: true, ms, company, message, proxy };
    } catch (err) {
      const e =
        err instanceof EdgeError
          ? err
          : new EdgeError("network", { origin: "?", detail: String(err) });
      // A refused connection says where and what to check, not the probe's own request: its
      // method and path stay in the error (for logs), not in what the user reads.
      const params: Record<string, string | number> =
        e.code === "refused" ? { origin: e.params.origin ?? "", context: "probe" } : e.params;
      const failed = t("edge-account.test.failed", {
        message: t(`edge.errors.${e.code}`, params),
      });
      return {
        ok: false,
        code: e.code,
        status: e.status,
        params,
        proxy,
        message: proxy ? t("edge-account.test.viaProxy", { message: failed, proxy }) : failed,
      };
    }
  }
}
