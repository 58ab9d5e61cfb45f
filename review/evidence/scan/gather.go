package scan

import (
	"context"
	"fmt"
	"time"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/toulmin"
)

// Evidence returns what was found, through the processors (chain.go): once per rule and
// place, merged where analyzers found the same defect, ordered by severity, then place, with
// stable IDs.
func (s *Scan) Evidence() []toulmin.Evidence {
	found, errs := RunChain(scanChain(), s.found)
	for _, err := range errs {
		s.Note(Clip(err.Error(), 400))
	}
	return toEvidence(found)
}

// Gather runs the analyzers over the change once and returns the evidence.
func Gather(ctx context.Context, c *change.Change, analyzers []Analyzer) ([]toulmin.Evidence, error) {
	ev, _, err := GatherWithNotes(ctx, c, analyzers)
	return ev, err
}

// GatherWithNotes is Gather that also returns what the analyzers said about their work (which
// packages were analysed, which degraded, how many pre-existing findings were left out).
func GatherWithNotes(ctx context.Context, c *change.Change, analyzers []Analyzer) ([]toulmin.Evidence, []string, error) {
	s := New(c)
	s.ctx = ctx
	defer s.closeTrees()
	if c.Trees == nil && c.NoTrees != "" {
		s.Note(c.NoTrees)
	}
	times := TimingsOf(ctx)
	defer times.Since("evidence (all analyzers)", time.Now())
	for _, a := range analyzers {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("evidence gathering stopped before %s: %w", a.Name(), err)
		}
		s.analyzer = a.Name()
		start := time.Now()
		a.Analyze(s)
		times.Since("analyzer "+a.Name(), start)
	}
	ev := s.Evidence() // before the notes are read: a processor that fails says so in one
	return ev, s.notes, nil
}

// toEvidence is the package's boundary: the processed findings, in their order, become the
// debate's evidence, numbered E1, E2, ... in that order.
func toEvidence(found []Finding) []toulmin.Evidence {
	out := make([]toulmin.Evidence, 0, len(found))
	for i, f := range found {
		out = append(out, toulmin.Evidence{
			ID: fmt.Sprintf("E%d", i+1), Analyzer: f.Source, Rule: f.Rule, Stakeholder: rules.Rules[f.Rule].Stakeholder,
			Severity: f.severity(), Path: f.Path, Line: f.Line, Message: f.Message, Snippet: f.snippet,
			Mitigates: f.Mitigates, Replacement: f.replacement, Fix: evidenceFix(f.Fix),
		})
	}
	return out
}
