// Whether Node-RED is in the middle of a deploy: from `flows:stopping` to `flows:started`, the
// nodes the deploy restarts are gone, and Node-RED drops, silently, every message sent to one of
// them. A watch that sent its events then lost them (issue 28: a 600 ms close of the node after
// it lost 19 of 44 events over three deploys); it keeps them until the deploy has started the
// nodes again. Two listeners per runtime, whatever the number of nodes.

/** The part of RED.events used here. */
export interface DeployEvents {
  on(event: "flows:stopping" | "flows:started", listener: () => void): unknown;
}

/**
 * The longest a deploy is taken to last: Node-RED waits at most 15 s for the nodes to close, and
 * a deploy whose start failed (no `flows:started`) must not hold the events for ever.
 */
const MAX_DEPLOY_MS = 60_000;

/** performance.now() of the last `flows:stopping` not yet followed by `flows:started`, by runtime. */
const stopping = new WeakMap<DeployEvents, { since: number | undefined }>();

/** A function that tells whether the runtime of `events` is between stopping and starting nodes. */
export function deployingOf(events: DeployEvents): () => boolean {
  let state = stopping.get(events);
  if (!state) {
    const created: { since: number | undefined } = { since: undefined };
    events.on("flows:stopping", () => {
      created.since = performance.now();
    });
    events.on("flows:started", () => {
      created.since = undefined;
    });
    stopping.set(events, created);
    state = created;
  }
  const mine = state;
  return () => mine.since !== undefined && performance.now() - mine.since < MAX_DEPLOY_MS;
}
