// The shapes of the v5.0 API (docs/api-notes.md, "Objects"). Fields the API does not describe and
// fields seen only in the real service are optional: servers differ, and the nodes must ignore
// what they do not know rather than fail on it.

/** A resource value: the spec allows strings, numbers and booleans only. */
export type StateValue = string | number | boolean;

/** A device's state: resource path (`/lcd/txt1`, `virtual/x/value`) to value. */
export type State = Record<string, StateValue>;

/** Command elems: flat resource paths or nested objects that follow the path, sent as written. */
export interface Elems {
  [key: string]: StateValue | Elems;
}

export interface Head {
  status: number;
  ok: boolean;
  messages?: string[];
  errors?: string[];
  references?: Record<string, unknown>;
}

export interface Envelope<T> {
  head: Head;
  body?: T | null;
}

export interface Device {
  id: string;
  name?: string;
  path?: string;
  avSystemId?: string;
  blueprintId?: { id: string; version: number };
  broadcastDate?: number;
  state: State;
  [field: string]: unknown;
}

export interface EventMetadata {
  ttl?: number;
  timeout?: number;
  [field: string]: unknown;
}

export interface DeviceEvent {
  id: string;
  streamId: string;
  path: string;
  creationDate: number;
  version?: number;
  elems: Record<string, unknown>;
  metadata?: EventMetadata;
  [field: string]: unknown;
}

/** The page of a list to ask for: `limit` events from index `start` (the query, not the answer). */
export interface PageQuery {
  limit: number;
  start: number;
}
