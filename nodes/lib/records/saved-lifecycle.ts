// How a node that keeps records of its work in a context store (the await node's waits, the fleet
// node's jobs) lives through deploys and restarts: told once when its store would lose them at a
// restart, its records resumed once at the flows:started that follows its start, and forgotten
// when the node is removed, not when it is only redeployed (the node the deploy puts in its place
// resumes them). One place, so that the two nodes cannot drift apart on these rules.
import type { Node, NodeAPI, NodeMessageInFlow } from "node-red";
import { onNextFlowsStarted } from "../node-red/flows-started";
import type { Translate } from "../node-red/i18n";
import { isPersistentStore } from "./persistent-store";

/** The store of a node's records (saved-records.ts) as far as its life needs it. */
export interface RecordStore<R> {
  restorable(onBad: (key: string, field: string) => void): Promise<R[]>;
  removeAll(): Promise<void>;
}

export interface SavedLifecycle<R extends { msg: NodeMessageInFlow }> {
  RED: NodeAPI;
  node: Node;
  /** The node's type: its catalog holds `warn.volatile`, `warn.store` and `warn.badSaved`. */
  type: string;
  t: Translate;
  /** The context store's name; undefined = Node-RED's default store. */
  store: string | undefined;
  saved: RecordStore<R>;
  contextId: string;
  /** The nodes of this type already told their store is volatile: once each, not every deploy. */
  told: Set<string>;
  /** Forgets the node's records kept in memory for the node that replaces it. */
  forget(): void;
  /**
   * The node closes (`removed`: from the flows). Called before the input handler's own close
   * listener, registered later: nothing the node runs has stopped yet.
   */
  closing(removed: boolean): void;
  /** False while the records must stay saved: the node closes, or its settings are invalid. */
  mayResume(): boolean;
  /** Hands the records read back to the node, each once. */
  resume(records: R[]): void;
}

/**
 * Registers the node's close listener and its resume at the next flows:started. Call it in the
 * constructor before handleInput, so that the records the handler cancels at close stay saved.
 */
export function keepSavedRecords<R extends { msg: NodeMessageInFlow }>(
  life: SavedLifecycle<R>,
): void {
  const { RED, node, type, t, saved, contextId, told } = life;
  const warn = (text: string): void => {
    node.warn(text);
  };
  const storeError = (err: unknown): void => {
    warn(t(`${type}.warn.store`, { detail: String(err) }));
  };
  if (!isPersistentStore(RED.settings, life.store) && !told.has(contextId)) {
    told.add(contextId);
    warn(t(`${type}.warn.volatile`));
  }
  const cancelResume = onNextFlowsStarted(RED.events, () => {
    // Saved records stay saved while the settings are invalid: each resumes, and ends once, after
    // the deploy that fixes them, instead of failing now with an error that is not its own.
    if (!life.mayResume()) return;
    const onBad = (key: string, field: string): void => {
      warn(t(`${type}.warn.badSaved`, { key, field }));
    };
    saved.restorable(onBad).then((records) => {
      if (life.mayResume()) life.resume(records);
    }, storeError);
  });
  node.on("close", (removed: boolean, done: () => void) => {
    life.closing(removed);
    cancelResume();
    if (!removed) {
      // The records stay in memory (and in the store) for the node the deploy puts here.
      done();
      return;
    }
    life.forget();
    told.delete(contextId);
    saved.removeAll().then(done, (err: unknown) => {
      storeError(err);
      done();
    });
  });
}
