// A message that a node of the old flows sends after a deploy began (a Function node still
// running its code, say) is delivered by Node-RED to the instance the deploy closed: Node-RED
// took its input listeners away at the close, and the message goes nowhere, without a log or an
// error. An await lost its message that way behind a Function node, every run at a load of 20
// (seed 801, path 27 of the fault harness). Such a message is handed here to the node the deploy
// puts in the closed one's place, once the deploy has started it. One hook per runtime.
import type { Node, NodeAPI, NodeMessageInFlow } from "node-red";
import { deployingOf } from "./deploying";
import { onNextFlowsStarted } from "./flows-started";

const HOOK = "onReceive.edgewire-late-input";

/** Instances closed by a deploy that keeps their node, with what finds the node in their place. */
const closed = new WeakMap<object, { id: string; RED: NodeAPI }>();

/** Hands `msg` to the node that has `id` now, or, during a deploy, once the deploy started it. */
function handOn(RED: NodeAPI, id: string, msg: NodeMessageInFlow): void {
  if (deployingOf(RED.events)()) {
    onNextFlowsStarted(RED.events, () => {
      handOn(RED, id, msg);
    });
    return;
  }
  // Typed as always found; Node-RED returns null for an id it does not know.
  const next = RED.nodes.getNode(id) as Node | null;
  // Removed by the deploy: no node takes it, as for any message sent to a deleted node.
  if (!next) return;
  if (closed.has(next)) {
    // Closed in turn (a deploy that has not said flows:started): the node after it takes it.
    onNextFlowsStarted(RED.events, () => {
      handOn(RED, id, msg);
    });
    return;
  }
  next.receive(msg);
}

/**
 * Makes the messages that reach `node` after a deploy closed it (not removed it) go to the node
 * the deploy puts in its place. Called by every worker node (handler.ts).
 */
export function takeLateInput(RED: NodeAPI, node: Node): void {
  // Node-RED gives every node RED.hooks; a host without them (an old test helper) gets none of this.
  const hooks = RED.hooks as NodeAPI["hooks"] | undefined;
  if (!hooks) return;
  // Checked by label, not remembered: a runtime that stops clears its hooks.
  if (!hooks.has(HOOK)) {
    hooks.add(HOOK, (event: { msg: NodeMessageInFlow; destination: { node?: object } }) => {
      const target = event.destination.node;
      const entry = target === undefined ? undefined : closed.get(target);
      if (!entry) return undefined;
      handOn(entry.RED, entry.id, event.msg);
      return false;
    });
  }
  node.on("close", (removed: boolean, done: () => void) => {
    if (!removed) closed.set(node, { id: node.id, RED });
    done();
  });
}
