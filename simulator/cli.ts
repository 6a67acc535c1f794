#!/usr/bin/env node
// The edgewire-sim command: runs the simulator in the foreground until SIGINT or SIGTERM.

import {
  DEMO_FLEET,
  DEMO_TELEMETRY_MS,
  MAX_FLEET,
  start,
  type Simulator,
  type SimulatorOptions,
} from "./index";

const USAGE = `usage: edgewire-sim [--port <n>] [--host <addr>] [--seed <file>] [--command-delay <ms>]
                    [--telemetry <ms>] [--devices <n>] [--offline <names>] [--faulty <names>]
                    [--demo-fleet] [--demo]

  --port <n>            port to listen on (default 8686; 0 picks a free port)
  --host <addr>         address to bind (default 127.0.0.1)
  --seed <file>         seed JSON file (default: the bundled simulator/seed.json)
  --command-delay <ms>  delay before each inbox marker (default 20)
  --telemetry <ms>      sensor-hub reports into /<company>/telemetry this often (default 0: never)
  --devices <n>         adds n devices unit-001, unit-002 ... (default 0, at most ${MAX_FLEET})
  --offline <names>     these devices (comma-separated) start offline
  --faulty <names>      these devices answer every command with COMMAND_FAULT
  --demo-fleet          the fleet of example 07 and npm start: --devices ${DEMO_FLEET.devices} --faulty ${DEMO_FLEET.faulty.join(",")}
                        --offline ${DEMO_FLEET.offline.join(",")} (options after it change it)
  --demo                what all seven examples need, as npm start serves them: --demo-fleet
                        --telemetry ${DEMO_TELEMETRY_MS} (options after it change it)
`;

const FLAGS = [
  "--port",
  "--host",
  "--seed",
  "--command-delay",
  "--telemetry",
  "--devices",
  "--offline",
  "--faulty",
];

class UsageError extends Error {}

function parseArgs(argv: string[]): SimulatorOptions & { help: boolean } {
  const options: SimulatorOptions & { help: boolean } = { port: 8686, help: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv.at(i) ?? "";
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (flag === "--help" || flag === "-h") {
      options.help = true;
      continue;
    }
    if (flag === "--demo-fleet" || flag === "--demo") {
      if (flag !== arg) throw new UsageError(`${flag} takes no value`);
      Object.assign(options, structuredClone(DEMO_FLEET));
      if (flag === "--demo") options.telemetryMs = DEMO_TELEMETRY_MS;
      continue;
    }
    if (!FLAGS.includes(flag)) throw new UsageError(`unknown option: ${arg}`);
    let value: string | undefined;
    if (flag !== arg) value = arg.slice(eq + 1);
    else {
      i += 1;
      value = argv.at(i);
    }
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    switch (flag) {
      case "--port":
        options.port = integer(flag, value, 65535);
        break;
      case "--host":
        options.host = value;
        break;
      case "--seed":
        options.seed = value;
        break;
      case "--command-delay":
        options.commandDelayMs = integer(flag, value, 600000);
        break;
      case "--telemetry":
        options.telemetryMs = integer(flag, value, 3_600_000);
        break;
      case "--devices":
        options.devices = integer(flag, value, MAX_FLEET);
        break;
      case "--offline":
        options.offline = names(flag, value);
        break;
      case "--faulty":
        options.faulty = names(flag, value);
        break;
      default:
        throw new UsageError(`unknown option: ${arg}`);
    }
  }
  return options;
}

function integer(flag: string, value: string, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) > max) {
    throw new UsageError(`${flag} must be an integer from 0 to ${max}`);
  }
  return Number(value);
}

/** A comma-separated list of device names, none empty. */
function names(flag: string, value: string): string[] {
  const list = value.split(",").map((name) => name.trim());
  if (list.some((name) => name === "")) throw new UsageError(`${flag} needs device names: a,b`);
  return list;
}

async function main(): Promise<void> {
  let options: SimulatorOptions & { help: boolean };
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`edgewire-sim: ${err.message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return;
  }
  const host = options.host ?? "127.0.0.1";
  // Handlers go in before anything is printed: whoever reads the banner may signal at once.
  let sim: Simulator | undefined;
  let stopping = false;
  const stop = (signal: string): void => {
    // A second signal while closing changes nothing: close() is quick and always ends in exit.
    if (stopping) return;
    stopping = true;
    if (sim === undefined) process.exit(0);
    process.stdout.write(`edgewire simulator: ${signal}, stopping\n`);
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", () => {
    stop("SIGINT");
  });
  process.on("SIGTERM", () => {
    stop("SIGTERM");
  });
  try {
    sim = await start(options);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const message =
      code === "EADDRINUSE"
        ? `port ${options.port ?? 8686} on ${host} is already in use (choose another with --port)`
        : code === "EADDRNOTAVAIL"
          ? `cannot bind to ${host}`
          : err instanceof Error
            ? err.message
            : String(err);
    process.stderr.write(`edgewire-sim: ${message}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `edgewire simulator listening on ${sim.url} (company ${sim.company}, token ${sim.token})\n`,
  );
  // Examples 05 and 07 wait for what only these options make: say so before a flow hangs.
  if (!options.telemetryMs || !options.devices)
    process.stdout.write("Examples 05 (telemetry) and 07 (fleet) need --demo.\n");
}

main().catch((err: unknown) => {
  process.stderr.write(`edgewire-sim: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
