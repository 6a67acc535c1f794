// Whether Node-RED is in the middle of a deploy: from `flows:stopping` to `flows:started`, the
// nodes the deploy restarts are gone, and Node-RED drops, silently, every message sent to one of
// them. A watch that sent its events then lost them (issue 28: a 600 ms close of the node after
// it lost 19 of 44 events over three deploys); it keeps them until the deploy has started the
// nodes again, and so does every node's output (a command's answer that came during a deploy
// restarting the await node after it was lost, though the device ran the command). Two listeners
// per runtime, whatever the number of nodes.

/** The part of RED.events used here. */
export interface DeployEvents {
  on(event: "flows:stopping" | "flows:started", listener: () => void): unknown;
}

/**
 * The longest a deploy is taken to last: Node-RED waits at most 15 s for the nodes to close, and
 * a deploy whose start failed (no `flows:started`) must not hold the events for ever.
 */
const MAX_DEPLOY_MS = 60_000;

interface DeployState {
  /** performance.now() of the last `flows:stopping` not yet followed by `flows:started`. */
  since: number | undefined;
  /** What waits for the nodes to be started again. */
  readonly waiters: Set<() => void>;
}

const states = new WeakMap<DeployEvents, DeployState>();

function stateOf(events: DeployEvents): DeployState {
  let state = states.get(events);
  if (!state) {
    const created: DeployState = { since: undefined, waiters: new Set() };
    events.on("flows:stopping", () => {
      created.since = performance.now();
    });
    events.on("flows:started", () => {
      created.since = undefined;
      const waiters = [...created.waiters];
      created.waiters.clear();
      for (const wake of waiters) wake();
    });
    states.set(events, created);
    state = created;
  }
  return state;
}

const isDeploying = (state: DeployState): boolean =>
  state.since !== undefined && performance.now() - state.since < MAX_DEPLOY_MS;

/** A function that tells whether the runtime of `events` is between stopping and starting nodes. */
export function deployingOf(events: DeployEvents): () => boolean {
  const state = stateOf(events);
  return () => isDeploying(state);
}

/**
 * A function that returns nothing when no deploy is under way, else a promise that resolves once the deploy has started
 * the nodes again (at the latest MAX_DEPLOY_MS after it began), or `signal` aborts: a node's
 * output waits there so that a node the deploy restarts gets it, instead of Node-RED dropping it.
 */
export function deployEndOf(
  events: DeployEvents,
): (signal: AbortSignal) => Promise<void> | undefined {
  const state = stateOf(events);
  return (signal) => {
    // Undefined when there is nothing to wait for: the common case costs no promise.
    if (!isDeploying(state) || signal.aborted) return undefined;
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", wake);
        state.waiters.delete(wake);
        resolve();
      };
      const left = MAX_DEPLOY_MS - (performance.now() - (state.since ?? 0));
      const timer = setTimeout(wake, Math.max(0, left));
      signal.addEventListener("abort", wake, { once: true });
      state.waiters.add(wake);
    });
  };
}
