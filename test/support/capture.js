// Everything a user could see during the suite (messages sent, statuses, log lines, errors given
// to Catch nodes, errors thrown by the client) is recorded here, and a root hook fails the test in
// which any of it contains a token or the proxy specs' password (as itself or in the Basic
// credentials a proxy is sent). The tokens come from the simulator's seed and the tests' own
// invented ones.
"use strict";
const { inspect } = require("node:util");
const { PROXY_USER, PROXY_PASSWORD } = require("./proxy");

const SECRETS = new Set([
  "demo-token-0123456789abcdef",
  "other-token-fedcba9876543210",
  PROXY_PASSWORD,
  Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString("base64"),
]);
let seen = [];
let total = 0;

function addSecret(token) {
  SECRETS.add(token);
}

function text(value) {
  if (value instanceof Error) {
    return `${value.message} ${inspect(value, { depth: 6 })} ${JSON.stringify(value)}`;
  }
  if (typeof value === "string") return value;
  try {
    return `${JSON.stringify(value)} ${inspect(value, { depth: 6 })}`;
  } catch {
    return inspect(value, { depth: 6 });
  }
}

/** Records what a user could see. */
function capture(where, ...values) {
  for (const v of values) {
    seen.push({ where, text: text(v) });
    total++;
  }
}

/** Fails when anything recorded since the last check holds a secret. */
function check() {
  const found = [];
  for (const entry of seen) {
    for (const s of SECRETS)
      if (entry.text.includes(s)) found.push(`${entry.where}: ${entry.text.slice(0, 300)}`);
  }
  seen = [];
  if (found.length > 0) throw new Error(`a token was captured:\n${found.join("\n")}`);
}

module.exports = { capture, check, addSecret, count: () => total };
