// The await node's pending waits, saved as records (saved-records.ts): a result that comes after
// a redeploy or a restart still reaches the flow. The record is a SavedWait (saved-wait.ts),
// checked when read back by saved-wait-check.ts.
import type { NodeMessageInFlow } from "node-red";
import type { RecordKind, SavedRecords } from "./saved-records";
import type { SavedWait } from "./saved-wait";
import { checkSavedWait } from "./saved-wait-check";

export type { SavedWait } from "./saved-wait";

/** A saved wait that passed its check, ready to resume. */
export interface Restorable {
  key: string;
  wait: SavedWait;
  msg: NodeMessageInFlow;
}

/** What the await node's waits are, as records: saved-lifecycle.ts keeps them by this. */
export const WAITS: RecordKind<SavedWait, { wait: SavedWait; msg: NodeMessageInFlow }> = {
  prefix: "edgewire-await-",
  check(value, now, fromMemory) {
    const checked = checkSavedWait(value, now, fromMemory);
    return checked.ok ? { ...checked, record: checked.wait } : checked;
  },
  abandoned(wait) {
    const { path, streamId } = wait.inbox;
    const device = (path && /\/devices\/([^/]+)\/:inbox$/.exec(path)?.[1]) ?? path ?? streamId;
    return [`${wait.commandId ?? "?"} (${device ?? "?"})`];
  },
};

/** The waits of one node, in memory and in its context store. */
export type WaitStore = SavedRecords<SavedWait, { wait: SavedWait; msg: NodeMessageInFlow }>;
