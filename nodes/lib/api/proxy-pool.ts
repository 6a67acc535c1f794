// An account's connection pool when its requests go through an HTTP proxy: undici's ProxyAgent,
// made with the same pool settings as the direct pool (transport.ts), and the proxy's own failures
// told apart from the API's. Loaded only when a proxy applies: an account without one pays nothing.
//
// `https` API URLs go through a CONNECT tunnel, and the account's TLS settings (the tls-config
// node's CA and client certificate) are applied to the API server inside it (requestTls), never to
// the proxy. `http` API URLs are sent to the proxy as absolute-URI requests, as Node-RED's http
// request node sends them: a stock Squid refuses CONNECT to any port but 443.
import type { Dispatcher, ProxyAgent as UndiciProxyAgent } from "undici";
import { EdgeError } from "./errors";
import type { TlsOptions } from "./tls-options";

export interface ProxySettings {
  /** The proxy's URL without credentials: `http://proxy.plant:3128`. */
  url: string;
  username?: string;
  password?: string;
}

export interface ProxyPoolOptions {
  origin: string;
  proxy: ProxySettings;
  /** Made by transport.ts: the same pool settings, whatever the origin (API or proxy). */
  pool: (origin: string, connect: unknown) => Dispatcher;
  tls?: TlsOptions;
}

let ProxyAgent: typeof UndiciProxyAgent | undefined;

/**
 * undici's index, not only its ProxyAgent: the agent opens tunnels with the `connect()` method that
 * the index adds to every dispatcher (the direct pool needs none of it, transport.ts).
 */
function loadProxyAgent(): typeof UndiciProxyAgent {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  ProxyAgent ??= (require("undici") as typeof import("undici")).ProxyAgent;
  return ProxyAgent;
}

/** The Proxy-Authorization value of the settings, or undefined without credentials. */
export function basicAuth(proxy: ProxySettings): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const pair = `${proxy.username ?? ""}:${proxy.password ?? ""}`;
  return `Basic ${Buffer.from(pair).toString("base64")}`;
}

/** `host:port` of the proxy: all that is ever shown of it ("" for a URL that is none). */
export function proxyHost(proxy: ProxySettings): string {
  try {
    return new URL(proxy.url.trim()).host;
  } catch {
    return "";
  }
}

/**
 * One ProxyAgent for the account: it keeps one pool to the API's origin (a tunnel per
 * connection) or, for an http origin, one pool to the proxy.
 */
export function createProxyPool(o: ProxyPoolOptions): Dispatcher {
  const tunnel = new URL(o.origin).protocol === "https:";
  const options: UndiciProxyAgent.Options = {
    uri: o.proxy.url,
    token: basicAuth(o.proxy),
    proxyTunnel: tunnel,
    requestTls: { ...o.tls, timeout: 10_000 },
    proxyTls: { timeout: 10_000 },
    factory: (origin: string | URL, opts: { connect?: unknown }) =>
      o.pool(String(origin), opts.connect),
  };
  return new (loadProxyAgent())(options);
}

/** The status a proxy answered to CONNECT, from undici's error (its only report of it). */
function tunnelStatus(err: unknown): number | undefined {
  const e = err as { message?: unknown; cause?: { message?: unknown } } | null;
  const text = [e?.message, e?.cause?.message].filter((m) => typeof m === "string").join(" ");
  const found = /Proxy response \((\d{3})\) !== 200/.exec(text) ?? /\((407)\)/.exec(text);
  return found ? Number(found[1]) : undefined;
}

/**
 * OpenSSL's words for bytes that are no TLS record at all: an HTML page or an HTTP status line
 * where the server's hello should be.
 */
export const NOT_TLS = /^ERR_SSL_(WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST)$/;

/**
 * The proxy's own failures, before the API was reached: its connection refused, its credentials
 * asked for (407), a tunnel it would not open (it could not reach the API), or a tunnel that
 * carried no TLS. Undefined for any other error, which transport.ts maps as it maps a direct one.
 * Nothing here was sent to the API.
 */
export function proxyFailure(
  err: unknown,
  code: string,
  where: { method: string; path: string; origin: string },
  proxy: string,
): EdgeError | undefined {
  const base = { method: where.method, path: where.path, cause: err };
  if (code === "ECONNREFUSED") return new EdgeError("proxy-refused", { ...where, proxy }, base);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new EdgeError("dns", { host: new URL(`http://${proxy}`).hostname }, base);
  }
  // A captive portal answers CONNECT 200 and then its login page in the "tunnel": the TLS
  // handshake reads HTML and fails, which said `tls` as if the API's certificate were wrong
  // (issue 35, item 12). A port of the API's host that speaks plain http looks the same from
  // here; either way the request was never written.
  if (NOT_TLS.test(code) && where.origin.startsWith("https:"))
    return new EdgeError("proxy-tls", { ...where, proxy }, base);
  if (code !== "UND_ERR_ABORTED" && code !== "UND_ERR_INVALID_ARG") return undefined;
  const status = tunnelStatus(err);
  if (status === undefined) return undefined;
  if (status === 407) return new EdgeError("proxy-auth", { proxy, status }, base);
  return new EdgeError("proxy-upstream", { ...where, proxy, status }, base);
}
