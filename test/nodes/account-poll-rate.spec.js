// The account's Polls/s (issue 20): the budget of the rate limiter's poll lane, which inbox and
// stream reads use. Blank keeps what it was before the setting existed: 100 a second, or no limit
// on an account whose Requests/s is 0.
"use strict";
const assert = require("node:assert/strict");
const { helper, withRedAndSimulator } = require("../support/red");
const { startFlow } = require("../support/flow");

const pollBudget = () => helper.getNode("acc").services.client.limiter.limits.pollPerSecond;

describe("edge-account Polls/s", function () {
  const env = withRedAndSimulator();

  for (const [props, expected, what] of [
    [{ rate: "", pollRate: "" }, 100, "100 when blank"],
    [{ rate: "0", pollRate: "" }, 0, "no limit when blank and Requests/s is 0"],
    [{ rate: "", pollRate: "7" }, 7, "the number given"],
    [{ rate: "0", pollRate: "250" }, 250, "the number given, also without a rate limit"],
    [{ rate: "", pollRate: "0" }, 0, "no limit when 0"],
  ]) {
    it(`should set the poll lane's budget to ${what}`, async function () {
      await startFlow(env.sim, [], { account: props });
      assert.equal(pollBudget(), expected);
    });
  }
});
