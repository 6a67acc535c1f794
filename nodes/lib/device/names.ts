// One meaning for Device in every node: a device id or its name. A command goes to the stream path
// `/<company>/devices/<name>/:command`, which needs the name, so an id is turned into the name
// with one GET /device/<id>. The device requests need what the server knows: every server knows
// ids, and many also take a name in `GET|PUT /device/<name>` (a documented fall-back, see
// docs/api-notes.md). When a name is answered 404 there, the name is looked up once in the
// device list (`GET /device?filter=name=="…"`) and its id used from then on. Both directions are
// remembered per account.
import type { CallOptions, EdgeClient } from "../api/client";
import { EdgeError } from "../api/errors";

/** A device id of the real service: `d` and 24 lowercase hex digits. */
const DEVICE_ID = /^d[0-9a-f]{24}$/;
/** Bounds the memory of an account that sees endless devices; past it a cache starts again. */
const MAX_NAMES = 10_000;

function remember(map: Map<string, string>, key: string, value: string): void {
  if (map.size >= MAX_NAMES) map.clear();
  map.set(key, value);
}

export class DeviceNames {
  /** id → name */
  private readonly names = new Map<string, string>();
  /** name → id, for servers that take no name in a device path */
  private readonly ids = new Map<string, string>();

  constructor(private readonly client: EdgeClient) {}

  /**
   * The name of `device` when it takes no request: it is a name, or an id already looked up. A
   * command's hot path calls this first, so that it awaits nothing in the common case.
   */
  knownName(device: string): string | undefined {
    return DEVICE_ID.test(device) ? this.names.get(device) : device;
  }

  async nameOf(device: string, call: CallOptions): Promise<string> {
    const known = this.knownName(device);
    if (known !== undefined) return known;
    const found = await this.client.getDevice(device, call);
    // `name` is in every device the real service returned; the path ends with it too.
    const fromPath = typeof found.path === "string" ? found.path.split("/").at(-1) : undefined;
    const name = typeof found.name === "string" && found.name ? found.name : fromPath || device;
    remember(this.names, device, name);
    return name;
  }

  /**
   * Runs a device request with `device` as given, or with the id of the device of that name when
   * the server takes no name in a device path. `run` must be safe to run again after a 404.
   */
  async withDevice<T>(
    device: string,
    call: CallOptions,
    run: (ref: string) => Promise<T>,
  ): Promise<T> {
    if (DEVICE_ID.test(device)) return run(device);
    const id = this.ids.get(device);
    if (id !== undefined) return run(id);
    try {
      return await run(device);
    } catch (err) {
      if (!(err instanceof EdgeError && err.status === 404)) throw err;
      const found = await this.idOf(device, call);
      if (found === null) throw err;
      remember(this.ids, device, found);
      remember(this.names, found, device);
      return run(found);
    }
  }

  /** The id of the device named `name` from the device list; null when none has that name. */
  private async idOf(name: string, call: CallOptions): Promise<string | null> {
    const filter = `name=="${name.replace(/["\\]/g, (c) => `\\${c}`)}"`;
    let listed: Record<string, unknown>[];
    try {
      listed = await this.client.list(
        "device",
        { limit: 100, start: 0, only: "id,name", filter },
        call,
      );
    } catch (err) {
      if (err instanceof EdgeError && (err.status === 404 || err.status === 405))
        throw new EdgeError("device-unknown", { device: name });
      throw err;
    }
    // A server may ignore the filter: only an exact name counts.
    const device = listed.find((d) => d.name === name && typeof d.id === "string");
    return device ? (device.id as string) : null;
  }
}
