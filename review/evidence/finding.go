package evidence

import (
	"fmt"

	"github.com/debatebot/debatebot/toulmin"
)

// Finding is the one record of what an analyzer found, inside this package: a diagnostic of a
// type-checked check or of an external tool in one tree, and what an analyzer reports into a
// Scan (Report, ReportSeverity, Mitigation). The scan's processors (processors.go) work on
// Findings; toEvidence turns them into the debate's evidence once, at the package's boundary.
type Finding struct {
	Rule string `json:"rule"`
	// Source is the analyzer that found it: a check's source ("go vet", "gosec"), a tool's name
	// ("bandit"), or the name of the scan's analyzer that reported it ("go-ast").
	Source   string `json:"source"`
	Severity string `json:"severity"`
	Topic    string `json:"topic"`
	// Path is slash-separated and relative to the tree's root (the repository's root).
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Func is the enclosing function ("Recv.Name" for methods), empty at package level.
	Func    string `json:"func,omitempty"`
	Message string `json:"message"`
	// Mitigates, on a finding of RuleMitigation, names the rule whose findings the check at the
	// finding's place weakens.
	Mitigates string `json:"mitigates,omitempty"`
	// conds are the conditions under which the line runs in its function (see pathConds).
	conds string
	// moreReachable marks a finding Compare made new because head runs it on more paths.
	moreReachable bool
	// cwe is the weakness of this finding when it is not its rule's (a removed check is a path
	// traversal at a file call, an SSRF at a fetch): findings of that weakness by other
	// analyzers at the same place are the same defect (see absorbWeakness).
	cwe string
	// snippet is the cited line of head as posted (redacted, clipped), and replacement the
	// line's fix when the rule has a mechanical one; the scan fills both when it records the
	// finding.
	snippet, replacement string
}

// severity is the finding's severity as the debate ranks it.
func (f Finding) severity() toulmin.Severity { return toulmin.Severity(f.Severity) }

// toEvidence is the package's boundary: the processed findings, in their order, become the
// debate's evidence, numbered E1, E2, ... in that order.
func toEvidence(found []Finding) []toulmin.Evidence {
	out := make([]toulmin.Evidence, 0, len(found))
	for i, f := range found {
		out = append(out, toulmin.Evidence{
			ID: fmt.Sprintf("E%d", i+1), Analyzer: f.Source, Rule: f.Rule, Stakeholder: Rules[f.Rule].Stakeholder,
			Severity: f.severity(), Path: f.Path, Line: f.Line, Message: f.Message, Snippet: f.snippet,
			Mitigates: f.Mitigates, Replacement: f.replacement,
		})
	}
	return out
}
