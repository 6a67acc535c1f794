const Module = require("module");
const orig = Module.prototype.require;
const stack = [];
const self = new Map();
Module.prototype.require = function (id) {
  const t = process.hrtime.bigint();
  stack.push(0n);
  try {
    return orig.apply(this, arguments);
  } finally {
    const d = process.hrtime.bigint() - t;
    const child = stack.pop();
    const s = d - child;
    if (stack.length) stack[stack.length - 1] += d;
    const key = id;
    self.set(key, (self.get(key) || 0n) + s);
  }
};
const t = process.hrtime.bigint();
require(process.argv[2]);
console.log("total", Number(process.hrtime.bigint() - t) / 1e6);
console.log(
  [...self]
    .sort((a, b) => Number(b[1] - a[1]))
    .slice(0, 15)
    .map(([k, v]) => `${(Number(v) / 1e6).toFixed(1)} ${k}`)
    .join("\n"),
);
