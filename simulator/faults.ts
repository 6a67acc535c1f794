// Fault injection: the real service is gone, so the failures a client must survive (gateways
// answering HTML, dropped connections, slow answers, 429/5xx, odd envelopes) are produced here on
// demand for the next matching requests.

export const FAULT_BODIES = ["html", "truncated", "no-head", "null-body", "ok-false"] as const;
export type FaultBody = (typeof FAULT_BODIES)[number];
export type FaultDrop = "before" | "after";

export interface FaultSpec {
  method?: string;
  /** Prefix of the pathname after /v5.0/<company>, e.g. "/event" or "/device/lcd-board". */
  path?: string;
  count?: number;
  status?: number;
  retryAfter?: string;
  /** Waits before the request is processed. */
  delayMs?: number;
  /** Processes the request at once and waits this long before answering. */
  answerDelayMs?: number;
  drop?: FaultDrop;
  body?: FaultBody;
}

export interface Fault {
  id: string;
  method: string | undefined;
  path: string | undefined;
  remaining: number;
  status: number | undefined;
  retryAfter: string | undefined;
  delayMs: number | undefined;
  answerDelayMs: number | undefined;
  drop: FaultDrop | undefined;
  body: FaultBody | undefined;
}

export class FaultError extends Error {}

const MAX_DELAY_MS = 10 * 60 * 1000;

export class Faults {
  private list: Fault[] = [];
  private nextId = 1;

  /** Validates a fault given over the control interface (untrusted JSON). */
  add(input: unknown): Fault {
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      throw new FaultError("a fault must be a JSON object");
    }
    const spec = input as Record<string, unknown>;
    const fault: Fault = {
      id: `f${this.nextId}`,
      method: optionalString(spec, "method")?.toUpperCase(),
      path: optionalString(spec, "path"),
      remaining: optionalInteger(spec, "count", 1, Number.MAX_SAFE_INTEGER) ?? 1,
      status: optionalInteger(spec, "status", 100, 599),
      retryAfter: optionalString(spec, "retryAfter"),
      delayMs: optionalInteger(spec, "delayMs", 0, MAX_DELAY_MS),
      answerDelayMs: optionalInteger(spec, "answerDelayMs", 0, MAX_DELAY_MS),
      drop: undefined,
      body: undefined,
    };
    const drop = spec.drop;
    if (drop !== undefined) {
      if (drop !== "before" && drop !== "after")
        throw new FaultError('drop must be "before" or "after"');
      fault.drop = drop;
    }
    const body = spec.body;
    if (body !== undefined) {
      const known = FAULT_BODIES.find((b) => b === body);
      if (known === undefined)
        throw new FaultError(`body must be one of ${FAULT_BODIES.join(", ")}`);
      fault.body = known;
    }
    if (fault.retryAfter !== undefined && /[\r\n]/.test(fault.retryAfter)) {
      throw new FaultError("retryAfter must be a single line");
    }
    this.nextId += 1;
    this.list.push(fault);
    return fault;
  }

  /** The first fault matching the request, used up by one; undefined when none applies. */
  take(method: string, subpath: string): Fault | undefined {
    if (this.list.length === 0) return undefined;
    const index = this.list.findIndex(
      (f) =>
        (f.method === undefined || f.method === method) &&
        (f.path === undefined || subpath.startsWith(f.path)),
    );
    if (index < 0) return undefined;
    const fault = this.list.at(index);
    if (fault === undefined) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.list.splice(index, 1);
    return fault;
  }

  view(): Fault[] {
    return this.list.map((f) => ({ ...f }));
  }

  clear(): void {
    this.list = [];
  }
}

function optionalString(spec: Record<string, unknown>, key: string): string | undefined {
  const value = spec[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new FaultError(`${key} must be a string`);
  return value;
}

function optionalInteger(
  spec: Record<string, unknown>,
  key: string,
  min: number,
  max: number,
): number | undefined {
  const value = spec[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new FaultError(`${key} must be an integer from ${min} to ${max}`);
  }
  return value;
}
