// The config node: base URL, company and credentials, and the one EdgeClient (connection pool,
// rate limit) plus what every node using this account shares: the per-device merge queue, the
// inbox poller, the stream watcher and the device-name cache. Its editor's "Test connection" is test-connection.ts.
import type { NodeAPI } from "node-red";
import { EdgeClient } from "../lib/api/client";
import { EdgeError } from "../lib/api/errors";
import { KeyedQueue } from "../lib/account/keyed-queue";
import { InboxPoller } from "../lib/commands/inbox-poller";
import { DeviceNames } from "../lib/device/names";
import { StreamWatcher } from "../lib/events/stream-watcher";
import { AccountHealth } from "../lib/account/health";
import type { AccountNode } from "../lib/account/lookup";
import { describe, translator } from "../lib/node-red/i18n";
import { settingsOf } from "./settings";
import type { AccountDef, Credentials, DeployedAccount } from "./settings";
import { registerTestConnection } from "./test-connection";
import { registerDirectory } from "./directory";
import { ACCOUNT_RANGES, editorSettings } from "../lib/node-red/ranges";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export = function (RED: NodeAPI): void {
  const t = translator(RED, "edge-account");

  function EdgeAccountNode(this: AccountNode, def: AccountDef) {
    RED.nodes.createNode(this, def);
    this.name = def.name;
    const self = this as Mutable<AccountNode & DeployedAccount>;
    // Test connection sends this account's stored token to this URL only.
    self.baseUrl = def.baseUrl;
    self.serial = new KeyedQueue();
    try {
      self.client = new EdgeClient(settingsOf(RED, def, this.credentials));
      self.poller = new InboxPoller(self.client);
      self.names = new DeviceNames(self.client);
      self.watcher = new StreamWatcher(self.client);
      const limiter = self.client.limiter;
      const health = new AccountHealth(() => limiter.queued, t);
      self.client.onAttempt = (err) => {
        health.report(err);
      };
      self.health = health;
    } catch (err) {
      self.configError =
        err instanceof EdgeError ? err : new EdgeError("bad-config", { detail: String(err) });
      this.error(describe(t, self.configError));
    }
    this.on("close", (_removed: boolean, done: () => void) => {
      self.poller?.close();
      self.watcher?.close();
      self.health?.close();
      void (self.client?.close() ?? Promise.resolve()).then(() => {
        done();
      });
    });
  }

  RED.nodes.registerType<AccountNode, AccountDef, unknown, Credentials>(
    "edge-account",
    EdgeAccountNode,
    {
      credentials: { user: { type: "text" }, token: { type: "password" } },
      settings: editorSettings("edge-account", ACCOUNT_RANGES),
    },
  );

  registerTestConnection(RED, t);
  registerDirectory(RED, t);
};
