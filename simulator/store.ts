// In-memory model of the service: companies with their users and tokens, devices with their two
// streams, free streams and their events (the streams themselves are stream.ts).

import { randomBytes, randomUUID } from "node:crypto";
import type { JsonObject, Scalar } from "./json";
import type { SeedData, SeedDevice } from "./seed";
import { DEFAULT_CAPACITY, MAX_CAPACITY, Stream } from "./stream";
import type { StoredEvent, StreamKind } from "./stream";

/** A stream of the store: its company and, for a device's two streams, its device. */
export type StoreStream = Stream<Company, Device>;

export interface User {
  name: string;
  id: string;
  token: string;
  company: Company;
}

export interface Company {
  name: string;
  id: string;
  users: User[];
}

export interface Device {
  id: string;
  name: string;
  company: Company;
  /** The identity that writes the device's inbox markers. */
  identityId: string;
  avSystemId: string;
  blueprintId: { id: string; version: number };
  broadcastDate: number;
  creationDate: number;
  lastSeen: number;
  state: Record<string, Scalar>;
  resources: string[];
  online: boolean;
  /** Set for a device that faults every command (seed `fault`), with the reason it gives. */
  fault: string | undefined;
  commandStream: StoreStream;
  inboxStream: StoreStream;
}

/** Ids are a type letter, 8 hex digits of creation time in seconds, then 16 unique hex digits. */
export class Ids {
  // Random per instance so that two simulators in one process never hand out the same id.
  private readonly salt = randomBytes(3).toString("hex");
  private counter = 0;

  next(letter: string, timeMs: number = Date.now()): string {
    const seconds = Math.max(0, Math.min(0xffffffff, Math.floor(timeMs / 1000)));
    this.counter = (this.counter + 1) % 0x10000000000;
    return (
      letter +
      seconds.toString(16).padStart(8, "0") +
      this.salt +
      this.counter.toString(16).padStart(10, "0")
    );
  }
}

export function deviceView(device: Device): JsonObject {
  const digits = BigInt("0x" + device.id.slice(-12))
    .toString()
    .padStart(11, "0")
    .slice(-11);
  return {
    id: device.id,
    name: device.name,
    displayName: device.name,
    path: `/${device.company.name}/devices/${device.name}`,
    companyId: device.company.id,
    avSystemId: device.avSystemId,
    blueprintId: { id: device.blueprintId.id, version: device.blueprintId.version },
    broadcastDate: device.broadcastDate,
    creationDate: device.creationDate,
    lastSeen: device.lastSeen,
    hardware: { imei: "3596" + digits, fsn: "SIM" + device.id.slice(-8).toUpperCase() },
    tags: {},
    summary: {},
    synced: true,
    dirty: false,
    state: { ...device.state },
  };
}

export class StoreError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A device to add: a seed device whose company is already resolved. */
export type NewDevice = Omit<SeedDevice, "company"> & { company: Company };

const NAME_RE = /^[A-Za-z0-9_.-]+$/;

export class Store {
  readonly ids = new Ids();
  /** Shape of new event ids (commands.ts IdStyle); the other ids keep the service's shape. */
  eventIds: () => "octave" | "uuid" = () => "octave";
  readonly companies = new Map<string, Company>();
  readonly tokens = new Map<string, User>();
  private readonly devicesById = new Map<string, Device>();
  private readonly devicesByName = new Map<string, Device>();
  private readonly streamsById = new Map<string, StoreStream>();
  private readonly streamsByPath = new Map<string, StoreStream>();

  constructor(seed: SeedData) {
    this.load(seed);
  }

  get defaultCompany(): Company {
    const first = this.companies.values().next();
    if (first.done === true) throw new Error("the seed has no company");
    return first.value;
  }

  devices(): Device[] {
    return [...this.devicesById.values()];
  }

  /** The company's streams, device streams included, in the order they were made. */
  streams(company: Company): StoreStream[] {
    return [...this.streamsById.values()].filter((s) => s.company === company);
  }

  findDevice(company: Company, idOrName: string): Device | undefined {
    const byId = this.devicesById.get(idOrName);
    if (byId !== undefined && byId.company === company) return byId;
    return this.devicesByName.get(company.name + "/" + idOrName);
  }

  streamById(id: string): StoreStream | undefined {
    return this.streamsById.get(id);
  }

  streamByPath(path: string): StoreStream | undefined {
    return this.streamsByPath.get(path);
  }

