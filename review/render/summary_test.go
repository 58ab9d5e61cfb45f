package render_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
)

// summaryTopOf is the part of a summary comment above its first <details>.
func summaryTopOf(t testing.TB, s string) string {
	t.Helper()
	i := strings.Index(s, "<details>")
	if i < 0 {
		t.Fatalf("summary has no <details> block:\n%s", s)
	}
	return s[:i]
}

// TestSummaryCommentOfExample checks the summary of the bundled example: the ten-second part
// first, with the decision, the required changes linked to their lines at the head, the dissent
// with its vote in words, tokens and the link to the debate's page, under 3,000 characters; then
// a folded digest of the phases and the files; no transcript, no record, under 12,000 in all.
func TestSummaryCommentOfExample(t *testing.T) {
	tr := reviewtest.RunDebate(t, reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff")), toulmin.ProtocolStandard)
	tr.Record.HeadSHA = "abc1234def"
	s, err := render.SummaryComment(tr, render.SummaryOptions{BlobURL: "https://github.com/o/r/blob/abc1234def/", Link: "https://bot.example/debates/" + tr.DebateID})
	if err != nil {
		t.Fatal(err)
	}
	top := summaryTopOf(t, s)
	t.Logf("summary above the first <details>: %d characters (whole comment %d)\n%s", len(top), len(s), s)
	if len(top) >= render.MaxSummaryTop || len(s) >= render.MaxSummaryChars {
		t.Errorf("the part above the first <details> is %d characters and the whole %d, want under 3,000 and 12,000", len(top), len(s))
	}
	for _, want := range []string{
		render.TranscriptMarker + "\n## debatebot: Request changes\n",
		"**Consensus 0.75** (consensus)",
		"- [ ] [`internal/export/users.go:30`](https://github.com/o/r/blob/abc1234def/internal/export/users.go#L30) use a parameterised query",
		"**Dissent**\n\n- Performance Stakeholder (approve with changes): 1 performance concern(s) stand after rebuttal and clarification, the most serious medium: h.db.QueryRow runs",
		"**Tokens** 0 prompt (0 cached) + 0 completion · $0.0000 · offline agents (no model configured)",
		"is on [its page](https://bot.example/debates/" + tr.DebateID + ")",
	} {
		if !strings.Contains(top, want) {
			t.Errorf("summary top lacks %q", want)
		}
	}
	for _, want := range []string{"<details><summary>How the debate went</summary>", "- **Evidence Gathering**: 8 finding(s) from the analyzers.",
		"- **Opening Arguments**: 7 argument(s).\n  - Security Stakeholder: h.db.Query receives SQL built from strings (query) at internal/export/users.go:30",
		"- **Weighted vote:** approve 8%, approve with changes 17%, request changes 75%.",
		// Agents that claim the same are one line.
		"  - Architecture Maintainer, Core Maintainer: Request changes: 6 verified concern(s) stand, the most serious high\n",
		"<details><summary>Files (4)</summary>", "| `internal/export/users.go` | added +69 −0 | 5, the worst high |"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if strings.Count(s, "<details>") != strings.Count(s, "</details>") {
		t.Errorf("unbalanced <details> blocks")
	}
	// The transcript and the record are on the debate's page and in the decision comment.
	for _, gone := range []string{"```yaml", "debate_id", "## Scoring Matrix", "**Warrant:**", "Position history"} {
		if strings.Contains(s, gone) {
			t.Errorf("the summary still holds %q", gone)
		}
	}
}

// TestSummaryCommentWithoutALink says plainly where the whole debate is not, and a small limit
// leaves out whole folds, never the decision.
func TestSummaryCommentWithoutALink(t *testing.T) {
	tr := reviewtest.RunDebate(t, reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff")), toulmin.ProtocolStandard)
	s, err := render.SummaryComment(tr, render.SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "is not linked here: no public address is configured for the dashboard (`DEBATEBOT_PUBLIC_URL`)") {
		t.Errorf("the summary does not say why the debate is not linked:\n%s", s)
	}
	top := len(summaryTopOf(t, s))
	small, err := render.SummaryComment(tr, render.SummaryOptions{Max: top + 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(small) > top+200 || strings.Count(small, "<details>") != strings.Count(small, "</details>") || !strings.Contains(small, "## debatebot: Request changes") {
		t.Errorf("a small limit cut the summary badly (%d characters):\n%s", len(small), small)
	}
}

// TestSummaryCommentOfSixtyFiles debates a change of 60 files: the required changes are listed
// while the part above the first <details> stays under 3,000 characters, the rest counted; the
// folded files list those with findings first and counts the rest.
func TestSummaryCommentOfSixtyFiles(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 60; i++ {
		body := fmt.Sprintf("package svc\n\nfunc Handler%d(x int) int {\n\treturn x + %d\n}\n", i, i)
		if i%3 == 0 {
			body = fmt.Sprintf("package svc\n\nimport \"crypto/tls\"\n\nvar Conf%d = &tls.Config{InsecureSkipVerify: true}\n", i)
		}
		files[fmt.Sprintf("internal/service%02d/handler.go", i)] = body
	}
	tr := reviewtest.RunDebate(t, reviewtest.ChangeOf(t, files), toulmin.ProtocolStandard)
	tr.Record.HeadSHA = "abc1234def"
	// A model may require a change on each file: 40 of them.
	tr.Record.RequiredChanges = nil
	for i := 0; i < 40; i++ {
		tr.Record.RequiredChanges = append(tr.Record.RequiredChanges, fmt.Sprintf("internal/service%02d/handler.go:5: keep verification on; trust a private CA through a configured root pool instead", i))
	}
	s, err := render.SummaryComment(tr, render.SummaryOptions{BlobURL: "https://github.com/o/r/blob/abc1234def/", Link: "https://bot.example/debates/" + tr.DebateID})
	if err != nil {
		t.Fatal(err)
	}
	top := summaryTopOf(t, s)
	t.Logf("60 files, %d required changes: summary above the first <details>: %d characters (whole comment %d)", len(tr.Record.RequiredChanges), len(top), len(s))
	if len(top) >= render.MaxSummaryTop || len(s) >= render.MaxSummaryChars {
		t.Errorf("the part above the first <details> is %d characters and the whole %d, want under 3,000 and 12,000:\n%s", len(top), len(s), top)
	}
	listed := strings.Count(top, "- [ ] ")
	if listed < 5 || listed >= 40 || !strings.Contains(top, fmt.Sprintf("- %d more required change(s), on the debate's page", 40-listed)) {
		t.Errorf("%d required changes, %d listed: the rest are not counted:\n%s", len(tr.Record.RequiredChanges), listed, top)
	}
	if !strings.Contains(s, "| `internal/service00/handler.go` | added +5 −0 | 1, the worst high |") || !strings.Contains(s, "| 30 more file(s) | +") {
		t.Errorf("the files are not listed worst first with the rest counted:\n%s", s)
	}
}

// A debate that spent its model budget says so at the top of its summary and in the short one.
func TestSummaryCommentSaysTheBudgetEndedTheDebate(t *testing.T) {
	tr := reviewtest.RunDebate(t, reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff")), toulmin.ProtocolStandard)
	s, err := render.SummaryComment(tr, render.SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s, "budget") || strings.Contains(render.Summary(tr), "budget") {
		t.Fatalf("a debate within its budget mentions one:\n%s", s)
	}
	tr.BudgetStop = &toulmin.BudgetStop{LimitUSD: 0.05, SpentUSD: 0.0512, After: toulmin.PhaseOpening, Round: 1,
		Skipped: []toulmin.PhaseKind{toulmin.PhaseRebuttal, toulmin.PhaseFinal}}
	s, err = render.SummaryComment(tr, render.SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	top := summaryTopOf(t, s)
	if !strings.Contains(top, "**Model budget reached.**") || !strings.Contains(top, "reached its limit of $0.0500") || !strings.Contains(top, "ended early") {
		t.Errorf("the summary's top does not say the budget ended the debate:\n%s", top)
	}
	md, err := render.Markdown(tr, render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, "- Model budget reached: the debate's model spend ($0.0512) reached its limit of $0.0500") {
		t.Errorf("the transcript's timeline does not say the budget ended the debate")
	}
	if !strings.Contains(render.Summary(tr), "ended early: the debate's model budget was spent") {
		t.Errorf("short summary %q does not say the budget ended the debate", render.Summary(tr))
	}
}
