// Package scantest is for tests of the evidence processors: it writes findings in a short form
// that a test compares with what it expects.
package scantest

import (
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
)

// Brief writes findings as "severity rule source path:line message" lines, for comparing a
// processor's output with what a test expects.
func Brief(found []scan.Finding) string {
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "%s %s %s %s:%d %s", f.Severity, f.Rule, f.Source, f.Path, f.Line, f.Message)
		if f.Mitigates != "" {
			b.WriteString(" mitigates " + f.Mitigates)
		}
		b.WriteString("\n")
	}
	return b.String()
}
