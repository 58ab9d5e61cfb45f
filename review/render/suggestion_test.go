package render

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/toulmin"
)

func TestSuggestion(t *testing.T) {
	for name, tc := range map[string]struct {
		e          toulmin.Evidence
		block      string
		from, to   int
		suggestion bool
	}{
		"one line": {toulmin.Evidence{Line: 4, Fix: &toulmin.Fix{From: 4, To: 4, Text: "x := 1\n"}},
			"```suggestion\nx := 1\n```\n", 4, 4, true},
		"lines": {toulmin.Evidence{Line: 5, Fix: &toulmin.Fix{From: 4, To: 6, Text: "a\nb\n"}},
			"```suggestion\na\nb\n```\n", 4, 6, true},
		"deleting": {toulmin.Evidence{Line: 4, Fix: &toulmin.Fix{From: 4, To: 4, Text: ""}},
			"```suggestion\n```\n", 4, 4, true},
		"a fence in the text": {toulmin.Evidence{Line: 4, Fix: &toulmin.Fix{From: 4, To: 4, Text: "s := \"````\" + \"```\"\n"}},
			"`````suggestion\ns := \"````\" + \"```\"\n`````\n", 4, 4, true},
		"a kept transcript's fixed line": {toulmin.Evidence{Line: 7, Replacement: "verify=True"},
			"```suggestion\nverify=True\n```\n", 7, 7, true},
		"a secret in the text": {toulmin.Evidence{Line: 4, Fix: &toulmin.Fix{From: 4, To: 4, Text: "token := \"ghp_8kZq2Lw9XbT4mR7vN1cY6pH3sJ0dF5gA2eUx\"\n"}}, "", 0, 0, false},
		"the comment's marker": {toulmin.Evidence{Line: 4, Fix: &toulmin.Fix{From: 4, To: 4, Text: "// <!-- debatebot:finding x -->\n"}}, "", 0, 0, false},
		"not whole lines":      {toulmin.Evidence{Line: 4, Fix: &toulmin.Fix{From: 4, To: 4, Text: "x"}}, "", 0, 0, false},
		"none":                 {toulmin.Evidence{Line: 4}, "", 0, 0, false},
	} {
		block, from, to, ok := Suggestion(tc.e)
		if block != tc.block || from != tc.from || to != tc.to || ok != tc.suggestion {
			t.Errorf("%s: Suggestion = %q, %d, %d, %v; want %q, %d, %d, %v", name, block, from, to, ok, tc.block, tc.from, tc.to, tc.suggestion)
		}
	}
}

// The comment of a finding carries its suggestion once, after what to do.
func TestCommentBodyCarriesTheSuggestion(t *testing.T) {
	f := InlineFinding{Key: "k:1", Evidence: toulmin.Evidence{Rule: "SA1012", Severity: "medium", Path: "a.go", Line: 3, Message: "do not pass a nil Context",
		Fix: &toulmin.Fix{From: 3, To: 3, Text: "\trows, err := db.QueryContext(context.TODO(), q)\n"}}}
	body := f.CommentBody()
	if strings.Count(body, "```suggestion\n\trows, err := db.QueryContext(context.TODO(), q)\n```\n") != 1 {
		t.Errorf("comment body:\n%s", body)
	}
}
