// One device's wait for its command's markers: the round trip of edge-await-command
// (lib/commands/command-wait.ts: the account's shared inbox reads, the marker rules, the one more
// read after the deadline), ended into the fleet job's callback instead of a node's outputs.
import { CommandWait } from "../commands/command-wait";
import type { CommandWaitOptions, WaitOutcome } from "../commands/command-wait";

export type { WaitOutcome };

export class DeviceWait extends CommandWait {
  constructor(
    opts: CommandWaitOptions,
    private readonly done: (outcome: WaitOutcome) => void,
  ) {
    super(opts);
  }

  protected ended(outcome: WaitOutcome): void {
    this.done(outcome);
  }
}
