// nodes/lib/commands/sent-commands.ts: the runtime's registry of the commands it sent, which a
// resumed fleet device reads to tell its own command from another job's or flow's.
"use strict";
const assert = require("node:assert/strict");
const { lib } = require("../../support/lib");

const { SentCommands } = lib("commands/sent-commands");

const PATH = "/demo/devices/d1/:command";

describe("unit: commands/sent-commands", function () {
  it("should tell who sent a command, by its stream and id, and nothing of a command it did not send", function () {
    const sent = new SentCommands();
    sent.remember(PATH, "7", "fleet job-a d1");
    sent.remember("/demo/devices/d2/:command", "8", "");
    assert.equal(sent.senderOf(PATH, "7"), "fleet job-a d1");
    assert.equal(sent.senderOf("/demo/devices/d2/:command", "8"), "");
    // The same id on another device's stream is another command (servers may count per stream).
    assert.equal(sent.senderOf("/demo/devices/d2/:command", "7"), undefined);
    assert.equal(sent.senderOf(PATH, "9"), undefined);
  });

  it("should say a stream is quiet only once every request of this runtime to it has ended", async function () {
    const sent = new SentCommands();
    assert.equal(sent.busy(PATH), false);
    const first = sent.leaving(PATH);
    const second = sent.leaving(PATH);
    let quiet = false;
    const waited = sent.quiet(PATH).then(() => (quiet = true));
    first();
    first();
    await Promise.resolve();
    assert.equal(quiet, false, "quiet with a request still on the wire");
    assert.equal(sent.busy(PATH), true);
    second();
    await waited;
    assert.equal(sent.busy(PATH), false);
  });

  it("tells the server's creation date of a command it sent, and nothing of one it did not", function () {
    const sent = new SentCommands();
    sent.remember(PATH, "16", "", 1_700_000_000_123);
    sent.remember(PATH, "17", "");
    assert.equal(sent.createdAt("16"), 1_700_000_000_123);
    assert.equal(sent.createdAt("17"), undefined);
    assert.equal(sent.createdAt("14"), undefined);
  });
});
