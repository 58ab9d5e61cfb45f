package agents_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/reviewtest"
)

func TestBuildContextBudget(t *testing.T) {
	tok, err := llm.DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	// A file with a finding, plain source files, a lock file and a deletion-only hunk.
	b.WriteString(changetest.NewFileDiff("api/handler.go", "package api\n\nimport \"os/exec\"\n\nfunc Run(tool string) error { return exec.Command(tool).Run() }\n"))
	for i := 0; i < 30; i++ {
		var body strings.Builder
		for j := 0; j < 40; j++ {
			fmt.Fprintf(&body, "func F%d_%d() int { return %d }\n", i, j, j)
		}
		b.WriteString(changetest.NewFileDiff(fmt.Sprintf("pkg/f%02d.go", i), "package pkg\n\n"+body.String()))
	}
	b.WriteString(changetest.NewFileDiff("package-lock.json", "{\n  \"lockfileVersion\": 3\n}\n"))
	b.WriteString("diff --git a/old/legacy.go b/old/legacy.go\n--- a/old/legacy.go\n+++ b/old/legacy.go\n@@ -1,4 +1,2 @@\n package old\n-\n-func Legacy() {}\n \n")
	c := reviewtest.MustParse(t, b.String())
	ev, _, err := review.GatherEvidence(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	cc, err := agents.BuildContext(context.Background(), c, ev, 2000, tok)
	if err != nil {
		t.Fatal(err)
	}
	if cc.Tokens > 2000 || tok.Count(cc.Text) > 2000+100 {
		t.Errorf("context is %d tokens (counted %d), over the 2000 budget", cc.Tokens, tok.Count(cc.Text))
	}
	if !strings.HasPrefix(cc.Text, "--- api/handler.go") {
		t.Errorf("the file with evidence does not come first:\n%s", cc.Text[:200])
	}
	omitted := strings.Join(cc.Omitted, "\n")
	for _, want := range []string{"package-lock.json (+3 -0, generated, vendored or lock file)", "old/legacy.go @@ -1,4 (4 lines removed)", "pkg/f29.go (+42 -0, over budget)"} {
		if !strings.Contains(omitted, want) {
			t.Errorf("omitted list lacks %q:\n%s", want, omitted)
		}
	}
	// Hunks are kept whole: every hunk in the text ends where its header says.
	for _, part := range strings.Split(cc.Text, "\n--- ")[1:] {
		if !strings.Contains(part, "@@") {
			t.Errorf("a file header without a hunk: %q", part[:40])
		}
	}
	if strings.Contains(cc.Text, "lockfileVersion") || strings.Contains(cc.Text, "Legacy") {
		t.Error("generated files or deletion-only hunks took budget")
	}
}
