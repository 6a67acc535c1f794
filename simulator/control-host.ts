// What every route of the /_sim control interface acts on and gives back: the simulator that owns
// the interface (server.ts) and a route's answer. The router (control.ts) and the routes in files
// of their own (control-devices.ts, control-events.ts) share it without naming one another.
import type { CommandConfig, CommandProcessor } from "./commands";
import type { Faults } from "./faults";
import type { RequestLog, StatsCounter } from "./request-log";
import type { Store } from "./store";

export interface ControlResponse {
  status: number;
  value: unknown;
}

/** What the control interface needs from the simulator that owns it. */
export interface ControlHost {
  readonly store: Store;
  readonly commands: CommandProcessor;
  readonly faults: Faults;
  readonly stats: StatsCounter;
  readonly log: RequestLog;
  readonly config: CommandConfig;
  reset(): void;
}
