// A node's status, without flooding. A busy node would set it twice per message, thousands of
// times a second, and each update is an event to every open editor and Status node. So the
// updates of a busy node are coalesced to one per interval (the latest wins), while an update that
// matters on its own (the node falls idle, a command started, a retry) is shown at once.
import type { Node, NodeStatus } from "node-red";
import type { AccountState } from "../account/health";
import type { AccountFault } from "../account/lookup";
import { EdgeError } from "../api/errors";
import type { Translate } from "./i18n";

const INTERVAL_MS = 100;

/** A status, or how to make it: a coalesced update is never translated or formatted. */
/** A status, or how to make it when it is shown: undefined then means nothing is left to show. */
export type StatusSource = NodeStatus | (() => NodeStatus | undefined);

/** About what fits under a node without running under the next one in the examples' layout. */
export const MAX_STATUS_CHARS = 25;

/** Cuts a status text to MAX_STATUS_CHARS. */
export function clip(text: string): string {
  return text.length > MAX_STATUS_CHARS ? `${text.slice(0, MAX_STATUS_CHARS - 1)}…` : text;
}

/**
 * An error as a node's status: a few words ("401 unauthorized", "timed out"); the whole sentence
 * is in the error that reaches Catch and the debug sidebar.
 */
export function errorStatus(t: Translate, err: Error): string {
  if (!(err instanceof EdgeError)) return t("edge.short.failed");
  const params: Record<string, unknown> = {
    ...err.params,
    status: err.status ?? "",
    apiStatus: err.apiStatus ?? "",
  };
  const key = `edge.short.${err.code}`;
  const text = t(key, params);
  if (text === key) return clip(err.message);
  // A long `what` (a nested Elems path, say) would push the words past the limit.
  return text.length > MAX_STATUS_CHARS ? t("edge.short.invalid-input") : text;
}

/** An unusable account (lookup.ts) as the red status of a node that uses it. */
export function accountFaultStatus(t: Translate, fault: AccountFault): NodeStatus {
  const text = fault.noToken ? t("edge.status.noToken") : errorStatus(t, fault.error);
  return { fill: "red", shape: "ring", text };
}

/** The last account state made a status, and that status (accountStatus). */
let lastState: AccountState | undefined;
let lastStatus: NodeStatus | undefined;

/**
 * The account's state (health.ts) as its nodes show it over their own status. The account tells
 * every node the same state object in turn, so it is made a status once, for the first node: the
 * texts are the shared `edge.*` ones, the same through any node's translator.
 */
export function accountStatus(
  t: Translate,
  state: AccountState | undefined,
): NodeStatus | undefined {
  if (state === undefined) return undefined;
  if (state === lastState) return lastStatus;
  let status: NodeStatus;
  switch (state.kind) {
    case "auth":
      status = { fill: "red", shape: "ring", text: errorStatus(t, state.error) };
      break;
    case "wait":
      status = { fill: "yellow", shape: "ring", text: t("edge.health.wait", { s: state.seconds }) };
      break;
    case "queued":
      status = {
        fill: "yellow",
        shape: "dot",
        text: t("edge.health.queued", { count: state.count }),
      };
  }
  lastState = state;
  lastStatus = status;
  return status;
}

export class StatusThrottle {
  private shownAt = -Infinity;
  private latest: StatusSource | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The node's own latest status, shown again when the account's clears. */
  private own: NodeStatus = {};
  /** The account's status (accountStatus), shown over the node's own while it lasts. */
  private override: NodeStatus | undefined;

  constructor(private readonly node: Node) {}

  /** Shows `status` now, dropping any coalesced update that would come after it. */
  now(status: StatusSource): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.latest = undefined;
    const own = typeof status === "function" ? status() : status;
    if (own === undefined) return;
    this.shownAt = performance.now();
    this.own = own;
    if (!this.override) this.node.status(this.own);
  }

  /** Shows the account's status over the node's own, or the node's own again when undefined. */
  account(status: NodeStatus | undefined): void {
    this.override = status;
    this.node.status(status ?? this.own);
  }

  /** Shows `status` now if nothing was shown for an interval, else at the end of it. */
  soon(status: StatusSource): void {
    const since = performance.now() - this.shownAt;
    if (this.timer === undefined && since >= INTERVAL_MS) {
      this.now(status);
      return;
    }
    this.latest = status;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (this.latest) this.now(this.latest);
    }, INTERVAL_MS - since);
  }

  /** Clears the status and any update still due, for close. */
  clear(): void {
    this.override = undefined;
    this.now({});
  }
}
