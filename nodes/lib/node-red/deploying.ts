// Whether Node-RED is in the middle of a deploy: from `flows:stopping` to `flows:started`, the
// nodes the deploy restarts are gone, and Node-RED drops, silently, every message sent to one of
// them. A watch that sent its events then lost them (issue 28: a 600 ms close of the node after
// it lost 19 of 44 events over three deploys); it keeps them until the deploy has started the
// nodes again, and so does every node's output (a command's answer that came during a deploy
// restarting the await node after it was lost, though the device ran the command). Three
// listeners per runtime, whatever the number of nodes.
//
// Only our own outputs wait here. A message on its way *to* one of our nodes while a deploy has
// stopped it is Node-RED's to drop, as for every node: holding those (issue 35) handed a later
// wire's message on uncloned after the first wire's node changed it, skipped other packages'
// delivery hooks, and sent minutes-old commands after a deploy that never started.

/** The part of RED.events used here. */
export interface DeployEvents {
  on(event: "flows:stopping" | "flows:started", listener: () => void): unknown;
  on(event: "runtime-event", listener: (event: unknown) => void): unknown;
}

/**
 * The longest a deploy is taken to last, so the longest an output waits: Node-RED waits at most
 * 15 s for the nodes to close, then starts them. README, Reliability, states this bound.
 */
export const MAX_DEPLOY_MS = 20_000;

/**
 * Whether a runtime event says the flows did not start: Node-RED stopped the nodes, then found a
 * type or a module missing (the editor's "deploy anyway"), or runs in safe mode. No
 * `flows:started` comes until a later deploy succeeds, maybe hours later; the outputs held for
 * this deploy go now, to the nodes still running (Node-RED drops those for stopped ones).
 */
function startFailed(event: unknown): boolean {
  if (typeof event !== "object" || event === null) return false;
  const { id, payload } = event as { id?: unknown; payload?: unknown };
  if (id !== "runtime-state" || typeof payload !== "object" || payload === null) return false;
  return typeof (payload as { error?: unknown }).error === "string";
}

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
    const ended = (): void => {
      created.since = undefined;
      const waiters = [...created.waiters];
      created.waiters.clear();
      for (const wake of waiters) wake();
    };
    events.on("flows:started", ended);
    events.on("runtime-event", (event) => {
      if (created.since !== undefined && startFailed(event)) ended();
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
