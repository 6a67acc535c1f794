// The await node's pending waits in this process's memory, across a redeploy (kept-records.ts).
import { KeptRecords } from "./kept-records";
import type { NodeRecords } from "./kept-records";
import type { SavedWait } from "./saved-wait";

export type NodeWaits = NodeRecords<SavedWait>;

export class KeptWaits extends KeptRecords<SavedWait> {}
