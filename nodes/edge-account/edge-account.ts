// The config node: base URL, company and credentials, and what every node using this account
// shares (lib/account/services.ts), built once here and closed with the node. Its editor's "Test
// connection" is test-connection.ts, its device and stream lists directory.ts, the editor's
// "edge devices" sidebar sidebar.ts.
import type { NodeAPI } from "node-red";
import { EdgeClient } from "../lib/api/client";
import { EdgeError } from "../lib/api/errors";
import { AccountServices } from "../lib/account/services";
import type { AccountNode } from "../lib/account/lookup";
import { errorText, translator } from "../lib/node-red/i18n";
import { settingsOf } from "./settings";
import type { AccountDef, Credentials } from "./settings";
import { registerTestConnection } from "./test-connection";
import { registerDirectory } from "./directory";
import { registerSidebar } from "./sidebar";
import { ACCOUNT_RANGES, editorSettings } from "../lib/node-red/ranges";
import { contextIdOf } from "../lib/records/context-id";
import { forgetAnswerTimes, keptAnswerTimes } from "../lib/records/kept-answer-times";

export = function (RED: NodeAPI): void {
  const t = translator(RED, "edge-account");

  function EdgeAccountNode(this: AccountNode, def: AccountDef) {
    RED.nodes.createNode(this, def);
    this.name = def.name;
    // Test connection sends this account's stored token to this URL only.
    this.baseUrl = def.baseUrl;
    // ... and through this proxy only.
    this.proxy = def.proxy || undefined;
    try {
      const client = new EdgeClient(settingsOf(RED, def, this.credentials));
      // How fast the devices answered, learned by this account's previous instance (a redeploy):
      // a device's first command is read near it. Not saved in the node's context: writing it
      // there broke the fault harness's invariant that every command ends (await property, seed
      // 557593096 path 7), for a reason not found yet.
      const origin = `${def.baseUrl} ${def.company}`;
      const answers = keptAnswerTimes(contextIdOf(this), origin);
      this.services = new AccountServices(client, answers);
    } catch (err) {
      this.configError =
        err instanceof EdgeError ? err : new EdgeError("bad-config", { detail: String(err) });
      this.error(errorText(t, this.configError));
    }
    this.on("close", (removed: boolean, done: () => void) => {
      if (removed) forgetAnswerTimes(contextIdOf(this));
      void (this.services?.close() ?? Promise.resolve()).then(() => {
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
  registerSidebar(RED, t);
};
