// The JSON values the simulator stores and answers with: what its seed, its events and its
// control interface are made of.

export type Scalar = string | number | boolean;
export type JsonValue = Scalar | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}
