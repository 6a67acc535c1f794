// The imports of the TypeScript sources, read as the compiler reads them (`import`, `import type`,
// `export ... from`, `require`). Imports run one way: no file of nodes/ or simulator/ reaches
// itself through its imports (a circle means none of its files can be read, tested or replaced
// alone), the domain folders nodes/lib/{api,commands,device,events,fleet} import nothing of
// Node-RED, of its glue (lib/node-red, lib/records) or of the account (lib/account), so the round
// trip runs without Node-RED, and nothing in nodes/lib imports a node's own folder.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const ts = require("typescript");

const ROOT = path.join(__dirname, "..", "..");
const DOMAIN = ["api", "commands", "device", "events", "fleet"].map((d) => `nodes/lib/${d}/`);

/** The .ts files under `dir`, relative to the repository, with / as separator. */
function sources(dir, out = []) {
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) sources(rel, out);
    else if (rel.endsWith(".ts") && !rel.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

/** A relative import as the file it names, or undefined when it names none of ours. */
function resolve(from, spec) {
  const base = path.posix.join(path.posix.dirname(from), spec.replace(/\.js$/, ""));
  for (const file of [`${base}.ts`, `${base}/index.ts`]) {
    if (fs.existsSync(path.join(ROOT, file))) return file;
  }
  return undefined;
}

/** Every file's imports: `files` (ours, resolved) and `packages` (bare specifiers). */
function readImports() {
  const imports = new Map();
  for (const file of [...sources("nodes"), ...sources("simulator")]) {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const files = new Set();
    const packages = new Set();
    for (const { fileName } of importedFiles) {
      if (fileName.startsWith(".")) {
        const target = resolve(file, fileName);
        assert.ok(target, `${file} imports ${fileName}, which is no file`);
        files.add(target);
      } else packages.add(fileName);
    }
    imports.set(file, { files, packages });
  }
  return imports;
}

/** The shortest path of imports from `start` back to itself, as its files. */
function circleThrough(start, imports) {
  const cameFrom = new Map();
  let frontier = [start];
  while (frontier.length > 0) {
    const next = [];
    for (const file of frontier) {
      for (const target of imports.get(file)?.files ?? []) {
        if (target === start) {
          const between = [];
          for (let f = file; f !== start; f = cameFrom.get(f)) between.unshift(f);
          return [start, ...between, start];
        }
        if (!cameFrom.has(target)) {
          cameFrom.set(target, file);
          next.push(target);
        }
      }
    }
    frontier = next;
  }
  return undefined;
}

/** The circles of imports, one per group of files that reach each other (Tarjan's algorithm). */
function circles(imports) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let counter = 0;
  const visit = (file) => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const target of imports.get(file).files) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file), index.get(target)));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || imports.get(file).files.has(file)) {
      // One circle named in full; the group's other files are caught in it through others.
      const circle = circleThrough(group.sort()[0], imports);
      const others = group.filter((f) => !circle.includes(f));
      found.push(circle.join(" -> ") + (others.length ? ` (and ${others.join(", ")})` : ""));
    }
  };
  for (const file of [...imports.keys()].sort()) if (!index.has(file)) visit(file);
  return found;
}

describe("imports of nodes/ and simulator/", function () {
  const imports = readImports();

  it("reads the imports of every source, type imports included", function () {
    // A reader that found nothing would pass every rule below.
    assert.ok(imports.size > 50, `${imports.size} files`);
    const waitImports = imports.get("nodes/lib/commands/command-wait.ts");
    assert.ok(waitImports.files.has("nodes/lib/commands/inbox-types.ts"), "an `import type`");
    assert.ok(imports.get("simulator/control.ts").files.has("simulator/control-host.ts"));
  });

  it("has no circle: no file reaches itself through its imports", function () {
    assert.deepEqual(circles(imports), []);
  });

  it("finds a circle and names its files (the check itself)", function () {
    const made = new Map([
      ["a.ts", { files: new Set(["b.ts"]), packages: new Set() }],
      ["b.ts", { files: new Set(["c.ts"]), packages: new Set() }],
      ["c.ts", { files: new Set(["a.ts"]), packages: new Set() }],
      ["d.ts", { files: new Set(["a.ts"]), packages: new Set() }],
    ]);
    assert.deepEqual(circles(made), ["a.ts -> b.ts -> c.ts -> a.ts"]);
  });

  it("keeps Node-RED, its glue and the account out of lib/api, commands, device, events and fleet", function () {
    const wrong = [];
    for (const [file, { files, packages }] of imports) {
      if (!DOMAIN.some((d) => file.startsWith(d))) continue;
      for (const target of files) {
        if (!DOMAIN.some((d) => target.startsWith(d))) wrong.push(`${file} -> ${target}`);
      }
      for (const name of packages) {
        if (name === "node-red" || name.startsWith("@node-red/")) wrong.push(`${file} -> ${name}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it("keeps the nodes' own folders out of nodes/lib", function () {
    const wrong = [];
    for (const [file, { files }] of imports) {
      if (!file.startsWith("nodes/lib/")) continue;
      for (const target of files) {
        if (!target.startsWith("nodes/lib/")) wrong.push(`${file} -> ${target}`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});
