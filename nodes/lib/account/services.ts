// What one account shares with every node that uses it, built once from a valid configuration and
// closed as one: the API client (connection pool, rate limit), the per-device write queue, the
// inbox poller, the stream watcher, the device-name cache and the account's health.
import type { EdgeClient } from "../api/client";
import type { AnswerTimes } from "../commands/answer-times";
import { InboxPoller } from "../commands/inbox-poller";
import { KeyedQueue } from "../device/keyed-queue";
import { DeviceNames } from "../device/names";
import { StreamWatcher } from "../events/stream-watcher";
import { AccountHealth } from "./health";

export class AccountServices {
  /** Writes of one device's state, one after another, so a merge never undoes another write. */
  readonly deviceWrites = new KeyedQueue();
  /** Shared polling of device inboxes for edge-await-command. */
  readonly poller: InboxPoller;
  /** Device ids turned into the names that stream paths need. */
  readonly names: DeviceNames;
  /** Shared reads of the streams that edge-watch-events nodes watch. */
  readonly watcher: StreamWatcher;
  /** Queue, 429 wait and authentication state, shown on every node of the account. */
  readonly health: AccountHealth;

  /** `answers`: the devices' answer times the account learned before (a redeploy keeps them). */
  constructor(
    readonly client: EdgeClient,
    answers?: AnswerTimes,
  ) {
    this.poller = new InboxPoller(client, answers);
    this.names = new DeviceNames(client);
    this.watcher = new StreamWatcher(client);
    const limiter = client.limiter;
    const health = new AccountHealth(() => limiter.queued);
    client.onAttempt = (err) => {
      health.report(err);
    };
    this.health = health;
  }

  /** Stops the polls, the watches and the health tick, then closes the client's connections. */
  async close(): Promise<void> {
    this.poller.close();
    this.watcher.close();
    this.health.close();
    await this.client.close();
  }
}
