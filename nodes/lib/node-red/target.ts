// The device or stream a message is about: the node's property rendered with mustache against the
// msg, or, when the property is empty, a msg property. Only names come from the msg: the base
// URL and the credentials never do.
import type { NodeMessage } from "node-red";
import { EdgeError } from "../api/errors";
import type { ErrorCode } from "../api/errors";
import { render } from "./render";

export function resolveTarget(
  template: string | undefined,
  msg: NodeMessage,
  msgProperty: string,
  emptyCode: ErrorCode,
): string {
  // The property's name in an error about its template: "device" for deviceId.
  const raw = template?.trim()
    ? render(template, msg, msgProperty.replace(/Id$/, ""))
    : msg[msgProperty];
  const value = typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw.trim() : "";
  if (!value) throw new EdgeError(emptyCode);
  return value;
}
