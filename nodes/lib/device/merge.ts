// Update rule 2 (docs/api-notes.md, Update rules): PUT replaces the whole state, so changing some
// keys means reading the state, changing it and writing all of it back. The read and the write are
// retried together: a retried write alone could put back a state someone else changed in between.
import type { CallOptions, EdgeClient } from "../api/client";
import type { Device, State, StateValue } from "../api/types";

export type Patch = Record<string, StateValue | null>;

export function applyPatch(state: State, patch: Patch): State {
  const next = new Map(Object.entries(state));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  return Object.fromEntries(next);
}

export function merge(
  client: EdgeClient,
  device: string,
  patch: Patch,
  call: CallOptions,
): Promise<Device> {
  return client.retrying(true, call, async (signal) => {
    const once = { signal, retries: 0 };
    const current = await client.getDevice(device, once);
    return client.updateDevice(device, applyPatch(current.state, patch), once);
  });
}
