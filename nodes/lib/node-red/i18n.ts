// Texts come from the locale catalogs. The shared ones (statuses, errors) live in the account's
// catalog and are reached through its namespace. When the runtime has no catalog loaded (the test
// helper's RED._ returns the key itself), the en-US catalog shipped beside the nodes is used, so a
// user, a log and a test always read a sentence, never a key.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { NodeAPI } from "node-red";
import { interpolate } from "../api/errors";
import type { EdgeError } from "../api/errors";

export const MODULE = "@edgewire/node-red-edge-device";
export const SHARED = "edge-account";

const fallbacks = new Map<string, Record<string, unknown>>();

function english(name: string): Record<string, unknown> {
  let catalog = fallbacks.get(name);
  if (!catalog) {
    const file = join(__dirname, "..", "..", name, "locales", "en-US", `${name}.json`);
    try {
      catalog = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    } catch {
      catalog = {};
    }
    fallbacks.set(name, catalog);
  }
  return catalog;
}

function lookup(catalog: Record<string, unknown>, key: string): string | undefined {
  let value: unknown = catalog;
  for (const part of key.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return typeof value === "string" ? value : undefined;
}

export type Translate = (key: string, params?: Record<string, unknown>) => string;

/** A translator for one node's catalog (`name`), with `edge.*` keys read from the shared one. */
export function translator(RED: NodeAPI, name: string): Translate {
  return (key, params = {}) => {
    const ns = key.startsWith("edge.") ? SHARED : name;
    const full = `${MODULE}/${ns}:${key}`;
    const text = RED._(full, params as Record<string, string | number>);
    if (typeof text === "string" && text !== full && text !== key) return text;
    const template = lookup(english(ns), key);
    return template === undefined ? key : interpolate(template, params);
  };
}

/** The error's sentence in the runtime's language. */
export function describe(t: Translate, err: EdgeError): string {
  return t(`edge.errors.${err.code}`, err.params);
}
