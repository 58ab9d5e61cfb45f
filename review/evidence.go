package review

import (
	"context"
	"fmt"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
)

// Evidence turns the findings of evidence gathering (scan.Gather), processed and in their order,
// into the debate's evidence, numbered E1, E2, ... in that order. It is the one place where a
// finding becomes evidence: the evidence packages know nothing of the debate, and the debate
// nothing of the analyzers; the stakeholder who argues a finding is its rule's in the catalog.
func Evidence(found []scan.Finding) []toulmin.Evidence {
	out := make([]toulmin.Evidence, 0, len(found))
	for i, f := range found {
		out = append(out, toulmin.Evidence{
			ID: fmt.Sprintf("E%d", i+1), Analyzer: f.Source, Rule: f.Rule, Stakeholder: rules.Rules[f.Rule].Stakeholder,
			Severity: f.Severity, Path: f.Path, Line: f.Line, Message: f.Message, Snippet: f.Snippet,
			Mitigates: f.Mitigates, Replacement: f.Replacement, Fingerprint: f.Fingerprint, Fix: evidenceFix(f.Fix),
		})
	}
	return out
}

// GatherEvidence runs the analyzers over the change once (scan.GatherWithNotes) and returns the
// debate's evidence, with what the analyzers said about their work.
func GatherEvidence(ctx context.Context, c *change.Change, analyzers []scan.Analyzer) ([]toulmin.Evidence, []string, error) {
	found, notes, err := scan.GatherWithNotes(ctx, c, analyzers)
	if err != nil {
		return nil, nil, err
	}
	return Evidence(found), notes, nil
}

// evidenceFix is the fix as the debate's evidence carries it: nil when the analyzer proposed
// none, or when the scan dropped it because it does not apply to the head.
func evidenceFix(x change.LineFix) *toulmin.Fix {
	if x.IsZero() {
		return nil
	}
	return &toulmin.Fix{From: x.From, To: x.To, Text: x.New}
}
