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
// first, with the decision, the required changes linked to their lines at the head, the dissent,
// tokens and the walkthrough, under 3,000 characters; then the transcript folded per section and
// per phase.
func TestSummaryCommentOfExample(t *testing.T) {
	tr := reviewtest.RunDebate(t, reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff")), toulmin.ProtocolStandard)
	tr.Record.HeadSHA = "abc1234def"
	s, err := render.SummaryComment(tr, render.SummaryOptions{BlobURL: "https://github.com/o/r/blob/abc1234def/", Link: "https://bot.example/debates/" + tr.DebateID})
	if err != nil {
		t.Fatal(err)
	}
	top := summaryTopOf(t, s)
	t.Logf("summary above the first <details>: %d characters (whole comment %d)\n%s", len(top), len(s), top)
	if len(top) >= 3000 {
		t.Errorf("the part above the first <details> is %d characters, want under 3,000", len(top))
	}
	for _, want := range []string{
		render.TranscriptMarker + "\n## debatebot: Request changes\n",
		"**Consensus 0.75** (consensus)",
		"- [ ] [`internal/export/users.go:30`](https://github.com/o/r/blob/abc1234def/internal/export/users.go#L30) use a parameterised query",
		"**Dissent**\n\n- Performance Stakeholder: votes approve_with_changes",
		"**Tokens** 0 prompt (0 cached) + 0 completion · $0.0000 · offline agents",
		"| `internal/export/users.go` | added +69 −0 | high sql-injection L30, medium untested-change, medium ignored-error L47, +2 more |",
		"[the debate](https://bot.example/debates/" + tr.DebateID + ")",
	} {
		if !strings.Contains(top, want) {
			t.Errorf("summary top lacks %q", want)
		}
	}
	for _, want := range []string{"<details><summary>Participants</summary>", "<details><summary>Evidence</summary>",
		"<details><summary>Arguments: Opening Arguments</summary>", "<details><summary>Arguments: Rebuttals (round 1)</summary>",
		"<details><summary>Decision Record</summary>\n\n```yaml\ndecision:"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if strings.Count(s, "<details>") != strings.Count(s, "</details>") {
		t.Errorf("unbalanced <details> blocks")
	}
	// Every section of the transcript is in the comment, folded.
	md, _ := render.Markdown(tr, render.Options{})
	for _, h := range []string{"SS-1 · Security Stakeholder · high", "## Scoring Matrix", "## Position history"} {
		if strings.Contains(md, h) && !strings.Contains(s, strings.TrimPrefix(h, "## ")) {
			t.Errorf("summary lost %q of the transcript", h)
		}
	}
}

// TestSummaryCommentCutsWholeBlocks makes the comment too long for a small limit: whole
// <details> blocks go, the last first, and the note names them and links to the dashboard.
func TestSummaryCommentCutsWholeBlocks(t *testing.T) {
	tr := reviewtest.RunDebate(t, reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff")), toulmin.ProtocolStandard)
	full, err := render.SummaryComment(tr, render.SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	link := "https://bot.example/debates/" + tr.DebateID
	s, err := render.SummaryComment(tr, render.SummaryOptions{Link: link, Max: len(full) / 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(s) > len(full)/2 {
		t.Fatalf("cut comment is %d characters, limit %d", len(s), len(full)/2)
	}
	if strings.Count(s, "<details>") != strings.Count(s, "</details>") {
		t.Fatalf("a block was cut in the middle")
	}
	if strings.Contains(s, "<summary>Decision Record</summary>") || !strings.Contains(s, "<summary>Participants</summary>") {
		t.Errorf("the last blocks should go first")
	}
	if !strings.Contains(s, "> Cut to fit GitHub's comment limit: ") || !strings.Contains(s, "Decision Record; the whole debate is at "+link+".") {
		t.Errorf("the cut is not named with its link:\n%s", s[len(s)-400:])
	}
}

// TestSummaryCommentOfSixtyFiles debates a change of 60 files: the walkthrough shows the files
// with findings first, folds the rest, and the part above the first <details> stays under
// 3,000 characters.
func TestSummaryCommentOfSixtyFiles(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 60; i++ {
		body := fmt.Sprintf("package svc\n\nfunc Handler%d(x int) int {\n\treturn x + %d\n}\n", i, i)
		if i%15 == 0 {
			body = fmt.Sprintf("package svc\n\nimport \"crypto/tls\"\n\nvar Conf%d = &tls.Config{InsecureSkipVerify: true}\n", i)
		}
		files[fmt.Sprintf("internal/service%02d/handler.go", i)] = body
	}
	tr := reviewtest.RunDebate(t, reviewtest.ChangeOf(t, files), toulmin.ProtocolStandard)
	tr.Record.HeadSHA = "abc1234def"
	s, err := render.SummaryComment(tr, render.SummaryOptions{BlobURL: "https://github.com/o/r/blob/abc1234def/", Link: "https://bot.example/debates/" + tr.DebateID})
	if err != nil {
		t.Fatal(err)
	}
	top := summaryTopOf(t, s)
	t.Logf("60 files: summary above the first <details>: %d characters (whole comment %d)", len(top), len(s))
	if len(top) >= 3000 {
		t.Errorf("the part above the first <details> is %d characters, want under 3,000:\n%s", len(top), top)
	}
	if !strings.Contains(top, "**Walkthrough** (60 file(s))") || !strings.Contains(top, "| 51 more file(s) |") {
		t.Errorf("walkthrough does not fold the rest:\n%s", top)
	}
	// The files with findings come first.
	if !strings.Contains(top, "| `internal/service00/handler.go` | added +5 −0 | high tls-verification-disabled L5 |") {
		t.Errorf("walkthrough lacks the finding's file first:\n%s", top)
	}
	if !strings.Contains(s, "<details><summary>Walkthrough: the other 51 file(s)</summary>") {
		t.Errorf("the other files are not listed")
	}
}
