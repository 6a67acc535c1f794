// The proxy an account's requests go through, chosen as Node-RED's http request node chooses it:
// the account's `http proxy` config node (property `proxy`, the core node's own name, so one proxy
// node serves both) with its URL, its hosts to bypass and its user and password; without one, the
// environment (http_proxy, https_proxy, no_proxy, upper or lower case). settings.js `proxyOptions`
// applies to both, as it does for core.
import type { NodeAPI } from "node-red";
import { EdgeError } from "../lib/api/errors";
import type { ProxySettings } from "../lib/api/proxy-pool";
import { proxyForUrl } from "../lib/api/proxy-rules";
import type { ProxyOptions } from "../lib/api/proxy-rules";

/** What Node-RED's `http proxy` node (core/network/06-httpproxy.js) holds. */
interface HttpProxyNode {
  url?: string;
  noproxy?: string[];
  credentials?: { username?: string; password?: string };
}

/**
 * The proxy for `baseUrl`, or undefined to connect directly. `proxyId` is the account's `http
 * proxy` node; a missing one is a configuration error, not a silent direct connection.
 */
export function proxyFor(
  RED: NodeAPI,
  baseUrl: string,
  proxyId: string | undefined,
): ProxySettings | undefined {
  const settings = RED.settings as unknown as { proxyOptions?: ProxyOptions };
  const options: ProxyOptions = { ...settings.proxyOptions };
  let creds: HttpProxyNode["credentials"];
  if (proxyId) {
    const node = RED.nodes.getNode(proxyId) as unknown as HttpProxyNode | null;
    if (!node) {
      // Selected in the dialog but not deployed yet (a Test connection or a picker with typed values):
      // say what to do, as the stored-token message does.
      throw new EdgeError("bad-config", { context: "proxy" });
    }
    // As core: the node's own list and URL stand for the environment's.
    options.env = {
      no_proxy: (node.noproxy ?? []).join(","),
      http_proxy: node.url,
      https_proxy: node.url,
    };
    creds = node.credentials ?? RED.nodes.getCredentials(proxyId);
  }
  const url = proxyForUrl(baseUrl.trim(), options);
  if (!url) return undefined;
  // The node's user and password win over any in its URL, as in core's http request node.
  const username = creds?.username ?? "";
  const password = creds?.password ?? "";
  return username || password ? { url, username, password } : { url };
}
