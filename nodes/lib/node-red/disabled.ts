// Whether a node that Node-RED closes with `removed === true` was deleted by the deploy or only
// disabled (its tab `disabled: true`, the node itself, or the subflow instance it runs in,
// `d: true`): Node-RED closes both alike (issue 35, item 5), and a disabled node's pending work
// must wait for the node enabled again, not be dropped.
//
// Read from the flow configuration being deployed, through RED.nodes.eachNode: it is part of the
// API Node-RED gives every node, synchronous, and in 4.0, 4.1 and 5.0 it walks the configuration
// that setFlows() makes active before it stops the old nodes, disabled nodes and tabs included.
// The `flows:stopping` event carries the same configuration, but it is an internal event whose
// payload has no contract, and a node would have to keep what it said until its own close.
import type { NodeAPI } from "node-red";

/** The fields of a flow's node that tell where it sits and whether it runs. */
interface Placed {
  id?: unknown;
  z?: unknown;
  d?: unknown;
  disabled?: unknown;
  type?: unknown;
}

/**
 * True when the node is still in the flows being deployed but will not run: disabled itself, or on
 * a disabled tab, or inside a disabled subflow instance. False when it is gone (deleted), and when
 * its place cannot be told (a subflow nested in another, whose instance ids Node-RED makes anew):
 * then it is taken for deleted, as before this check.
 */
export function disabledInDeploy(RED: NodeAPI, node: { id: string; z?: string }): boolean {
  const byId = new Map<string, Placed>();
  try {
    RED.nodes.eachNode((n) => {
      const placed = n as Placed;
      if (typeof placed.id === "string") byId.set(placed.id, placed);
    });
  } catch {
    return false;
  }
  // Inside a subflow instance the node's own id is made at each start; its `_alias` is the id in
  // the subflow's template, and its `z` the instance.
  const { _alias: alias } = node as { _alias?: unknown };
  const own = byId.get(typeof alias === "string" && alias ? alias : node.id);
  if (!own) return false;
  let at: Placed | undefined = own;
  let z: unknown = typeof alias === "string" && alias ? node.z : own.z;
  // A node, then what holds it: a tab, or a subflow instance and what holds that.
  for (let depth = 0; at && depth < 16; depth++) {
    if (at.d === true || (at.type === "tab" && at.disabled === true)) return true;
    if (typeof z !== "string") return false;
    at = byId.get(z);
    z = at?.z;
  }
  return false;
}
