// What kind of value a user gave, for checks and for the words of their errors. Pure JavaScript,
// no Node-RED: the fleet's device list and the nodes' input checks name a wrong value alike.

/**
 * Whether `proto` is the Object.prototype of another realm. A Function node runs in its own `vm`
 * context, so its object literals inherit from that context's Object.prototype, not ours, and an
 * identity check refused the most common way to build a command. What cannot be faked without
 * being that prototype: it ends its chain, and its own `constructor` is a built-in function named
 * Object whose `prototype` is it. A class's prototype, or an object dressed up with a
 * `constructor` property, has another prototype above it or a constructor that is not native.
 */
function isObjectPrototypeOfSomeRealm(proto: object): boolean {
  if (Object.getPrototypeOf(proto) !== null) return false;
  const own = Object.getOwnPropertyDescriptor(proto, "constructor");
  const ctor: unknown = own && "value" in own ? own.value : undefined;
  return (
    typeof ctor === "function" &&
    ctor.name === "Object" &&
    (ctor as { prototype?: unknown }).prototype === proto &&
    /^function Object\(\) \{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(ctor))
  );
}

/**
 * An object literal, JSON.parse result or Object.create(null), from this realm or another (a
 * Function node's): the only objects whose JSON form is their own enumerable keys. Buffers, Maps,
 * Dates and class instances are not, whatever realm they come from: they have another prototype
 * or another built-in tag than "[object Object]".
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  try {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return true;
    return (
      typeof proto === "object" &&
      isObjectPrototypeOfSomeRealm(proto) &&
      Object.prototype.toString.call(value) === "[object Object]"
    );
  } catch {
    // A proxy whose traps throw: not something to send.
    return false;
  }
}

/** The name of a non-plain object's class, if it has a sane one. */
function className(value: object): string | undefined {
  try {
    const proto: unknown = Object.getPrototypeOf(value);
    const ctor: unknown = proto && (proto as { constructor?: unknown }).constructor;
    const name: unknown = typeof ctor === "function" ? ctor.name : undefined;
    return typeof name === "string" && /^[A-Za-z_$][\w$]{0,40}$/.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (typeof value === "object") {
    if (isPlainObject(value)) return "an object";
    const name = className(value);
    // Its prototype is a plain object or an array: an object literal with a "__proto__" key sets
    // the prototype instead of making the key (this used to read "got a Object").
    if (name === "Object" || name === "Array")
      return 'an object whose prototype is another object, as a "__proto__" key in an object literal makes';
    if (!name) return "an object of another kind";
    return /^[AEIO]/.test(name) ? `an ${name}` : `a ${name}`;
  }
  return `a ${typeof value}`;
}
