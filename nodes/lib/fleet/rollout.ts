// The pace of a fleet job: which device starts next and when. Devices start in their order, at
// most `rate` a second (0: as fast as the account's own rate limit lets the sends through) and
// with at most `concurrency` of them between their send and their outcome. Once `maxFailures`
// devices have failed, or the job is cancelled, no further device starts: those left are
// `not-sent`. Devices already sent or being sent when the job resumes are run first, outside the
// pace: they started before.
import type { DeviceRecord, JobRecord, RolloutSettings } from "./job";
import { isFailure } from "./job";

/** Runs one device from its send to its outcome; resolves once its record says how it ended. */
export type RunDevice = (device: DeviceRecord) => Promise<void>;

export class Rollout {
  private inFlight = 0;
  /** Index of the next device to look at for a start. */
  private next = 0;
  private lastStart = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private finished = false;
  private failures = 0;
  /**
   * The devices whose run has started. A device resumed as `sending` whose command was not found
   * on its stream goes back to `pending` inside its run, to be sent there: taken by its state
   * alone, the next device to start was that one again, and its second run sent it a second time
   * (the fault harness's fleet property, seed 703, path 54: one device ran twice, 3 ms apart).
   */
  private readonly launched = new WeakSet<DeviceRecord>();

  constructor(
    private readonly job: JobRecord,
    private readonly settings: RolloutSettings,
    private readonly run: RunDevice,
    /** Called once, when every device has its outcome (not after close()). */
    private readonly onEnd: () => void,
  ) {}

  /** Starts the job, or resumes it: devices sent or being sent are run again at once. */
  start(): void {
    for (const d of this.job.devices) if (isFailure(d.outcome)) this.failures++;
    this.checkStopRule();
    for (const d of this.job.devices)
      if (d.state === "sending" || d.state === "sent") this.launch(d);
    this.pump();
  }

  /** msg.cancel: no further device starts; those in flight are still awaited. */
  cancel(): void {
    if (this.job.stopped === undefined) this.job.stopped = "cancelled";
    this.pump();
  }

  /** The node closes: everything stops where it is, the record stays as it is to resume from. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Every device has its outcome and onEnd was called. */
  get hasEnded(): boolean {
    return this.finished;
  }

  get stopping(): boolean {
    return this.job.stopped !== undefined;
  }

  private checkStopRule(): void {
    const max = this.settings.maxFailures;
    if (max > 0 && this.failures >= max && this.job.stopped === undefined)
      this.job.stopped = "aborted";
  }

  /**
   * A device has its outcome: told at once, not when its run's promise settles, so that a device
   * still waiting for the account's room sees the stop rule before it is sent.
   */
  outcome(d: DeviceRecord): void {
    if (isFailure(d.outcome)) this.failures++;
    this.checkStopRule();
  }

  private launch(d: DeviceRecord): void {
    this.launched.add(d);
    this.inFlight++;
    this.run(d).then(
      () => {
        this.ended();
      },
      () => {
        // A run records its own outcome; a throw here is a bug, and the device counts as ended
        // so that the job still reports.
        this.ended();
      },
    );
  }

  private ended(): void {
    this.inFlight--;
    if (this.closed) return;
    this.pump();
  }

  /** A device to start: pending, and never started by this rollout. */
  private startable(d: DeviceRecord | undefined): boolean {
    return d !== undefined && d.state === "pending" && !this.launched.has(d);
  }

  private pump(): void {
    if (this.closed || this.finished) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const devices = this.job.devices;
    const { rate, concurrency } = this.settings;
    // Bounded by the devices: each pass either starts one or leaves.
    while (this.job.stopped === undefined && this.inFlight < concurrency) {
      while (this.next < devices.length && !this.startable(devices[this.next])) this.next++;
      const d = devices[this.next];
      if (!d) break;
      if (rate > 0) {
        const wait = this.lastStart + 1000 / rate - performance.now();
        if (wait > 0) {
          this.timer = setTimeout(() => {
            this.pump();
          }, Math.ceil(wait));
          return;
        }
      }
      this.lastStart = performance.now();
      this.next++;
      this.launch(d);
    }
    if (this.inFlight > 0) return;
    const left = devices.some((d) => this.startable(d));
    if (left && this.job.stopped === undefined) return;
    for (const d of devices) {
      if (d.state === "pending") {
        d.state = "ended";
        d.outcome = "not-sent";
      }
    }
    this.finished = true;
    this.onEnd();
  }
}
