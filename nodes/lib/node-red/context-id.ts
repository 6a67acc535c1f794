// The name under which Node-RED keeps a node's context: its id (inside a subflow instance, the id
// of the node in the subflow's template) and its flow. It stays the same when a deploy re-creates
// the node, so state kept in memory under it is found again by the new instance, as context is.
import type { Node } from "node-red";

export function contextIdOf(node: Node): string {
  // Neither is in the types: `_alias` is internal, and a node outside any flow has no `z`.
  const { _alias: alias, z } = node as { _alias?: unknown; z?: unknown };
  const id = typeof alias === "string" && alias ? alias : node.id;
  return `${id}:${typeof z === "string" ? z : ""}`;
}
