package publish

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
)

// A suggestion on several lines is posted as GitHub takes one: start_line and line on side RIGHT,
// the block in the comment; a one-line suggestion stays on its line alone.
func TestReviewPostsMultiLineSuggestions(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	tr := exampleTranscript(t)
	on, _ := render.InlineFindings(tr)
	if len(on) < 2 {
		t.Fatalf("the example has %d findings on lines; want two", len(on))
	}
	multi, single := on[0], on[1]
	for i, e := range tr.Evidence {
		switch e.ID {
		case multi.ID:
			tr.Evidence[i].Fix = &toulmin.Fix{From: multi.Line - 1, To: multi.Line, Text: "\t// fixed\n\tfixed()\n"}
		case single.ID:
			tr.Evidence[i].Fix = &toulmin.Fix{From: single.Line, To: single.Line, Text: "\tfixed()\n"}
		}
	}
	if _, err := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR).Review(context.Background(), tr, ReviewOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range srv.ReviewCommentsOn("acme/shop#7") {
		switch {
		case strings.Contains(c.Body, "```suggestion\n\t// fixed\n\tfixed()\n```"):
			seen++
			if c.StartLine != multi.Line-1 || c.Line != multi.Line || c.Side != "RIGHT" {
				t.Errorf("multi-line suggestion posted on %d-%d (%s); want %d-%d on RIGHT", c.StartLine, c.Line, c.Side, multi.Line-1, multi.Line)
			}
		case strings.Contains(c.Body, "```suggestion\n\tfixed()\n```"):
			seen++
			if c.StartLine != 0 || c.Line != single.Line {
				t.Errorf("one-line suggestion posted on %d-%d; want line %d alone", c.StartLine, c.Line, single.Line)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d of the 2 suggestions posted", seen)
	}
}
