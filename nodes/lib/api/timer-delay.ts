// The one way to turn a delay into a timer's argument. Node fires a timer given more than
// 2,147,483,647 ms (or NaN) after 1 ms, with a TimeoutOverflowWarning: a server's
// `Retry-After: 99999999` once made the inbox poll of an await node read about 100 times a second
// instead of pausing. Every timer whose delay a server can influence (Retry-After, a creation
// date, a deadline read back from a context store) takes its delay from here.

/** The longest delay Node's timers keep (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` as a timer can take it: a whole number from 0 to MAX_TIMER_MS; NaN is 0. */
export function timerDelay(ms: number): number {
  if (Number.isNaN(ms) || ms <= 0) return 0;
  return Math.min(MAX_TIMER_MS, Math.ceil(ms));
}
