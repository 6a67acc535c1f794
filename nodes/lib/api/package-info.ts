// The package's name and version, for the User-Agent. Read from package.json at run time because
// the compiled file sits at a different depth than its source.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

function find(): { name: string; version: string } {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "@edgewire/node-red-edge-device") {
        return { name: pkg.name, version: pkg.version ?? "0.0.0" };
      }
    }
    dir = dirname(dir);
  }
  return { name: "@edgewire/node-red-edge-device", version: "0.0.0" };
}

const PACKAGE = find();
export const USER_AGENT = `${PACKAGE.name}/${PACKAGE.version} (Node-RED; node ${process.version})`;
