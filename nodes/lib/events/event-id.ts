// An event's id as the watch keeps it: text. The spec shows ids as strings, but a server with an
// integer id counter may send them as JSON numbers (7), as the client already takes for a created
// event (client.ts): a watch that skipped such events delivered nothing at all, silently.
/** The id as text: any string as it is, a whole number above 0 as its digits; else undefined. */
export function eventIdOf(id: unknown): string | undefined {
  if (typeof id === "string") return id;
  if (Number.isSafeInteger(id) && (id as number) > 0) return String(id);
  return undefined;
}
