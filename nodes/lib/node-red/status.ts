// A node's status, without flooding. A busy node would set it twice per message, thousands of
// times a second, and each update is an event to every open editor and Status node. So the
// updates of a busy node are coalesced to one per interval (the latest wins), while an update that
// matters on its own (the node falls idle, a command started, a retry) is shown at once.
import type { Node, NodeStatus } from "node-red";

const INTERVAL_MS = 100;

/** A status, or how to make it: a coalesced update is never translated or formatted. */
export type StatusSource = NodeStatus | (() => NodeStatus);

export class StatusThrottle {
  private shownAt = -Infinity;
  private latest: StatusSource | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly node: Node) {}

  /** Shows `status` now, dropping any coalesced update that would come after it. */
  now(status: StatusSource): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.latest = undefined;
    this.shownAt = performance.now();
    this.node.status(typeof status === "function" ? status() : status);
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
    this.now({});
  }
}
