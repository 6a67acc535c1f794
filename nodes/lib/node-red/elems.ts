// The elems of a command, as edge-send-command and edge-fleet-command take them: a plain-object
// msg.payload, else the node's Elems (JSON, mustache allowed), checked as the API needs them.
import type { NodeMessage } from "node-red";
import type { Elems } from "../api/types";
import { checkTemplate, renderJson } from "./render";
import { checkElems, isPlainObject, parseJson } from "./validate";

/** A plain-object payload is the elems; anything else (text, a number, a Buffer) fills the form's. */
export function elemsOf(msg: NodeMessage, template: string): Elems {
  const payload = msg.payload;
  if (isPlainObject(payload) || !template.trim()) return checkElems(payload, "msg.payload");
  return checkElems(parseJson(renderJson(template, msg, "Elems"), "Elems"), "Elems");
}

/** Elems that mustache cannot read, or that are not JSON without any tag, are wrong at deploy. */
export function checkElemsSetting(elems: unknown): void {
  const text = typeof elems === "string" ? elems : "";
  if (!text.trim()) return;
  checkTemplate(text, "Elems");
  if (!text.includes("{{")) parseJson(text, "Elems");
}
