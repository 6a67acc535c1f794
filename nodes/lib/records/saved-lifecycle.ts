// How a node that keeps records of its work in a context store (the await node's waits, the fleet
// node's jobs) lives through deploys and restarts: its records kept in memory under its context id
// and in the store its Store property names, told once when that store would lose them at a
// restart, resumed once at the flows:started that follows its start, and forgotten when the node
// is deleted, not when it is only redeployed or disabled (the node the deploy puts in its place,
// or that a later deploy enables, resumes them).
// One place, so that the two nodes cannot drift apart on these rules: each says only what its
// records are (a RecordKind) and what it does at its close and with the records read back.
import type { Node, NodeAPI, NodeMessageInFlow } from "node-red";
import { blank } from "../node-red/config";
import { disabledInDeploy } from "../node-red/disabled";
import { onNextFlowsStarted } from "../node-red/flows-started";
import type { Translate } from "../node-red/i18n";
import { contextIdOf } from "./context-id";
import { KeptRecords } from "./kept-records";
import { isPersistentStore } from "./persistent-store";
import { SavedRecords } from "./saved-records";
import type { RecordKind } from "./saved-records";

/** The store of a node's records (saved-records.ts) as far as its life needs it. */
export interface RecordStore<R> {
  restorable(onBad: (key: string, field: string) => void): Promise<R[]>;
  removeAll(): Promise<void>;
  abandoned(): string[];
}

/** What is each node's own in the life of its records. */
export interface RecordHooks<R> {
  /**
   * The node closes (`removed`: deleted from the flows, not disabled). Called before the input handler's own close
   * listener, registered later: nothing the node runs has stopped yet.
   */
  closing(removed: boolean): void;
  /** False while the records must stay saved: the node closes, or its settings are invalid. */
  mayResume(): boolean;
  /** Hands the records read back to the node, each once. */
  resume(records: R[]): void;
}

interface SavedLifecycle<R extends { msg: NodeMessageInFlow }> extends RecordHooks<R> {
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
}

/** Registers the node's close listener and its resume at the next flows:started. */
function keepSavedRecords<R extends { msg: NodeMessageInFlow }>(life: SavedLifecycle<R>): void {
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
    // Node-RED closes a node on a tab the deploy disables, or one it marks `d: true`, exactly as
    // one it deletes: such a node's records stay, as at a stop, for the node enabled again, in
    // memory for the life of the process and in the store (issue 35, item 5).
    const deleted = removed && !disabledInDeploy(RED, node);
    life.closing(deleted);
    cancelResume();
    if (!deleted) {
      // The records stay in memory (and in the store) for the node the deploy puts here.
      done();
      return;
    }
    // Said, not silent: the flow asked for these commands and no output will tell their end.
    const abandoned = saved.abandoned();
    if (abandoned.length > 0)
      warn(
        t(`${type}.warn.abandoned`, { count: abandoned.length, commands: abandoned.join(", ") }),
      );
    life.forget();
    told.delete(contextId);
    saved.removeAll().then(done, (err: unknown) => {
      storeError(err);
      done();
    });
  });
}

/** The records of one node: its store, and keep(), which starts their life. */
export interface NodeSavedRecords<T, R extends { msg: NodeMessageInFlow }> {
  saved: SavedRecords<T, R>;
  /**
   * Registers the node's close listener and its resume at the next flows:started. Call it in the
   * constructor before handleInput, so that the records the handler cancels at close stay saved.
   */
  keep(hooks: RecordHooks<{ key: string } & R>): void;
}

/**
 * The records of the nodes of one type, per registration of the type, which Node-RED makes once
 * per process (a test helper's fresh runtime starts with none): each node's records in memory by
 * its context id (context-id.ts), and the nodes already told that a restart loses theirs.
 */
export class RecordsOfType<T, R extends { msg: NodeMessageInFlow }> {
  private readonly kept = new KeptRecords<T>();
  private readonly told = new Set<string>();

  constructor(
    private readonly RED: NodeAPI,
    private readonly type: string,
    private readonly kind: RecordKind<T, R>,
  ) {}

  /** The node's records, in the context store its Store property names (blank: the default). */
  of(node: Node, storeProperty: unknown, t: Translate): NodeSavedRecords<T, R> {
    const { RED, type, kept, told } = this;
    const contextId = contextIdOf(node);
    const store = blank(storeProperty) ? undefined : String(storeProperty).trim();
    const saved = new SavedRecords(node, store, kept.of(contextId), this.kind, (err) => {
      node.warn(t(`${type}.warn.store`, { detail: String(err) }));
    });
    const forget = (): void => {
      kept.forget(contextId);
    };
    return {
      saved,
      keep: (hooks) => {
        keepSavedRecords({ RED, node, type, t, store, saved, contextId, told, forget, ...hooks });
      },
    };
  }
}
