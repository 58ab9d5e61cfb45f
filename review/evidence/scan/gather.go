package scan

import (
	"context"
	"fmt"
	"time"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
)

// Findings returns what was found, through the processors (chain.go): once per rule and
// place, merged where analyzers found the same defect, ordered by severity, then place. A
// processor that fails leaves its input as it was and says so in a note.
func (s *Scan) Findings() []Finding {
	found, errs := RunChain(scanChain(), s.found)
	for _, err := range errs {
		s.Note(Clip(err.Error(), 400))
	}
	return found
}

// Gather runs the analyzers over the change once and returns the processed findings, in the
// order the debate cites them.
func Gather(ctx context.Context, c *change.Change, analyzers []Analyzer) ([]Finding, error) {
	found, _, err := GatherWithNotes(ctx, c, analyzers)
	return found, err
}

// GatherWithNotes is Gather that also returns what the analyzers said about their work (which
// packages were analysed, which degraded, how many pre-existing findings were left out).
func GatherWithNotes(ctx context.Context, c *change.Change, analyzers []Analyzer) ([]Finding, []string, error) {
	s := New(c)
	s.ctx = ctx
	defer s.closeTrees()
	if c.Trees == nil && c.NoTrees != "" {
		s.Note(c.NoTrees)
	}
	times := TimingsOf(ctx)
	defer times.Since("evidence (all analyzers)", time.Now())
	s.running = map[string]bool{}
	ranks := analyzerRanks(analyzers)
	for _, a := range analyzers {
		s.running[a.Name()] = true
	}
	for i, a := range analyzers {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("evidence gathering stopped before %s: %w", a.Name(), err)
		}
		s.analyzer, s.rank = a.Name(), ranks[i]
		start := time.Now()
		a.Analyze(s)
		times.Since("analyzer "+a.Name(), start)
	}
	found := s.Findings() // before the notes are read: a processor that fails says so in one
	for i := range found {
		found[i].Fingerprint = Fingerprint(c, found[i])
	}
	return found, s.notes, nil
}

// analyzerRanks are the precedences of the analyzers' findings (Finding.rank): their places in
// the list, except that the families of the type-checked Go analysis, which are one analysis of
// one load, share the place of the first of them.
func analyzerRanks(analyzers []Analyzer) []int {
	out := make([]int, len(analyzers))
	typed := -1
	for i, a := range analyzers {
		out[i] = i
		if rules.IsTypedGo(a.Name()) {
			if typed < 0 {
				typed = i
			}
			out[i] = typed
		}
	}
	return out
}
