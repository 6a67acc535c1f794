// Each benchmark section runs in a fresh process (forked by run.js), so one section's garbage,
// sockets and peak memory never colour the next. A section module calls runSection(fn): the
// result goes to the parent over IPC, or to stdout when the file is run by hand.
"use strict";

function runSection(name, fn) {
  const args = process.argv.slice(2);
  const only = args.find((a) => a.startsWith("--only="));
  const options = { quick: args.includes("--quick"), only: only ? only.slice(7).split(",") : null };
  fn(options).then(
    (result) => {
      if (process.send) process.send({ section: name, result });
      else process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      // Node-RED leaves timers (context flush, comms) behind; the section is over.
      setTimeout(() => process.exit(0), 100);
    },
    (err) => {
      process.stderr.write(`${name} failed: ${err && err.stack ? err.stack : err}\n`);
      process.exit(1);
    },
  );
}

/** Logs progress on stderr, so stdout stays the result. */
function progress(text) {
  process.stderr.write(`  ${text}\n`);
}

module.exports = { runSection, progress };
