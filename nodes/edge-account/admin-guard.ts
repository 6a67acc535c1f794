// What every POST admin route of the account (Test connection, the device picker, the sidebar's
// subscribe and cancel) checks before it reads a body, and the one way they are registered. Node-RED runs without adminAuth by default, and then any web page the user visits
// can POST to them: a form or a text/plain body needs no CORS preflight, and Node-RED's admin API
// parses forms into the same body a JSON post gives. Such a post once made the runtime send a
// stored token, or typed credentials, to a URL of the page's choosing. So the routes take only
// application/json bodies (which a browser sends cross-site only after a preflight that Node-RED
// does not grant) and refuse a foreign Origin.
import type { NodeAPI } from "node-red";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Translate } from "../lib/node-red/i18n";

/** Whether the request comes from a page of another site than the editor's. */
export function foreignOrigin(req: Request): boolean {
  const origin = req.headers.origin;
  // Browsers send Origin with every POST; tools such as curl send none and are not the threat.
  if (origin === undefined) return false;
  const forwarded = req.headers["x-forwarded-host"];
  const hosts = [req.headers.host, ...(typeof forwarded === "string" ? forwarded.split(",") : [])]
    .filter((h): h is string => typeof h === "string")
    .map((h) => h.trim().toLowerCase());
  try {
    return !hosts.includes(new URL(origin).host.toLowerCase());
  } catch {
    // "null" (a sandboxed frame, a file) and anything unparsable.
    return true;
  }
}

/** Express middleware: 415 for a body that is not JSON, 403 for a page of another site. */
export function editorOnly(t: Translate) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.is("application/json")) {
      const message = t("edge-account.admin.jsonOnly");
      res.status(415).json({ ok: false, code: "json-only", message, error: message });
      return;
    }
    if (foreignOrigin(req)) {
      const message = t("edge-account.admin.foreignOrigin");
      res.status(403).json({ ok: false, code: "foreign-origin", message, error: message });
      return;
    }
    next();
  };
}

/** A JSON body as an object: {} for anything else. */
export type Fields = Record<string, unknown>;

/**
 * POST `path` on the editor's admin API: for users with `permission`, from the editor's own pages
 * only (editorOnly), through `more` middleware; `handle` gets the body as an object. The routes
 * each wrote these lines out, the same four times over.
 */
export function editorPost(
  RED: NodeAPI,
  t: Translate,
  path: string,
  permission: string,
  handle: (body: Fields, res: Response) => void,
  ...more: RequestHandler[]
): void {
  RED.httpAdmin.post(
    path,
    RED.auth.needsPermission(permission),
    editorOnly(t),
    ...more,
    (req: Request, res: Response) => {
      const body: unknown = req.body;
      handle(typeof body === "object" && body !== null ? (body as Fields) : {}, res);
    },
  );
}
