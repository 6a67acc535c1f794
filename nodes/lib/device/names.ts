// A command goes to the stream path `/<company>/devices/<name>/:command`, which needs the device's
// name, while flows often hold its id (edge-device-state's msg.device.id, say). An id is turned
// into the name with one GET /device/<id> per account and remembered; a name is used as it is.
import type { CallOptions, EdgeClient } from "../api/client";

/** A device id of the real service: `d` and 24 lowercase hex digits. */
const DEVICE_ID = /^d[0-9a-f]{24}$/;
/** Bounds the memory of an account that sees endless ids; past it the cache starts again. */
const MAX_NAMES = 10_000;

export class DeviceNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly client: EdgeClient) {}

  async nameOf(device: string, call: CallOptions): Promise<string> {
    if (!DEVICE_ID.test(device)) return device;
    const known = this.names.get(device);
    if (known !== undefined) return known;
    const found = await this.client.getDevice(device, call);
    // `name` is in every device the real service returned; the path ends with it too.
    const fromPath = typeof found.path === "string" ? found.path.split("/").at(-1) : undefined;
    const name = typeof found.name === "string" && found.name ? found.name : fromPath || device;
    if (this.names.size >= MAX_NAMES) this.names.clear();
    this.names.set(device, name);
    return name;
  }
}
