// The account's settings as the editor stores them, turned into the client's settings: blank or
// invalid numbers fall back to their defaults (a whole number out of range, such as a timeout
// over 2^31 - 1 ms, is passed on for the client to refuse), and a chosen tls-config node adds its
// TLS options, and the proxy chosen for the base URL (proxy-choice.ts).
import type { NodeAPI, NodeDef } from "node-red";
import type { AccountSettings } from "../lib/api/account-settings";
import { ACCOUNT_RANGES } from "../lib/node-red/ranges";
import type { Range } from "../lib/node-red/ranges";
import { EdgeError } from "../lib/api/errors";
import type { TlsOptions } from "../lib/api/tls-options";
import { proxyFor } from "./proxy-choice";

export interface AccountDef extends NodeDef {
  baseUrl: string;
  company: string;
  timeout?: number | string;
  retries?: number | string;
  rate?: number | string;
  pollRate?: number | string;
  concurrency?: number | string;
  queue?: number | string;
  maxPayload?: number | string;
  maxAnswer?: number | string;
  useTls?: boolean;
  tls?: string;
  /** An `http proxy` config node's id (proxy-choice.ts); blank: the environment decides. */
  proxy?: string;
}

/** What Test connection reads from a deployed account node. */
export interface DeployedAccount {
  baseUrl: string;
  /** The account's http proxy node, if any: a stored token goes through that one only. */
  proxy?: string;
}

export interface Credentials {
  user?: string;
  token?: string;
}

interface TlsConfigNode {
  addTLSOptions(options: TlsOptions): void;
}

/** A number setting from the editor, or its default when blank or not a whole number >= min. */
function setting(value: number | string | undefined, range: Required<Range>): number {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= range.min ? n : range.default;
}

/**
 * The poll lane's reads per second. Blank leaves it to the rate limiter: 100, or no limit on an
 * account whose Requests/s is 0, as before the setting existed.
 */
function pollRate(def: Partial<AccountDef>): number | undefined {
  const blank =
    def.pollRate === undefined || (typeof def.pollRate === "string" && def.pollRate.trim() === "");
  return blank ? undefined : setting(def.pollRate, ACCOUNT_RANGES.pollRate);
}

export function settingsOf(
  RED: NodeAPI,
  def: Partial<AccountDef>,
  creds: Credentials,
): AccountSettings {
  let tls: TlsOptions | undefined;
  if (def.useTls && def.tls) {
    const tlsNode = RED.nodes.getNode(def.tls) as unknown as TlsConfigNode | null;
    if (!tlsNode) throw new EdgeError("bad-config", { context: "tls" });
    tls = {};
    tlsNode.addTLSOptions(tls);
  }
  return {
    baseUrl: def.baseUrl ?? "",
    company: def.company ?? "",
    user: creds.user,
    token: creds.token ?? "",
    timeoutMs: setting(def.timeout, ACCOUNT_RANGES.timeout),
    retry: { retries: setting(def.retries, ACCOUNT_RANGES.retries) },
    rateLimit: {
      perSecond: setting(def.rate, ACCOUNT_RANGES.rate),
      concurrent: setting(def.concurrency, ACCOUNT_RANGES.concurrency),
      queueMax: setting(def.queue, ACCOUNT_RANGES.queue),
      pollPerSecond: pollRate(def),
    },
    maxPayloadBytes: setting(def.maxPayload, ACCOUNT_RANGES.maxPayload),
    maxResponseBytes: setting(def.maxAnswer, ACCOUNT_RANGES.maxAnswer),
    tls,
    proxy: proxyFor(RED, def.baseUrl ?? "", def.proxy || undefined),
  };
}
