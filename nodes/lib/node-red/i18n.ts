// Texts come from the locale catalogs. The shared ones (statuses, errors) live in the account's
// catalog and are reached through its namespace. When the runtime has no catalog loaded (the test
// helper's RED._ returns the key itself), the en-US catalog shipped beside the nodes is used, so a
// user, a log and a test always read a sentence, never a key.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { NodeAPI } from "node-red";
import { setErrorTexts } from "../api/errors";
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

/** Fills `__name__` placeholders the way Node-RED's i18next set-up does. */
export function interpolate(template: string, params: Record<string, unknown>): string {
  return template.replace(/__([a-zA-Z0-9]+)__/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}

// An EdgeError's own message is the shipped English sentence, whatever the runtime's language: it
// is what logs, the account's pickers and the Test connection answer carry, and the handler puts
// the sentence in the runtime's language in its place on the way to a flow (errorText below).
// Every node loads this module, so the texts are set before any node can fail.
setErrorTexts((code, params) => {
  const template = lookup(english(SHARED), withContext(`edge.errors.${code}`, params));
  return template === undefined ? undefined : interpolate(template, params);
});

export type Translate = (key: string, params?: Record<string, unknown>) => string;

/** Stands for a parameter in a cached text; a private-use character no catalog contains. */
const MARK = "\uE000";
const MARKED = new RegExp(`${MARK}([^${MARK}]+)${MARK}`, "g");

/**
 * The key i18next reads for a `context` parameter (`edge.errors.tls` with context `http`:
 * `edge.errors.tls_http`) when the English catalog has it, else the key itself.
 */
function withContext(key: string, params: Record<string, unknown>): string {
  if (typeof params.context !== "string") return key;
  const ns = key.startsWith("edge.") ? SHARED : undefined;
  if (ns === undefined) return key;
  const variant = `${key}_${params.context}`;
  return lookup(english(ns), variant) === undefined ? key : variant;
}

/** English plural rules, for the shipped catalog read when the runtime has none loaded. */
const ENGLISH_PLURALS = new Intl.PluralRules("en");

/**
 * The English catalog's key for a plural text (i18next's `key_one`/`key_other`) with a numeric
 * `count`, else undefined: the key is not plural.
 */
function plural(ns: string, key: string, params: Record<string, unknown>): string | undefined {
  if (typeof params.count !== "number") return undefined;
  if (lookup(english(ns), `${key}_other`) === undefined) return undefined;
  const form = `${key}_${ENGLISH_PLURALS.select(params.count)}`;
  return lookup(english(ns), form) === undefined ? `${key}_other` : form;
}

/** A translator for one node's catalog (`name`), with `edge.*` keys read from the shared one. */
export function translator(RED: NodeAPI, name: string): Translate {
  const translate: Translate = (key, params = {}) => {
    const ns = key.startsWith("edge.") ? SHARED : name;
    const full = `${MODULE}/${ns}:${key}`;
    const text = RED._(full, params as Record<string, string | number>);
    if (typeof text === "string" && text !== full && text !== key) return text;
    const template = lookup(english(ns), plural(ns, key, params) ?? withContext(key, params));
    return template === undefined ? key : interpolate(template, params);
  };
  // A busy node shows a status per message, and i18next took 15% of the CPU of the command
  // benchmark. The runtime's language is fixed once it runs, so each key is translated once,
  // with markers in place of its parameters, and the values are put in per call.
  const texts = new Map<string, string>();
  // A plural text (`read, 1 key` / `read, 2 keys`) is picked by i18next by the number itself, so
  // its count is part of what is cached, in a map of its own kept small: a node shows few counts.
  const plurals = new Map<string, string>();
  return (key, params = {}) => {
    const ns = key.startsWith("edge.") ? SHARED : name;
    // A count that picks a plural form and a context that picks another text (i18next's
    // `key_context`) are translated with their values; the other parameters are put in per call.
    const fixed: Record<string, unknown> = {};
    if (plural(ns, key, params) !== undefined) fixed.count = params.count;
    if (typeof params.context === "string") fixed.context = params.context;
    const names = Object.keys(params).filter((n) => !(n in fixed));
    const base = Object.keys(fixed).reduce((k, n) => `${k}#${n}=${String(fixed[n])}`, key);
    const id = names.length === 0 ? base : `${base}?${names.join("&")}`;
    const store = "count" in fixed ? plurals : texts;
    let text = store.get(id);
    if (text === undefined) {
      const marks = Object.fromEntries(names.map((n) => [n, `${MARK}${n}${MARK}`]));
      text = translate(key, { ...marks, ...fixed });
      if (store === plurals && plurals.size >= 100) plurals.clear();
      store.set(id, text);
    }
    if (names.length === 0) return text;
    return text.replace(MARKED, (whole, n: string) => (n in params ? String(params[n]) : whole));
  };
}

/** The error's sentence in the runtime's language. */
export function errorText(t: Translate, err: EdgeError): string {
  return t(`edge.errors.${err.code}`, err.params);
}
