// A pending wait as the await node saves it, in memory and in a context store: its own file, so
// that the store (saved-waits.ts) and the check of a record read back (saved-wait-check.ts) share
// it without importing each other.
import type { InboxRef } from "../commands/inbox-types";

export interface SavedWait {
  v: 1;
  inbox: InboxRef;
  commandId?: string;
  /** Markers created before this (server time) are not for the command. */
  since: number;
  /** When the wait times out, wall clock ms. */
  deadline: number;
  timeoutMs: number;
  intervalMs: number;
  ttl?: number;
  /** When the wait started, wall clock ms. */
  startedAt: number;
  /** The message, as JSON, without what could not be saved. */
  msg: string;
}
