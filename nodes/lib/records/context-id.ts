// The name under which state kept in memory across a deploy is found again by the node's new
// instance. A node's id stays the same when a deploy re-creates it, also when it moves to another
// tab (Node-RED then closes it as changed, not removed): keyed by id and tab, as Node-RED keys
// context, a moved node's waits were never found again and stayed in memory for good. Inside a
// subflow instance the node's own id is made anew at each start, so there it is the id of the
// node in the subflow's template and the instance (its `z`), which stay.
import type { Node } from "node-red";

export function contextIdOf(node: Node): string {
  // Neither is in the types: `_alias` is internal, and a node outside any flow has no `z`.
  const { _alias: alias, z } = node as { _alias?: unknown; z?: unknown };
  if (typeof alias === "string" && alias) return `${alias}:${typeof z === "string" ? z : ""}`;
  return node.id;
}
