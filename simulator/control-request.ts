// What a control request carries, read strictly: a malformed segment, body or query answers 400
// with a sentence saying what is wrong, as ControlError, never a crash of the simulator.

/** A refusal of a control request: its HTTP status and the sentence the answer carries. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ControlError(400, `Malformed URL segment: ${segment}`);
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function parseJson(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ControlError(400, "Malformed JSON body");
  }
}

export function parseBody(text: string): Record<string, unknown> {
  const value = parseJson(text);
  if (!isObject(value)) throw new ControlError(400, "The body must be a JSON object");
  return value;
}

export function intQuery(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,15}$/.test(raw))
    throw new ControlError(400, `${name} must be a non-negative integer`);
  return Number(raw);
}
