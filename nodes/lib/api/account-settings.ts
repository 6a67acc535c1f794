// What an account's client is made from: the settings, their defaults and the base URL's check.
// The edge-account node reads them from its dialog (nodes/edge-account/settings.ts), and the
// editor's ranges (node-red/ranges.ts) show the same defaults.
import { EdgeError } from "./errors";
import type { RateLimit } from "./rate-limiter";
import type { RetryPolicy } from "./retry";
import type { TlsOptions } from "./tls-options";
import type { ProxySettings } from "./proxy-pool";
import { MAX_TIMER_MS } from "./timer-delay";

export interface AccountSettings {
  /** `{base_url}` of the spec, e.g. `https://api.example.com`; `/v5.0/<company>` is added here. */
  baseUrl: string;
  company: string;
  /** Sent as X-Auth-User only when set: restricted tokens are used without it. */
  user?: string;
  token: string;
  /** Per-attempt timeout; the request's whole budget is timeout x (retries + 1). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  rateLimit?: Partial<RateLimit>;
  /** Largest request body sent. */
  maxPayloadBytes?: number;
  /** Largest answer read; also the most a gathered listing (edge-list-events `all`) may hold. */
  maxResponseBytes?: number;
  tls?: TlsOptions;
  /** The proxy chosen for the base URL (proxy-rules.ts), if any: the TLS above is the API's. */
  proxy?: ProxySettings;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
/** The longest timer Node.js keeps: a longer one fires after 1 ms. */
export const MAX_TIMEOUT_MS = MAX_TIMER_MS;
/**
 * Largest answer read by default. An answer is held as text and then as parsed objects (several
 * times its size), for every request in flight: eight 60 MB answers once took 1.6 GB of heap.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

export function parseBaseUrl(baseUrl: string): { origin: string; basePath: string } {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new EdgeError("bad-config", {
      context: "url",
      url: baseUrl,
      detail: `base URL "${baseUrl}" is not a URL`,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new EdgeError("bad-config", {
      context: "scheme",
      detail: "the base URL must start with http:// or https://",
    });
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new EdgeError("bad-config", {
      context: "urlParts",
      detail: "the base URL must not hold credentials, a query or a fragment",
    });
  }
  // Users paste the full API URL as often as the host: accept both.
  const basePath = url.pathname.replace(/\/+$/, "").replace(/\/v5\.0(\/[^/]*)?$/, "");
  return { origin: url.origin, basePath };
}

/** A percent-encoded part of a URL's userinfo; a stray `%` is kept as typed. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * The proxy's URL reduced to its scheme, host and port, credentials apart. No text of the refusal
 * holds the URL: it may carry a password (`http://user:secret@proxy:3128`).
 */
export function checkProxy(proxy: ProxySettings): ProxySettings {
  let url: URL;
  try {
    url = new URL(proxy.url.trim());
  } catch {
    throw new EdgeError("bad-config", {
      context: "proxyUrl",
      detail: "the proxy URL is not a URL",
    });
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) {
    throw new EdgeError("bad-config", {
      context: "proxyScheme",
      detail: "the proxy URL must start with http:// or https:// and name a host",
    });
  }
  const username = proxy.username ?? decoded(url.username);
  const password = proxy.password ?? decoded(url.password);
  if (/[\r\n]/.test(username) || /[\r\n]/.test(password)) {
    throw new EdgeError("bad-config", {
      context: "proxyLinebreak",
      detail: "the proxy's user or password holds a line break",
    });
  }
  return {
    url: `${url.protocol}//${url.host}`,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
  };
}
