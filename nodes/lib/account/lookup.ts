// How worker nodes reach their account: the config node holds the client and what is shared per
// account; a worker fails with a translated error when none is configured or it is invalid.
import type { Node, NodeAPI } from "node-red";
import type { EdgeClient } from "../api/client";
import { EdgeError } from "../api/errors";
import type { InboxPoller } from "../commands/inbox-poller";
import type { DeviceNames } from "../device/names";
import type { StreamWatcher } from "../events/stream-watcher";
import type { IntakeLimit } from "../node-red/intake";
import type { KeyedQueue } from "./keyed-queue";
import type { AccountHealth } from "./health";

/** What an `edge-account` node exposes to the nodes that use it. */
export interface Account {
  readonly client: EdgeClient | undefined;
  /** Why no client could be built from the configuration. */
  readonly configError: EdgeError | undefined;
  readonly serial: KeyedQueue;
  /** Shared polling of device inboxes for edge-await-command. */
  readonly poller: InboxPoller | undefined;
  /** Device ids turned into the names that stream paths need. */
  readonly names: DeviceNames | undefined;
  /** Shared reads of the streams that edge-watch-events nodes watch. */
  readonly watcher: StreamWatcher | undefined;
  /** Queue, 429 wait and authentication state, shown on every node of the account. */
  readonly health: AccountHealth | undefined;
}

export type AccountNode = Node<{ user?: string; token?: string }> & Account;

/** The account's client, or the error to report for this message. */
export function clientOf(
  RED: NodeAPI,
  accountId: string | undefined,
): { client: EdgeClient; poller: InboxPoller; names: DeviceNames; account: Account } {
  const account = accountId ? (RED.nodes.getNode(accountId) as AccountNode | null) : null;
  if (!account) throw new EdgeError("no-account");
  const { client, poller, names } = account;
  if (!client || !poller || !names) throw account.configError ?? new EdgeError("no-account");
  return { client, poller, names, account };
}

/**
 * The bounded intake (handler.ts) of a node that sends through this account: as many messages at
 * once as the account has requests in flight, as many waiting as its queue holds. Read on the
 * first message and kept, since a changed account restarts the nodes that use it; undefined while
 * the account is missing or invalid, so that the message runs and reports why.
 */
export function intakeOf(
  RED: NodeAPI,
  accountId: string | undefined,
): () => IntakeLimit | undefined {
  let limit: IntakeLimit | undefined;
  return () => {
    if (limit) return limit;
    const account = accountId ? (RED.nodes.getNode(accountId) as AccountNode | null) : null;
    const limits = account?.client?.limiter.limits;
    if (limits) limit = { running: limits.concurrent, waiting: limits.queueMax };
    return limit;
  };
}

/** The health of the account a node uses, when it has a working one. */
export function healthOf(RED: NodeAPI, accountId: string | undefined): AccountHealth | undefined {
  const account = accountId ? (RED.nodes.getNode(accountId) as AccountNode | null) : null;
  return account?.health;
}
