// A markdownlint rule for the one mistake that broke docs/development.md: a closing code fence
// with text after it (```` ``` Without it ````) is not a closing fence, so the block runs on and
// everything below renders as code. markdownlint's own rules see that only when a link happens to
// point at a heading the block swallowed.
"use strict";

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

module.exports = {
  names: ["fence-closed"],
  description: "A code fence is closed by a line with the fence alone",
  tags: ["code"],
  parser: "none",
  function: (params, onError) => {
    let open = null; // { char, length, lineNumber } of the fence that opened the current block
    params.lines.forEach((line, i) => {
      const m = FENCE.exec(line);
      if (!m) return;
      const [, run, rest] = m;
      if (!open) {
        // A backtick fence's info string may not hold a backtick (CommonMark): then it is text.
        if (run[0] === "`" && rest.includes("`")) return;
        open = { char: run[0], length: run.length, lineNumber: i + 1 };
        return;
      }
      if (run[0] !== open.char || run.length < open.length) return;
      if (rest.trim() === "") {
        open = null;
        return;
      }
      onError({
        lineNumber: i + 1,
        detail: `text after what looks like the fence closing the block of line ${open.lineNumber}`,
        context: line,
      });
    });
    if (open) onError({ lineNumber: open.lineNumber, detail: "this code block is never closed" });
  },
};
