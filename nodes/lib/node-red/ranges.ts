// The number settings of every node: range and default, in one place. The runtime checks its
// inputs against them, and each node's registerType exports its own to the editor as a setting
// (RED.settings.<type>Ranges, read by resources/edge-editor.js), so the dialog's validators and
// placeholders say exactly what the runtime will do.
import {
  DEFAULT_MAX_ANSWER_BYTES,
  DEFAULT_MAX_PAYLOAD_BYTES,
  DEFAULT_TIMEOUT_MS,
} from "../api/account-settings";
import { DEFAULT_POLLS_PER_SECOND, DEFAULT_RATE_LIMIT } from "../api/rate-limiter";
import { DEFAULT_RETRY } from "../api/retry";
import { MAX_TIMER_MS } from "../api/timer-delay";

export interface Range {
  min: number;
  max: number;
  /** Used when the field is blank; none means blank has a meaning of its own (see the help). */
  default?: number;
}

export const ACCOUNT_RANGES = {
  timeout: { min: 1, max: MAX_TIMER_MS, default: DEFAULT_TIMEOUT_MS },
  retries: { min: 0, max: 10, default: DEFAULT_RETRY.retries },
  rate: { min: 0, max: 100_000, default: DEFAULT_RATE_LIMIT.perSecond },
  /** Blank: 100, or no limit when `rate` is 0 (an account without a rate limit). */
  pollRate: { min: 0, max: 100_000, default: DEFAULT_POLLS_PER_SECOND },
  concurrency: { min: 1, max: 1000, default: DEFAULT_RATE_LIMIT.concurrent },
  queue: { min: 0, max: 1_000_000, default: DEFAULT_RATE_LIMIT.queueMax },
  maxPayload: { min: 1, max: 64 * 1024 * 1024, default: DEFAULT_MAX_PAYLOAD_BYTES },
  maxAnswer: { min: 1, max: 1024 * 1024 * 1024, default: DEFAULT_MAX_ANSWER_BYTES },
} satisfies Record<string, Range>;

export const LIST_EVENTS_RANGES = {
  limit: { min: 1, max: 10_000, default: 20 },
  start: { min: 0, max: MAX_TIMER_MS, default: 0 },
  maxEvents: { min: 1, max: 1_000_000, default: 1000 },
} satisfies Record<string, Range>;

export const SEND_COMMAND_RANGES = {
  /** Blank: no ttl is sent. */
  ttl: { min: 0, max: MAX_TIMER_MS },
} satisfies Record<string, Range>;

export const AWAIT_COMMAND_RANGES = {
  /** Blank: the command's ttl, else 30 s. */
  timeout: { min: 1, max: MAX_TIMER_MS },
  interval: { min: 50, max: 3_600_000, default: 1000 },
} satisfies Record<string, Range>;

export const FLEET_COMMAND_RANGES = {
  /** Blank: no ttl is sent. */
  ttl: SEND_COMMAND_RANGES.ttl,
  /** Devices started per second; 0: as fast as the account's rate limit lets them. */
  rate: { min: 0, max: 10_000, default: 5 },
  concurrency: { min: 1, max: 10_000, default: 10 },
  /** 0: the rollout never stops for failures. */
  maxFailures: { min: 0, max: 10_000, default: 0 },
  /** Blank: the ttl, else 30 s, as edge-await-command. */
  timeout: AWAIT_COMMAND_RANGES.timeout,
  interval: AWAIT_COMMAND_RANGES.interval,
} satisfies Record<string, Range>;

export const WATCH_EVENTS_RANGES = {
  interval: { min: 250, max: 86_400_000, default: 5000 },
  /** The stream watcher reads at most 10,000 events at once (MAX_READ_EVENTS). */
  last: { min: 1, max: 10_000, default: 10 },
} satisfies Record<string, Range>;

/** Used by edge-await-command when neither the node, the msg nor the command gives a timeout. */
export const DEFAULT_AWAIT_TIMEOUT_MS = 30_000;

/**
 * The `settings` option of registerType: Node-RED sends an exportable setting to the editor as
 * RED.settings.<name>, and the name must start with the node type in camel case.
 */
export function editorSettings(
  type: string,
  ranges: Record<string, Range>,
): Record<string, { value: unknown; exportable: true }> {
  const camel = type.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
  return { [`${camel}Ranges`]: { value: ranges, exportable: true } };
}
