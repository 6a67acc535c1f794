// The pending waits of every await node, kept in this process's memory under the node's context
// id, across the node's close and its re-creation by a deploy. Node-RED's shipped settings
// configure no context store, and then Node-RED deletes a node's context when the node closes, so
// the context store alone lost every pending wait at a redeploy (issue 19). Memory carries the
// waits across a redeploy whatever the settings; the context store is for surviving a restart.
import type { SavedWait } from "./saved-wait";

/** The waits of one node, as this process knows them. */
export interface NodeWaits {
  /**
   * True once the node's context store was read into `waits` in this process. From then on
   * memory is the whole truth: every wait started here is in it until it ends, and a record only
   * in the store is one whose removal did not reach the store.
   */
  loaded: boolean;
  readonly waits: Map<string, SavedWait>;
  /**
   * The context store the waits were last written to (`null`: none yet; undefined: Node-RED's
   * default store). When a deploy changes the node's Store, the waits move: left in the old one,
   * they would resume at a restart that finds that store chosen again, long after they ended.
   */
  store: string | undefined | null;
}

export class KeptWaits {
  private readonly byNode = new Map<string, NodeWaits>();

  /** The node's waits, made empty and not loaded the first time the node is met. */
  of(contextId: string): NodeWaits {
    let entry = this.byNode.get(contextId);
    if (!entry) {
      entry = { loaded: false, waits: new Map(), store: null };
      this.byNode.set(contextId, entry);
    }
    return entry;
  }

  /** The node was removed from the flows: its waits end with it. */
  forget(contextId: string): void {
    this.byNode.delete(contextId);
  }
}
