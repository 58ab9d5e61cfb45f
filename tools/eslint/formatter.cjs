// A compact JSON report for debatebot: ESLint's own "json" formatter repeats each file's whole
// source beside its messages, which debatebot does not read.
"use strict";

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
      })),
    })),
  );
};
