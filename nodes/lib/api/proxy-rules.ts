// Which proxy, if any, an account's requests go through: the rules of Node-RED's own network nodes
// (`proxyHelper.js` in @node-red/nodes, used by http request, MQTT and WebSocket), so that one
// environment and one `http proxy` node mean the same to them and to this package. That file is
// not ours to require: a package installed in the user folder cannot count on resolving
// @node-red/nodes, and its exports are not an API. The rules are small and written out here.
//
// An account talks to one origin, so the choice is made once, when its client is made, as the
// http request node makes it once for its configured URL.

/** `proxyOptions` of settings.js, as the core nodes read it (all optional). */
export interface ProxyOptions {
  /** "strict" (the default) or "legacy" (Node-RED 3's substring match of no_proxy). */
  mode?: string;
  lowerCaseOnly?: boolean;
  favourUpperCase?: boolean;
  excludeNpm?: boolean;
  /** Read instead of process.env; an `http proxy` node's values are given this way. */
  env?: Record<string, string | undefined>;
}

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443 };

function getEnv(key: string, o: ProxyOptions): string {
  const env = o.env ?? process.env;
  if (o.excludeNpm === true && key.startsWith("npm_config_")) return "";
  if (o.lowerCaseOnly === true) return env[key.toLowerCase()] ?? "";
  if (o.favourUpperCase === true) return env[key.toUpperCase()] || env[key.toLowerCase()] || "";
  return env[key.toLowerCase()] || env[key.toUpperCase()] || "";
}

/**
 * Whether `hostname:port` goes through the proxy under no_proxy: a comma or space separated list
 * of host names (exact), `.domain` or `*.domain` (the name ends with it), `host:port` (that port
 * only), or `*` alone (nothing is proxied).
 */
function shouldProxy(hostname: string, port: number, o: ProxyOptions): boolean {
  const noProxy = (getEnv("npm_config_no_proxy", o) || getEnv("no_proxy", o)).toLowerCase();
  if (!noProxy) return true;
  if (noProxy === "*") return false;
  return noProxy.split(/[,\s]/).every((entry) => {
    if (!entry) return true;
    const withPort = /^(.+):(\d+)$/.exec(entry);
    let name = withPort?.[1] ?? entry;
    const entryPort = withPort ? parseInt(withPort[2] ?? "", 10) : 0;
    if (entryPort && entryPort !== port) return true;
    if (!/^[.*]/.test(name)) return hostname !== name;
    if (name.startsWith("*")) name = name.slice(1);
    return !hostname.endsWith(name);
  });
}

/** Node-RED 3's rule, kept by core for `mode: "legacy"`: any no_proxy entry found in the URL. */
function legacyProxyFor(url: string, env: Record<string, string | undefined>): string {
  const proxy = env.HTTP_PROXY || env.http_proxy || "";
  const noProxy = (env.NO_PROXY || env.no_proxy || "").split(",");
  const bypass = noProxy.some((entry) => entry.trim() !== "" && url.includes(entry.trim()));
  return proxy && !bypass ? proxy : "";
}

/**
 * The proxy URL for `url` under the core rules, or "" for a direct connection. NR_PROXY_MODE in
 * the environment overrides the mode, as it does for the core nodes.
 */
export function proxyForUrl(url: string, options: ProxyOptions = {}): string {
  const o = { mode: "strict", ...options };
  const override = process.env.NR_PROXY_MODE;
  if (override === "legacy" || override === "strict") o.mode = override;
  if (o.mode === "legacy") return legacyProxyFor(url, o.env ?? process.env);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "";
  }
  const proto = parsed.protocol.replace(/:$/, "");
  // host, not hostname: an IPv6 address keeps its brackets, as in a no_proxy entry.
  const hostname = parsed.host.replace(/:\d*$/, "").toLowerCase();
  if (!hostname) return "";
  const port = parseInt(parsed.port, 10) || DEFAULT_PORTS[proto] || 0;
  if (!shouldProxy(hostname, port, o)) return "";
  let proxy =
    getEnv(`npm_config_${proto}_proxy`, o) ||
    getEnv(`${proto}_proxy`, o) ||
    getEnv("npm_config_proxy", o) ||
    getEnv("all_proxy", o);
  // A proxy written without a scheme takes the request's, as core does.
  if (proxy && !proxy.includes("://")) proxy = `${proto}://${proxy}`;
  return proxy;
}