  createDevice(spec: NewDevice): Device {
    const inboxCapacity = spec.inboxCapacity ?? DEFAULT_CAPACITY;
    if (!Number.isInteger(inboxCapacity) || inboxCapacity < 1 || inboxCapacity > MAX_CAPACITY) {
      throw new StoreError(400, `inboxCapacity must be an integer from 1 to ${MAX_CAPACITY}`);
    }
    const company = spec.company;
    if (!NAME_RE.test(spec.name)) throw new StoreError(400, `Invalid device name: ${spec.name}`);
    if (this.devicesByName.has(company.name + "/" + spec.name)) {
      throw new StoreError(409, `Device already exists: ${spec.name}`);
    }
    const now = Date.now();
    const id = spec.id ?? this.ids.next("d", now);
    if (this.devicesById.has(id)) throw new StoreError(409, `Device id already exists: ${id}`);
    const base = `/${company.name}/devices/${spec.name}`;
    for (const suffix of [":command", ":inbox"]) {
      if (this.streamsByPath.has(`${base}/${suffix}`)) {
        throw new StoreError(409, `Stream already exists: ${base}/${suffix}`);
      }
    }
    const device: Device = {
      id,
      name: spec.name,
      company,
      identityId: "i" + id.slice(1),
      avSystemId: "a" + id.slice(1),
      blueprintId: { id: "b" + id.slice(1), version: 1 },
      broadcastDate: now,
      creationDate: now,
      lastSeen: now,
      state: { ...(spec.state ?? {}) },
      resources: [...(spec.resources ?? [])],
      online: spec.online ?? true,
      fault: spec.fault,
      // Assigned right below: the streams need the device and the device its streams.
      commandStream: undefined as unknown as StoreStream,
      inboxStream: undefined as unknown as StoreStream,
    };
    device.commandStream = this.addStream(
      `${base}/:command`,
      DEFAULT_CAPACITY,
      company,
      "command",
      device,
      spec.commandStreamId,
    );
    device.inboxStream = this.addStream(
      `${base}/:inbox`,
      inboxCapacity,
      company,
      "inbox",
      device,
      spec.inboxStreamId,
    );
    this.devicesById.set(id, device);
    this.devicesByName.set(company.name + "/" + spec.name, device);
    return device;
  }

  /** A free stream; its company is the first segment of its path. */
  createStream(path: string, capacity: number = DEFAULT_CAPACITY, id?: string): StoreStream {
    if (!path.startsWith("/") || path.length < 2) {
      throw new StoreError(400, `Invalid stream path: ${path}`);
    }
    const companyName = path.split("/")[1] ?? "";
    const company = this.companies.get(companyName);
    if (company === undefined) throw new StoreError(400, `Unknown company: ${companyName}`);
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > MAX_CAPACITY) {
      throw new StoreError(400, `capacity must be an integer from 1 to ${MAX_CAPACITY}`);
    }
    if (this.streamsByPath.has(path)) throw new StoreError(409, `Stream already exists: ${path}`);
    return this.addStream(path, capacity, company, "free", undefined, id);
  }

  addEvent(
    stream: StoreStream,
    elems: JsonObject,
    metadata: JsonObject | undefined,
    creatorId: string,
    creationDate: number = Date.now(),
  ): StoredEvent {
    const event: StoredEvent = {
      id: this.eventIds() === "uuid" ? randomUUID() : this.ids.next("e", creationDate),
      streamId: stream.id,
      path: stream.path,
      creationDate,
      creatorId,
      elems,
      metadata,
      bytes: undefined,
    };
    stream.add(event);
    return event;
  }

  private addStream(
    path: string,
    capacity: number,
    company: Company,
    kind: StreamKind,
    device: Device | undefined,
    id: string | undefined,
  ): StoreStream {
    const now = Date.now();
    const streamId = id ?? this.ids.next("s", now);
    if (this.streamsById.has(streamId)) {
      throw new StoreError(409, `Stream id already exists: ${streamId}`);
    }
    const stream = new Stream(streamId, path, capacity, now, company, kind, device);
    this.streamsById.set(streamId, stream);
    this.streamsByPath.set(path, stream);
    return stream;
  }

  private load(seed: SeedData): void {
    if (!Array.isArray(seed.companies) || seed.companies.length === 0) {
      throw new Error("seed: companies must be a non-empty array");
    }
    for (const sc of seed.companies) {
      if (typeof sc.name !== "string" || !Array.isArray(sc.users)) {
        throw new Error("seed: every company needs a name and a users array");
      }
      const company: Company = { name: sc.name, id: sc.id ?? this.ids.next("c"), users: [] };
      for (const su of sc.users) {
        if (typeof su.name !== "string" || typeof su.token !== "string") {
          throw new Error(`seed: every user of ${sc.name} needs a name and a token`);
        }
        if (this.tokens.has(su.token)) throw new Error(`seed: token used twice: ${su.name}`);
        const user: User = {
          name: su.name,
          token: su.token,
          id: su.id ?? this.ids.next("i"),
          company,
        };
        company.users.push(user);
        this.tokens.set(user.token, user);
      }
      this.companies.set(company.name, company);
    }
    for (const sd of seed.devices ?? []) {
      const company =
        sd.company === undefined ? this.defaultCompany : this.companies.get(sd.company);
      if (company === undefined) throw new Error(`seed: unknown company of ${sd.name}`);
      const spec: NewDevice = { name: sd.name, company };
      if (sd.id !== undefined) spec.id = sd.id;
      if (sd.resources !== undefined) spec.resources = sd.resources;
      if (sd.state !== undefined) spec.state = sd.state;
      if (sd.online !== undefined) spec.online = sd.online;
      if (sd.fault !== undefined) spec.fault = sd.fault;
      if (sd.commandStreamId !== undefined) spec.commandStreamId = sd.commandStreamId;
      if (sd.inboxStreamId !== undefined) spec.inboxStreamId = sd.inboxStreamId;
      this.createDevice(spec);
    }
    const now = Date.now();
    for (const ss of seed.streams ?? []) {
      const stream = this.createStream(ss.path, ss.capacity ?? DEFAULT_CAPACITY, ss.id);
      const events = ss.events ?? [];
      const creator = stream.company.users.at(0)?.id ?? stream.company.id;
      events.forEach((se, rank) => {
        const date = se.creationDate ?? now - (se.ageMs ?? (events.length - rank) * 1000);
        this.addEvent(stream, se.elems, undefined, creator, date);
      });
    }
  }
}
