// The answer times an account learned (lib/commands/answer-times.ts), in this process's memory
// under the account node's context id, across the node's close and its re-creation by a deploy:
// a redeploy used to start every account with nothing learned, and its devices' first commands
// each waited a whole interval (issue 29). As for the saved waits (kept-records.ts), memory is
// what carries them across a redeploy whatever the settings. A restart starts cold.
import { AnswerTimes } from "../commands/answer-times";

interface Kept {
  /** The server and company they were learned from: another one's devices are not these. */
  origin: string;
  answers: AnswerTimes;
}

const byAccount = new Map<string, Kept>();

/** The account's learned answer times, made empty the first time or when `origin` changed. */
export function keptAnswerTimes(contextId: string, origin: string): AnswerTimes {
  const kept = byAccount.get(contextId);
  if (kept && kept.origin === origin) return kept.answers;
  const answers = new AnswerTimes();
  byAccount.set(contextId, { origin, answers });
  return answers;
}

/** The account node was removed from the flows: what it learned goes with it. */
export function forgetAnswerTimes(contextId: string): void {
  byAccount.delete(contextId);
}
