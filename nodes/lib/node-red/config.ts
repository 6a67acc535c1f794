// A node's own settings, checked once at deploy. A setting that can never work (a Timeout of
// "abc", a template mustache cannot read) used to be found only when a message came, after the
// node before it had already acted (a command sent, say): now the node says so at deploy, and
// the handler refuses each message with the same error (handler.ts, `invalid`).
import { EdgeError } from "../api/errors";
import { textOf } from "./thrown";

/** Runs the node's checks: undefined when they pass, else the error that says what to fix. */
export function configError(check: () => void): EdgeError | undefined {
  try {
    check();
    return undefined;
  } catch (caught) {
    return caught instanceof EdgeError
      ? caught
      : new EdgeError("internal", { detail: textOf(caught) });
  }
}

/** Blank in a flow: absent, null, or text of spaces. Blank settings take their defaults. */
export function blank(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === "string" && value.trim() === "")
  );
}
