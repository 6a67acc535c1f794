// Update rule 2 (docs/api-notes.md, Update rules): PUT replaces the whole state, so changing some
// keys means reading the state, changing it and writing all of it back. The read and the write are
// retried together: a retried write alone could put back a state someone else changed in between.
//
// Every write of one device's state through one account, merge or replace, runs in the account's
// queue of that device, one after another: a replace that landed between a merge's read and its
// write was silently undone by that write. A device is known by the id or name a flow gives, so
// two flows writing one device must address it the same way to share its queue.
import type { CallOptions, EdgeClient } from "../api/client";
import type { Device, State, StateValue } from "../api/types";
import type { KeyedQueue } from "./keyed-queue";

export type Patch = Record<string, StateValue | null>;

export function applyPatch(state: State, patch: Patch): State {
  const next = new Map(Object.entries(state));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  return Object.fromEntries(next);
}

function queueKey(device: string): string {
  return `device:${device}`;
}

/** Replaces the device's whole state, after any write of it already queued. */
export async function replace(
  client: EdgeClient,
  queue: KeyedQueue,
  device: string,
  state: State,
  call: CallOptions,
): Promise<Device> {
  return queue.run(queueKey(device), () => client.updateDevice(device, state, call));
}

/** Merges `patch` into the device's state, after any write of it already queued. */
export async function merge(
  client: EdgeClient,
  queue: KeyedQueue,
  device: string,
  patch: Patch,
  call: CallOptions,
): Promise<Device> {
  // The state written holds every key the patch sets: when those alone are over the payload
  // limit, the merge cannot succeed, and is refused before it reads anything.
  const sets = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== null));
  client.checkPayload(JSON.stringify({ state: sets }));
  return queue.run(queueKey(device), () =>
    client.retrying(true, call, async (signal, deadline) => {
      const once = { signal, retries: 0, deadline };
      const current = await client.getDevice(device, once);
      return client.updateDevice(device, applyPatch(current.state, patch), once);
    }),
  );
}
