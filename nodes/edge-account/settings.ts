// The account's settings as the editor stores them, turned into the client's settings: blank or
// invalid numbers fall back to their defaults (a whole number out of range, such as a timeout
// over 2^31 - 1 ms, is passed on for the client to refuse), and a chosen tls-config node adds its
// TLS options.
import type { NodeAPI, NodeDef } from "node-red";
import {
  DEFAULT_MAX_ANSWER_BYTES,
  DEFAULT_MAX_PAYLOAD_BYTES,
  DEFAULT_TIMEOUT_MS,
} from "../lib/api/client";
import type { AccountSettings } from "../lib/api/client";
import { DEFAULT_RATE_LIMIT } from "../lib/api/rate-limiter";
import { DEFAULT_RETRY } from "../lib/api/retry";
import { EdgeError } from "../lib/api/errors";
import type { TlsOptions } from "../lib/api/transport";

export interface AccountDef extends NodeDef {
  baseUrl: string;
  company: string;
  timeout?: number | string;
  retries?: number | string;
  rate?: number | string;
  concurrency?: number | string;
  queue?: number | string;
  maxPayload?: number | string;
  maxAnswer?: number | string;
  useTls?: boolean;
  tls?: string;
}

/** What Test connection reads from a deployed account node. */
export interface DeployedAccount {
  baseUrl: string;
}

export interface Credentials {
  user?: string;
  token?: string;
}

interface TlsConfigNode {
  addTLSOptions(options: TlsOptions): void;
}

/** A number setting from the editor, or its default when blank or not a whole number >= min. */
function setting(value: number | string | undefined, fallback: number, min = 0): number {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= min ? n : fallback;
}

export function settingsOf(
  RED: NodeAPI,
  def: Partial<AccountDef>,
  creds: Credentials,
): AccountSettings {
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
    timeoutMs: setting(def.timeout, DEFAULT_TIMEOUT_MS, 1),
    retry: { retries: setting(def.retries, DEFAULT_RETRY.retries) },
    rateLimit: {
      perSecond: setting(def.rate, DEFAULT_RATE_LIMIT.perSecond),
      concurrent: setting(def.concurrency, DEFAULT_RATE_LIMIT.concurrent, 1),
      queueMax: setting(def.queue, DEFAULT_RATE_LIMIT.queueMax),
    },
    maxPayloadBytes: setting(def.maxPayload, DEFAULT_MAX_PAYLOAD_BYTES, 1),
    maxResponseBytes: setting(def.maxAnswer, DEFAULT_MAX_ANSWER_BYTES, 1),
    tls,
  };
}
