// The elems of a command, as edge-send-command and edge-fleet-command take them, checked as the
// API needs them. Which of the node's Elems and msg.payload is the command is the node's
// "Command" choice (elemsFrom). 0.1.0 had one rule, a plain-object msg.payload before the typed
// Elems; a watch node's output is an object, so the most natural wiring sent the whole telemetry
// event to a machine while the Elems the user typed was dropped without a word. Since then what
// is typed in the node wins, as in core nodes, unless the user chose the old rule.
import Mustache from "mustache";
import type { NodeMessage } from "node-red";
import type { Elems } from "../api/types";
import { checkTemplate, renderJson } from "./render";
import { checkElems, isPlainObject, parseJson } from "./validate";

/**
 * "elems": the typed Elems, msg.payload only when Elems is empty. "payload": a plain-object
 * msg.payload, else the typed Elems (the rule of 0.1.0, kept for the flows that rely on it).
 */
export type ElemsFrom = "elems" | "payload";

export const ELEMS_FROM: readonly ElemsFrom[] = ["elems", "payload"];

/**
 * The node's choice. A node saved before the choice existed has none: `saved` is what it did then
 * (edge-send-command of 0.1.0: "payload"), so a saved flow keeps doing what it did.
 */
export function elemsFromOf(value: unknown, saved: ElemsFrom): ElemsFrom {
  return value === "elems" || value === "payload" ? value : saved;
}

/** The elems, and which of the two the node left out although it was there. */
export interface ElemsChoice {
  elems: Elems;
  /** "payload": an object msg.payload was not sent; "elems": the typed Elems was not. */
  ignored?: "payload" | "elems";
}

type Token = [string, string, number, number, Token[]?];

/**
 * Whether the template reads into msg.payload: a tag of one of its properties, or a section over
 * it. A bare {{payload}} does not count: an object there renders as "[object Object]".
 */
function readsIntoPayload(tokens: Token[]): boolean {
  return tokens.some(
    ([type, value, , , inner]) =>
      (["name", "&"].includes(type) && value.startsWith("payload.")) ||
      (["#", "^"].includes(type) && (value === "payload" || value.startsWith("payload."))) ||
      (Array.isArray(inner) && readsIntoPayload(inner)),
  );
}

export function elemsOf(msg: NodeMessage, template: string, from: ElemsFrom): ElemsChoice {
  const payload = msg.payload;
  if (!template.trim()) return { elems: checkElems(payload, "msg.payload") };
  const objectPayload = isPlainObject(payload);
  if (from === "payload" && objectPayload)
    return { elems: checkElems(payload, "msg.payload"), ignored: "elems" };
  const elems = checkElems(parseJson(renderJson(template, msg, "Elems"), "Elems"), "Elems");
  // A template that reads into the object used it (watch → send with {{payload.elems.x}}): only
  // an object that no tag read was left out. Mustache cached the parse when it rendered above.
  // Only asked where there is an object to leave out: most messages carry none.
  if (!objectPayload) return { elems };
  const used = template.includes("{{") && readsIntoPayload(Mustache.parse(template) as Token[]);
  return used ? { elems } : { elems, ignored: "payload" };
}

/** Elems that mustache cannot read, or that are not JSON without any tag, are wrong at deploy. */
export function checkElemsSetting(elems: unknown): void {
  const text = typeof elems === "string" ? elems : "";
  if (!text.trim()) return;
  checkTemplate(text, "Elems");
  if (!text.includes("{{")) parseJson(text, "Elems");
}
