// Mustache in node properties, rendered against the msg as core nodes do. Values are inserted
// without HTML escaping (a device id with `&` must stay itself); inside JSON text they are
// escaped as JSON string content so a payload with a quote cannot break the JSON. A template
// mustache cannot read (an unclosed tag) is the user's to fix: a coded error that names the
// property, never an `internal` one with a stack trace.
import Mustache from "mustache";
import { EdgeError } from "../api/errors";
import { textOf } from "./thrown";

const plain = (value: unknown): string => String(value);
const jsonString = (value: unknown): string => JSON.stringify(String(value)).slice(1, -1);

/** Mustache's own words for what is wrong ("Unclosed tag at 25"), without "Error:". */
function problemOf(err: unknown): string {
  return err instanceof Error ? err.message : textOf(err);
}

/** Throws bad-template when mustache cannot read `template`; mustache caches what it parsed. */
function parse(template: string, what: string): void {
  try {
    Mustache.parse(template);
  } catch (err) {
    throw new EdgeError("bad-template", { what, detail: problemOf(err) });
  }
}

function fill(
  template: string,
  msg: object,
  escape: (value: unknown) => string,
  what: string,
): string {
  if (!template.includes("{{")) return template;
  // Parsed on its own so that only the template's errors are named as such: a throw while
  // rendering (a getter on the msg) is the msg's, and reaches the handler as it is.
  parse(template, what);
  return Mustache.render(template, msg, {}, { escape });
}

export function render(template: string, msg: object, what = "template"): string {
  return fill(template, msg, plain, what);
}

export function renderJson(template: string, msg: object, what = "template"): string {
  return fill(template, msg, jsonString, what);
}

/** Checks a node property's template at deploy, before any message: throws bad-template. */
export function checkTemplate(template: string, what: string): void {
  if (template.includes("{{")) parse(template, what);
}
