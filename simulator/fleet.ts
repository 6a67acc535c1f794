// The extra devices of `--devices N` (`devices` from JavaScript): a fleet of line displays named
// unit-001, unit-002 ..., so that the fleet example and the benchmarks have more than the seed's
// three devices to send one command to, and `--offline` and `--faulty` to make some of them
// misbehave the way a real fleet does. They are added to the seed itself, so /_sim/reset keeps them.
import type { SeedData, SeedDevice } from "./seed";

/** The most devices --devices adds: enough for the 1,000-device benchmark, bounded all the same. */
export const MAX_FLEET = 10000;

/** The reason every command of a --faulty device ends with in its COMMAND_FAULT marker. */
export const FAULT_REASON = "simulated device fault";

/**
 * The fleet `npm start` runs and example 07 sends its command to: twelve displays, one that
 * faults every command and one that is offline (its command times out).
 */
export const DEMO_FLEET: Readonly<Required<FleetOptions>> = {
  devices: 12,
  offline: ["unit-009"],
  faulty: ["unit-004"],
};

export interface FleetOptions {
  /** Adds this many devices unit-001 ... to the first company (0, the default: none). */
  devices?: number;
  /** Names of devices (of the seed or the fleet) that start offline. */
  offline?: string[];
  /** Names of devices that answer every command with COMMAND_FAULT. */
  faulty?: string[];
}

/** unit-001 ... unit-999, unit-0001 ... from 1,000 on: names sort in the order they are made. */
export function fleetName(n: number, count: number): string {
  return "unit-" + String(n).padStart(Math.max(3, String(count).length), "0");
}

/** The seed with the fleet added and the offline and faulty devices marked; throws on a bad name. */
export function withFleet(seed: SeedData, options: FleetOptions): SeedData {
  const count = options.devices ?? 0;
  if (!Number.isInteger(count) || count < 0 || count > MAX_FLEET) {
    throw new RangeError(`devices must be an integer from 0 to ${MAX_FLEET}`);
  }
  const devices: SeedDevice[] = [...(seed.devices ?? [])];
  const company = seed.companies.at(0)?.name;
  for (let n = 1; n <= count; n += 1) {
    devices.push({
      name: fleetName(n, count),
      ...(company === undefined ? {} : { company }),
      resources: ["/lcd/txt1", "/lcd/txt2"],
      state: { "/lcd/txt1": "", "/lcd/txt2": "" },
    });
  }
  const mark = (names: string[] | undefined, change: Partial<SeedDevice>): void => {
    for (const name of names ?? []) {
      // The first company's devices only: the fleet and the example live there.
      const at = devices.findIndex(
        (d) => d.name === name && (d.company === undefined || d.company === company),
      );
      const found = devices.at(at);
      if (at < 0 || found === undefined) throw new RangeError(`no device named ${name}`);
      devices[at] = { ...found, ...change };
    }
  };
  mark(options.offline, { online: false });
  mark(options.faulty, { fault: FAULT_REASON });
  return { ...seed, devices };
}
