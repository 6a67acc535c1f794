// `npm run fuzz -- [--property await|fleet|watch] [--runs N] [--seed S --path P] [--shrink]`:
// the harness outside mocha, for longer runs and for replaying one failing schedule (the seed and
// path a failure printed). Without --property it runs the three in turn. Exit code 1 on failure.
"use strict";
const { parseArgs } = require("node:util");
const { helper } = require("./flow");
const { startFuzzServer } = require("./server");
const { runProperty } = require("./properties");

const { values } = parseArgs({
  options: {
    property: { type: "string" },
    runs: { type: "string", default: "100" },
    seed: { type: "string" },
    path: { type: "string" },
    shrink: { type: "boolean", default: false },
  },
});

async function main() {
  await new Promise((resolve) => helper.startServer(resolve));
  const server = await startFuzzServer();
  let failed = false;
  try {
    const names = values.property ? [values.property] : ["await", "fleet", "watch"];
    for (const name of names) {
      const started = Date.now();
      const result = await runProperty(name, server, {
        numRuns: Number(values.runs),
        seed: values.seed === undefined ? undefined : Number(values.seed),
        path: values.path,
        endOnFailure: !values.shrink,
      });
      const took = ((Date.now() - started) / 1000).toFixed(1);
      if (result.failure) {
        failed = true;
        console.log(`${result.failure}\n(${took} s)\n`);
      } else
        console.log(
          `property "${name}": ${result.runs} runs held (seed ${result.seed}, ${took} s)`,
        );
    }
  } finally {
    await server.close();
    await new Promise((resolve) => helper.stopServer(resolve));
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
