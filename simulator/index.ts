// Entry point of the bundled simulator: a local server that speaks the v5.0 API, since the hosted
// service no longer exists. Node-RED flows, tests and benchmarks point their base URL at it.

import fs from "node:fs";
import path from "node:path";
import type { IdStyle, MarkerStyle } from "./commands";
import { withFleet, type FleetOptions } from "./fleet";
import type { Stats } from "./request-log";
import { SimulatorServer } from "./server";
import type { SeedData } from "./seed";
import { Telemetry } from "./telemetry";

export type { IdStyle, MarkerStyle } from "./commands";
export type { RequestRecord, Stats } from "./request-log";
export type { FaultSpec } from "./faults";
export { DEMO_FLEET, FAULT_REASON, MAX_FLEET, fleetName, type FleetOptions } from "./fleet";
export type { SeedCompany, SeedData, SeedDevice, SeedEvent, SeedStream, SeedUser } from "./seed";
export { DEMO_TELEMETRY_MS } from "./telemetry";

/** With `devices`, `offline` and `faulty` (fleet.ts): a fleet beside the seed's devices. */
export interface SimulatorOptions extends FleetOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  /** A path to a seed JSON file or the seed itself; defaults to simulator/seed.json. */
  seed?: string | SeedData;
  /** Delay before each inbox marker, in ms; default 20. */
  commandDelayMs?: number;
  /** Shape of the inbox markers; default "value". */
  markerStyle?: MarkerStyle;
  /** Shape of event ids: "octave" (the default, e + 24 hex digits) or "uuid". */
  idStyle?: IdStyle;
  /** No warnings on stderr. */
  quiet?: boolean;
  /** Serve HTTPS with this PEM key and certificate; `url` then starts with https://. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** sensor-hub reports into /<company>/telemetry every this many ms; 0 (the default) = never. */
  telemetryMs?: number;
}

export interface Simulator {
  /** API base URL without /v5.0, e.g. "http://127.0.0.1:8686". */
  url: string;
  port: number;
  /** The first company of the seed, its first user and that user's token. */
  company: string;
  user: string;
  token: string;
  stats(): Stats;
  /** Closes the server, destroys keep-alive sockets and clears every timer. */
  close(): Promise<void>;
}

/** The package ships simulator/seed.json once, beside dist/ (this file is dist/simulator/). */
export function defaultSeedPath(): string {
  return path.resolve(__dirname, "..", "..", "simulator", "seed.json");
}

export function loadSeed(seed: string | SeedData | undefined): SeedData {
  if (seed !== undefined && typeof seed !== "string") return structuredClone(seed);
  const file = seed ?? defaultSeedPath();
  return JSON.parse(fs.readFileSync(file, "utf8")) as SeedData;
}

export async function start(options: SimulatorOptions = {}): Promise<Simulator> {
  const seed = withFleet(loadSeed(options.seed), options);
  const delay = options.commandDelayMs ?? 20;
  if (!Number.isFinite(delay) || delay < 0) throw new RangeError("commandDelayMs must be >= 0");
  const host = options.host ?? "127.0.0.1";
  const server = new SimulatorServer(
    seed,
    {
      commandDelayMs: delay,
      markerStyle: options.markerStyle ?? "value",
      idStyle: options.idStyle ?? "octave",
      maxPageSize: 0,
    },
    options.quiet ?? false,
    options.tls,
  );
  const telemetryMs = options.telemetryMs ?? 0;
  if (!Number.isFinite(telemetryMs) || telemetryMs < 0)
    throw new RangeError("telemetryMs must be >= 0");
  const port = await server.listen(options.port ?? 0, host);
  const telemetry = new Telemetry(() => server.store, telemetryMs);
  if (telemetryMs > 0) telemetry.start();
  const company = server.store.defaultCompany;
  const user = company.users.at(0);
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `${options.tls ? "https" : "http"}://${urlHost}:${port}`,
    port,
    company: company.name,
    user: user?.name ?? "",
    token: user?.token ?? "",
    stats: () => server.stats.snapshot(),
    close: () => {
      telemetry.stop();
      return server.close();
    },
  };
}
