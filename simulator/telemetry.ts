// The demo's reporting device: every few seconds sensor-hub writes a temperature and a humidity
// into the company's `/<company>/telemetry` stream, as a device with a periodic upload would. The
// temperature swings slowly between about 18.5 and 25.5 °C (a 90 s cycle), so a flow that acts
// above 25 °C has something to do once a cycle. Off unless asked for (`telemetryMs`).
import type { Store } from "./store";

export const TELEMETRY_DEVICE = "sensor-hub";
/** The period `npm start` and `edgewire-sim --demo` report at: example 05 sees a reading soon. */
export const DEMO_TELEMETRY_MS = 3000;
const CYCLE_MS = 90_000;

/** The reading at time `ms`: a slow wave plus a small wobble, one decimal. */
export function reading(ms: number): { temperature: number; humidity: number } {
  const phase = (2 * Math.PI * (ms % CYCLE_MS)) / CYCLE_MS;
  const wobble = 0.2 * Math.sin(ms / 7_000);
  return {
    temperature: Math.round((22 + 3.5 * Math.sin(phase) + wobble) * 10) / 10,
    humidity: Math.round(42 - 3 * Math.sin(phase)),
  };
}

export class Telemetry {
  private timer: NodeJS.Timeout | undefined;

  /** `store` is asked for on every tick: a reset of the simulator replaces it. */
  constructor(
    private readonly store: () => Store,
    private readonly everyMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.report();
    }, this.everyMs);
    // A simulator that is otherwise done must not stay alive for its demo device.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One reading now; a seed without the stream or the device reports nothing. */
  report(): void {
    const store = this.store();
    const company = store.defaultCompany;
    const stream = store.streamByPath(`/${company.name}/telemetry`);
    const device = store.findDevice(company, TELEMETRY_DEVICE);
    if (stream === undefined || device === undefined) return;
    const now = Date.now();
    store.addEvent(
      stream,
      { ...reading(now), device: device.name },
      undefined,
      device.identityId,
      now,
    );
  }
}
