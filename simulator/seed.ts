// The shape of a seed (simulator/seed.json, or one given to start() or --seed): the companies,
// users, devices and streams a simulator starts with.
import type { JsonObject, Scalar } from "./json";

export interface SeedUser {
  name: string;
  token: string;
  id?: string;
}
export interface SeedCompany {
  name: string;
  id?: string;
  users: SeedUser[];
}
export interface SeedDevice {
  name: string;
  /** Defaults to the first company. */
  company?: string;
  id?: string;
  resources?: string[];
  state?: Record<string, Scalar>;
  online?: boolean;
  commandStreamId?: string;
  inboxStreamId?: string;
  /** Events the device's :inbox keeps (default 1,000, at most 100,000). */
  inboxCapacity?: number;
  /** When set, every command the device runs ends in COMMAND_FAULT with this reason. */
  fault?: string;
}
export interface SeedEvent {
  elems: JsonObject;
  /** Absolute time in ms; without it the event is dated ageMs (default: its rank in seconds) ago. */
  creationDate?: number;
  ageMs?: number;
}
export interface SeedStream {
  path: string;
  id?: string;
  capacity?: number;
  events?: SeedEvent[];
}
export interface SeedData {
  companies: SeedCompany[];
  devices?: SeedDevice[];
  streams?: SeedStream[];
}
