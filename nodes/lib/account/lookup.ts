// How worker nodes reach their account: the config node holds the client and what is shared per
// account; a worker fails with a translated error when none is configured or it is invalid.
import type { Node, NodeAPI } from "node-red";
import { EdgeError } from "../api/errors";
import type { IntakeLimit } from "../node-red/intake";
import type { AccountHealth } from "./health";
import type { AccountServices } from "./services";

/** An `edge-account` node as the nodes that use it see it. */
export type AccountNode = Node<{ user?: string; token?: string }> & {
  /** The base URL it was deployed with: Test connection sends its stored token there only. */
  baseUrl: string;
  /** Its http proxy node's id, if any: that stored token goes through this proxy only. */
  proxy?: string;
  /** What the account shares; undefined when its configuration is invalid. */
  services: AccountServices | undefined;
  /** Why the configuration is invalid. */
  configError: EdgeError | undefined;
};

function accountNode(RED: NodeAPI, accountId: string | undefined): AccountNode | null {
  return accountId ? (RED.nodes.getNode(accountId) as AccountNode | null) : null;
}

/** Why the node's account cannot be used, found when the node starts (accountFault). */
export interface AccountFault {
  /** The error every message of the node fails with. */
  error: EdgeError;
  /** The account has no token: an example imported as it is shipped, without credentials. */
  noToken: boolean;
}

/**
 * What makes the node's existing account unusable, or undefined when it works (or is not set:
 * the editor marks that node). The account is a config node, with no status of its own on the
 * canvas: each node that uses it shows this, at deploy, rather than nothing until a message fails.
 */
export function accountFault(
  RED: NodeAPI,
  accountId: string | undefined,
): AccountFault | undefined {
  const account = accountNode(RED, accountId);
  if (!account || account.services) return undefined;
  return {
    error: account.configError ?? new EdgeError("no-account"),
    noToken: !account.credentials.token?.trim(),
  };
}

/** The services of the node's account, or the error to report for this message. */
export function accountOf(RED: NodeAPI, accountId: string | undefined): AccountServices {
  const account = accountNode(RED, accountId);
  if (!account) throw new EdgeError("no-account");
  if (!account.services) throw account.configError ?? new EdgeError("no-account");
  return account.services;
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
    const limits = accountNode(RED, accountId)?.services?.client.limiter.limits;
    if (limits) limit = { running: limits.concurrent, waiting: limits.queueMax };
    return limit;
  };
}

/** The health of the account a node uses, when it has a working one. */
export function healthOf(RED: NodeAPI, accountId: string | undefined): AccountHealth | undefined {
  return accountNode(RED, accountId)?.services?.health;
}
