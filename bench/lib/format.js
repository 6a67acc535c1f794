// Text for the bench's report: numbers, min / median / max triples and aligned tables.
"use strict";

const fmt = (n, d = 0) =>
  typeof n === "number" && Number.isFinite(n)
    ? n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d })
    : "-";

/** "min / median / max" of a spread() result. */
const mmm = (s, d = 0, unit = "") =>
  s ? `${fmt(s.min, d)} / ${fmt(s.median, d)} / ${fmt(s.max, d)}${unit}` : "-";

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

module.exports = { fmt, mmm, table };
