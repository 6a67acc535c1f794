// Whether a node's context store survives a Node-RED restart, read from the runtime's settings
// as Node-RED itself resolves a store name (runtime lib/nodes/context/index.js): no
// `contextStorage` at all (Node-RED's shipped settings.js) is memory, and Node-RED then even
// deletes a node's context when the node closes; an unknown store name falls back to the default
// store; `default` may name another store; without `default` the first store listed is the default.

/** Node-RED's built-in memory store: lost at a restart. */
const VOLATILE_MODULES: ReadonlySet<string> = new Set(["memory"]);

function configOf(storage: Record<string, unknown>, name: string): unknown {
  if (name === "_" || !Object.hasOwn(storage, name)) return undefined;
  const config = storage[name];
  // `default: "file"` is an alias of the store "file".
  if (name === "default" && typeof config === "string") return configOf(storage, config);
  return config;
}

/**
 * True when the store (undefined or blank: the default) keeps values across a restart. A store
 * whose module is not Node-RED's `memory` (localfilesystem, or a module of its own such as Redis)
 * is taken to persist: nothing else can be known of it.
 */
export function isPersistentStore(settings: unknown, store: string | undefined): boolean {
  const storage: unknown =
    typeof settings === "object" && settings !== null
      ? (settings as { contextStorage?: unknown }).contextStorage
      : undefined;
  if (typeof storage !== "object" || storage === null) return false;
  const stores = storage as Record<string, unknown>;
  const names = Object.keys(stores).filter((n) => n !== "_");
  if (names.length === 0) return false;
  let config = store ? configOf(stores, store) : undefined;
  if (config === undefined) config = configOf(stores, "default");
  if (config === undefined) config = configOf(stores, names.find((n) => n !== "default") ?? "");
  if (typeof config !== "object" || config === null) return false;
  const { module } = config as { module?: unknown };
  if (module === undefined || module === null) return false;
  return !(typeof module === "string" && VOLATILE_MODULES.has(module));
}
