package reviewtest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/toulmin"
)

// Gather gathers the evidence of the default analyzers on a change.
func Gather(t testing.TB, c *change.Change) []toulmin.Evidence {
	t.Helper()
	ev, _, err := review.GatherEvidence(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return ev
}

// Dump writes evidence one item a line, for a test's failure message.
func Dump(ev []toulmin.Evidence) string {
	var b strings.Builder
	for _, e := range ev {
		fmt.Fprintf(&b, "  %s %s %s: %s\n", e.Severity, e.Rule, e.Location(), e.Message)
	}
	return b.String()
}

// Found lists "path:line" of the evidence of one rule.
func Found(ev []toulmin.Evidence, rule string) []string {
	var out []string
	for _, e := range ev {
		if e.Rule == rule {
			out = append(out, e.Location())
		}
	}
	sort.Strings(out)
	return out
}
