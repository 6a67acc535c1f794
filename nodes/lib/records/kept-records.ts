// The records of every node of one type (the await node's pending waits, the fleet node's jobs),
// kept in this process's memory under the node's context id, across the node's close and its
// re-creation by a deploy. Node-RED's shipped settings configure no context store, and then
// Node-RED deletes a node's context when the node closes, so the context store alone lost every
// pending wait at a redeploy (issue 19). Memory carries the records across a redeploy whatever
// the settings; the context store is for surviving a restart.

/** The records of one node, as this process knows them. */
export interface NodeRecords<T> {
  /**
   * True once the node's context store was read into `records` in this process. From then on
   * memory is the whole truth: every record made here is in it until it ends, and a record only
   * in the store is one whose removal did not reach the store.
   */
  loaded: boolean;
  readonly records: Map<string, T>;
  /**
   * The context store the records were last written to (`null`: none yet; undefined: Node-RED's
   * default store). When a deploy changes the node's Store, the records move: left in the old
   * one, they would resume at a restart that finds that store chosen again, long after they ended.
   */
  store: string | undefined | null;
}

/** Per registration of a node type: the records of each of its nodes. */
export class KeptRecords<T> {
  private readonly byNode = new Map<string, NodeRecords<T>>();

  /** The node's records, made empty and not loaded the first time the node is met. */
  of(contextId: string): NodeRecords<T> {
    let entry = this.byNode.get(contextId);
    if (!entry) {
      entry = { loaded: false, records: new Map(), store: null };
      this.byNode.set(contextId, entry);
    }
    return entry;
  }

  /** The node was removed from the flows: its records end with it. */
  forget(contextId: string): void {
    this.byNode.delete(contextId);
  }
}
