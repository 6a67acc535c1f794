// A message that a node of the old flows sends after a deploy began (a Function node still
// running its code, say) is delivered by Node-RED to the instance the deploy closed: Node-RED
// took its input listeners away at the close, and the message goes nowhere, without a log or an
// error. An await lost its message that way behind a Function node, every run at a load of 20
// (seed 801, path 27 of the fault harness). Such a message is handed here to the node the deploy
// puts in the closed one's place, once the deploy has started it. One hook per runtime.
//
// The same holds for a message one of these nodes sent to a node of any type: a send node that
// held its output through a deploy sends it at that deploy's flows:started, and a second deploy
// at once closed the Function node after it before Node-RED delivered it there; the command ran
// and its message never ended (watch, seed 900604564, path 33 of the fault harness).
//
// And a message sent to one of these nodes while a deploy has stopped it and not yet made its
// successor: Node-RED's router finds no node of that id and drops it before any delivery hook
// (a Function node the deploy kept sent it; watch, seed -1921269136, path 12). It is held at the
// route and handed on the same way.
import type { Node, NodeAPI, NodeMessageInFlow } from "node-red";
import { deployingOf } from "./deploying";
import { onNextFlowsStarted } from "./flows-started";

const RECEIVE_HOOK = "onReceive.edgewire-late-input";
const DELIVER_HOOK = "preDeliver.edgewire-late-input";
const ROUTE_HOOK = "preRoute.edgewire-late-input";

/** Ids of this package's nodes a deploy closed and kept, until their successor takes them. */
const closedIds = new Map<string, NodeAPI>();

/** Instances closed by a deploy that keeps their node, with what finds the node in their place. */
const closed = new WeakMap<object, { id: string; RED: NodeAPI }>();

/** Every instance of this package's nodes, with its runtime. */
const ours = new WeakMap<object, NodeAPI>();

/** Messages one of this package's nodes sent, as Node-RED delivers them, with its runtime. */
const sentByUs = new WeakMap<object, NodeAPI>();

/**
 * Whether a node of another package takes no input now: Node-RED clears these two fields when it
 * closes a node (Node.close, removeAllListeners("input")). A runtime without them: never.
 */
function takesNoInput(node: object): boolean {
  const fields = node as { _inputCallback?: unknown; _inputCallbacks?: unknown };
  if (!("_inputCallback" in fields) || !("_inputCallbacks" in fields)) return false;
  return fields._inputCallback === null && fields._inputCallbacks === null;
}

/**
 * Hands `msg` to the node that has `id` now, or, during a deploy, once the deploy started it;
 * never back to `from`, the closed instance it came to.
 */
function handOn(RED: NodeAPI, id: string, msg: NodeMessageInFlow, from: object): void {
  if (deployingOf(RED.events)()) {
    onNextFlowsStarted(RED.events, () => {
      handOn(RED, id, msg, from);
    });
    return;
  }
  // Typed as always found; Node-RED returns null for an id it does not know.
  const next = RED.nodes.getNode(id) as Node | null;
  // Removed by the deploy (or not replaced): no node takes it, as for any message sent to a
  // deleted node.
  if (!next || next === from) return;
  if (closed.has(next)) {
    // Closed in turn (a deploy that has not said flows:started): the node after it takes it.
    onNextFlowsStarted(RED.events, () => {
      handOn(RED, id, msg, from);
    });
    return;
  }
  next.receive(msg);
}

interface DeliverEvent {
  msg: NodeMessageInFlow;
  source: { node?: object };
}

interface RouteEvent {
  msg: NodeMessageInFlow;
  destination: { id: string };
}

interface ReceiveEvent {
  msg: NodeMessageInFlow;
  destination: { id: string; node?: object };
}

/** Where a message to `target` goes instead, when `target` is an instance a deploy closed. */
function closedTarget(event: ReceiveEvent): { id: string; RED: NodeAPI } | undefined {
  const target = event.destination.node;
  if (target === undefined) return undefined;
  const entry = closed.get(target);
  if (entry) return entry;
  // A node of another package, closed by a deploy: only a message of ours is handed on. One
  // that takes no input while it is the running node of its id is left to Node-RED.
  const RED = sentByUs.get(event.msg);
  if (!RED || !takesNoInput(target)) return undefined;
  const id = event.destination.id;
  if (!deployingOf(RED.events)() && RED.nodes.getNode(id) === target) return undefined;
  return { id, RED };
}

/**
 * Makes the messages that reach `node` after a deploy closed it (not removed it) go to the node
 * the deploy puts in its place, and so the messages `node` sends to a node of any type. Called by
 * every worker node (handler.ts).
 */
export function takeLateInput(RED: NodeAPI, node: Node): void {
  // Node-RED gives every node RED.hooks; a host without them (an old test helper) gets none of this.
  const hooks = RED.hooks as NodeAPI["hooks"] | undefined;
  if (!hooks) return;
  ours.set(node, RED);
  closedIds.delete(node.id);
  // Checked by label, not remembered: a runtime that stops clears its hooks.
  if (!hooks.has(DELIVER_HOOK)) {
    hooks.add(DELIVER_HOOK, (event: DeliverEvent) => {
      const from = event.source.node;
      const runtime = from === undefined ? undefined : ours.get(from);
      if (runtime && typeof event.msg === "object") sentByUs.set(event.msg, runtime);
      return undefined;
    });
  }
  if (!hooks.has(ROUTE_HOOK)) {
    hooks.add(ROUTE_HOOK, (event: RouteEvent) => {
      const id = event.destination.id;
      const runtime = closedIds.get(id);
      // Routed as usual unless a deploy is under way and has no node of that id running (typed as
      // always found; Node-RED returns null for an id it does not know).
      if (!runtime || !deployingOf(runtime.events)()) return undefined;
      if ((runtime.nodes.getNode(id) as Node | null) !== null) return undefined;
      handOn(runtime, id, event.msg, {});
      return false;
    });
  }
  if (!hooks.has(RECEIVE_HOOK)) {
    hooks.add(RECEIVE_HOOK, (event: ReceiveEvent) => {
      const entry = closedTarget(event);
      if (!entry) return undefined;
      const from = event.destination.node as object;
      handOn(entry.RED, entry.id, event.msg, from);
      return false;
    });
  }
  node.on("close", (removed: boolean, done: () => void) => {
    if (removed) {
      closedIds.delete(node.id);
    } else {
      closed.set(node, { id: node.id, RED });
      closedIds.set(node.id, RED);
    }
    done();
  });
}
