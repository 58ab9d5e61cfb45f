package publish

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/review/reviewtest"
)

// memo is a PublishDebate memo in memory, as the App's store keeps it.
type memo struct {
	marks     map[string]int64
	checkRuns map[string]int64
}

func (m *memo) Publication(_ context.Context, pr, marker string) (int64, error) {
	return m.marks[pr+" "+marker], nil
}

func (m *memo) SavePublication(_ context.Context, pr, marker string, id int64) error {
	m.marks[pr+" "+marker] = id
	return nil
}

func (m *memo) SaveCheckRun(_ context.Context, debateID string, id int64) error {
	m.checkRuns[debateID] = id
	return nil
}

// TestPublishDebateTwiceWithAMemoRepeatsNothing publishes one decided debate, then again as a
// retried job does: the comments are edited in place, and neither the inline review nor the
// check run's conclusion is posted a second time.
func TestPublishDebateTwiceWithAMemoRepeatsNothing(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	tr := exampleTranscript(t)
	m := &memo{marks: map[string]int64{}, checkRuns: map[string]int64{}}
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		p := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR)
		if err := p.PublishDebate(ctx, tr, DebateOptions{Memo: m}); err != nil {
			t.Fatalf("publication %d: %v", i+1, err)
		}
	}
	var summaries, decisions int
	for _, c := range srv.CommentsOn("acme/shop#7") {
		switch {
		case strings.HasPrefix(c.Body, render.TranscriptMarker):
			summaries++
		case strings.HasPrefix(c.Body, render.DecisionMarker):
			decisions++
		}
	}
	if summaries != 1 || decisions != 1 {
		t.Errorf("%d summary and %d decision comments, want one of each", summaries, decisions)
	}
	if reviews := srv.ReviewsOn("acme/shop#7"); len(reviews) != 1 {
		t.Errorf("%d reviews, want 1: %+v", len(reviews), reviews)
	}
	runs := srv.Checks("acme/shop")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != Conclusion(tr.Record.Decision) || m.checkRuns[tr.DebateID] != runs[0].ID {
		t.Fatalf("check runs = %+v, remembered %v; want one, concluded and remembered", runs, m.checkRuns)
	}
	if runs[0].Conclusions != 1 {
		t.Errorf("the check run was concluded %d times, want once", runs[0].Conclusions)
	}
}
