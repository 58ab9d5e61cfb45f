package realcases

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/toulmin"
)

func TestWriteSuggestionsCountsFindingsWithASuggestion(t *testing.T) {
	results := []Result{{Findings: []Finding{
		{Evidence: toulmin.Evidence{Analyzer: "staticcheck", Line: 3, Fix: &toulmin.Fix{From: 3, To: 3, Text: "x\n"}}},
		{Evidence: toulmin.Evidence{Analyzer: "go-ast", Line: 4}},
		{Evidence: toulmin.Evidence{Analyzer: "eslint", Line: 5, Fix: &toulmin.Fix{From: 5, To: 5, Text: "x"}}}, // not whole lines: not offered
	}}}
	var b strings.Builder
	writeSuggestions(&b, results)
	if got, want := b.String(), "  suggestions  1/3 findings carry a suggestion (33%): staticcheck 1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	b.Reset()
	writeSuggestions(&b, []Result{{Findings: results[0].Findings[1:2]}})
	if got, want := b.String(), "  suggestions  0/1 findings carry a suggestion (0%)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
