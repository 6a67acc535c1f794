// Mustache in node properties, rendered against the msg as core nodes do. Values are inserted
// without HTML escaping (a device id with `&` must stay itself); inside JSON text they are
// escaped as JSON string content so a payload with a quote cannot break the JSON.
import Mustache from "mustache";

const plain = (value: unknown): string => String(value);
const jsonString = (value: unknown): string => JSON.stringify(String(value)).slice(1, -1);

export function render(template: string, msg: object): string {
  return template.includes("{{") ? Mustache.render(template, msg, {}, { escape: plain }) : template;
}

export function renderJson(template: string, msg: object): string {
  return template.includes("{{")
    ? Mustache.render(template, msg, {}, { escape: jsonString })
    : template;
}
