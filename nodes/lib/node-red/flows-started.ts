// Node-RED emits `flows:started` on its runtime events after every start and deploy. A listener
// per node instance made 11 await nodes print MaxListenersExceededWarning (issue 19), so there is
// one listener per runtime, there only while some node waits for the next start, and each node's
// function is called once, at the first `flows:started` after it asked.

/** The part of RED.events used here. */
export interface RuntimeEvents {
  on(event: "flows:started", listener: () => void): unknown;
  off(event: "flows:started", listener: () => void): unknown;
}

/** The functions waiting for the next `flows:started`, by runtime (a test process has several). */
const waiting = new WeakMap<RuntimeEvents, Set<() => void>>();

/** Calls `fn` once, at the next `flows:started`; the returned function cancels that. */
export function onNextFlowsStarted(events: RuntimeEvents, fn: () => void): () => void {
  let set = waiting.get(events);
  if (!set) {
    const created = new Set<() => void>();
    set = created;
    waiting.set(events, created);
    const dispatch = (): void => {
      events.off("flows:started", dispatch);
      if (waiting.get(events) === created) waiting.delete(events);
      for (const f of created) {
        try {
          f();
        } catch {
          // Each node's function catches its own failures; a throw must not skip the others.
        }
      }
    };
    events.on("flows:started", dispatch);
  }
  const mine = set;
  mine.add(fn);
  // A cancelled function leaves the one listener in place until the next start: it is one.
  return () => {
    mine.delete(fn);
  };
}
