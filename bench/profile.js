// A CPU profile of the runtime under the command benchmark: runs one mode of commands.js with one
// peer (BENCH_PEERS) under --cpu-prof, then prints the functions with the most self time, all
// code and ours apart.
// Usage: node bench/profile.js [--mode=window|burst|defaults] [--variant=node|handBuilt|undici]
//        [--target=runtime|sim] [--top=25]
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const args = process.argv.slice(2);
const arg = (name, fallback) =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const variant = arg("variant", "node");
const mode = arg("mode", "window");
const top = Number(arg("top", "25"));
const target = arg("target", "runtime");
const dir = path.join(__dirname, "results");
const ROOT = path.resolve(__dirname, "..");

const simDir = path.join(dir, "sim-profile");

function profile() {
  fs.mkdirSync(simDir, { recursive: true });
  for (const f of fs.readdirSync(simDir)) fs.rmSync(path.join(simDir, f));
  const before = new Set(fs.readdirSync(dir));
  execFileSync(
    process.execPath,
    [
      "--cpu-prof",
      `--cpu-prof-dir=${dir}`,
      "--expose-gc",
      path.join(__dirname, "commands.js"),
      `--only=${mode}`,
    ],
    {
      stdio: ["ignore", "ignore", "inherit"],
      timeout: 600000,
      env: {
        ...process.env,
        BENCH_PEERS: variant,
        BENCH_SIM_PROFILE: target === "sim" ? simDir : "",
      },
    },
  );
  const from = target === "sim" ? simDir : dir;
  const made = fs.readdirSync(from).filter((f) => f.endsWith(".cpuprofile") && !before.has(f));
  if (made.length === 0) throw new Error("no profile written");
  return path.join(from, made[0]);
}

function selfTimes(file) {
  const prof = JSON.parse(fs.readFileSync(file, "utf8"));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = prof.timeDeltas;
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i]);
    self.set(n.id, (self.get(n.id) ?? 0) + (dt[i] ?? 0));
  }
  const total = dt.reduce((a, b) => a + b, 0);
  const agg = new Map();
  for (const [id, us] of self) {
    const cf = byId.get(id).callFrame;
    const url = cf.url.replace(`file://${ROOT}/`, "").replace(/^.*node_modules\//, "~/");
    const key = `${cf.functionName || "(anonymous)"} ${url}${url ? `:${cf.lineNumber + 1}` : ""}`;
    agg.set(key, (agg.get(key) ?? 0) + us);
  }
  const rows = [...agg].sort((a, b) => b[1] - a[1]);
  return { total, rows };
}

const file = profile();
const { total, rows } = selfTimes(file);
const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
const ours = rows.filter(([k]) => k.includes("dist/nodes/"));
const idle = rows.filter(([k]) => /^\((idle|program|garbage collector)\)/.test(k));
process.stdout.write(
  `profile: ${path.relative(ROOT, file)} (${(total / 1e6).toFixed(1)} s sampled)\n`,
);
for (const [k, us] of idle) process.stdout.write(`${pct(us)}  ${k}\n`);
process.stdout.write(`\ntop ${top} by self time:\n`);
for (const [k, us] of rows.slice(0, top)) process.stdout.write(`${pct(us)}  ${k}\n`);
const oursTotal = ours.reduce((s, [, us]) => s + us, 0);
process.stdout.write(`\nthis package (dist/nodes): ${pct(oursTotal)} of samples\n`);
for (const [k, us] of ours.slice(0, top)) process.stdout.write(`${pct(us)}  ${k}\n`);
