// A compact JSON report for debatebot: ESLint's own "json" formatter repeats each file's whole
// source beside its messages, which debatebot does not read.
//
// A message's edit (its fix, else its one suggestion when it has exactly one: a choice among
// several is left to a human) is reported as the whole lines it touches: "line" is the first of
// them, "lines" their text with newlines, and "start"/"end" the edit's range in UTF-8 bytes
// within "lines" (ESLint's ranges count UTF-16 code units of the file). debatebot checks the
// lines against the pull request's head before it offers the edit as a suggestion.
"use strict";

function edit(source, m) {
  let fix = m.fix;
  if (!fix && Array.isArray(m.suggestions) && m.suggestions.length === 1) {
    fix = m.suggestions[0].fix;
  }
  if (typeof source !== "string" || !fix || !Array.isArray(fix.range) || typeof fix.text !== "string") {
    return undefined;
  }
  const [s, e] = fix.range;
  if (!(Number.isInteger(s) && Number.isInteger(e) && 0 <= s && s <= e && e <= source.length)) {
    return undefined;
  }
  const first = s === 0 ? 0 : source.lastIndexOf("\n", s - 1) + 1;
  let last = e;
  if (e === s || source[e - 1] !== "\n") {
    const nl = source.indexOf("\n", e);
    last = nl < 0 ? source.length : nl + 1;
  }
  const lines = source.slice(first, last);
  return {
    line: source.slice(0, first).split("\n").length,
    lines,
    start: Buffer.byteLength(source.slice(first, s)),
    end: Buffer.byteLength(source.slice(first, e)),
    text: fix.text,
  };
}

module.exports = function (results) {
  return JSON.stringify(
    results.map((r) => ({
      filePath: r.filePath,
      messages: r.messages.map((m) => ({
        ruleId: m.ruleId,
        severity: m.severity,
        fatal: m.fatal === true,
        message: m.message,
        line: m.line,
        column: m.column,
        fix: edit(r.source, m),
      })),
    })),
  );
};
