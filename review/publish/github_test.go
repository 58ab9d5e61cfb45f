package publish

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

func TestPublisherEditsInPlace(t *testing.T) {
	srv := githubtest.New(t)
	// 120 comments by people before the bot's: the marker is on the second page.
	for i := 0; i < 120; i++ {
		srv.AddComment("acme/shop#7", "alice", fmt.Sprintf("comment %d", i))
	}
	// A person's comment that forges the marker is left alone.
	srv.AddComment("acme/shop#7", "mallory", render.TranscriptMarker+"\nforged")
	old := srv.AddComment("acme/shop#7", "debatebot[bot]", render.TranscriptMarker+"\nold transcript")
	ctx := context.Background()
	p := NewPublisher(reviewtest.GitHubClient(t, srv), reviewtest.ExamplePR)
	p.Bot = "debatebot[bot]"
	for i := 0; i < 3; i++ {
		if err := p.Upsert(ctx, render.TranscriptMarker, fmt.Sprintf("transcript v%d", i)); err != nil {
			t.Fatal(err)
		}
		if err := p.Upsert(ctx, render.DecisionMarker, fmt.Sprintf("decision v%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	var transcripts, decisions []githubtest.Comment
	for _, c := range srv.CommentsOn("acme/shop#7") {
		switch {
		case strings.HasPrefix(c.Body, render.TranscriptMarker) && c.User != "mallory":
			transcripts = append(transcripts, c)
		case strings.HasPrefix(c.Body, render.DecisionMarker):
			decisions = append(decisions, c)
		}
	}
	if len(transcripts) != 1 || transcripts[0].ID != old || !strings.HasSuffix(transcripts[0].Body, "transcript v2") {
		t.Errorf("transcript comments = %+v; want the old one edited to v2", transcripts)
	}
	if len(decisions) != 1 || !strings.HasSuffix(decisions[0].Body, "decision v2") {
		t.Errorf("decision comments = %+v; want one, edited to v2", decisions)
	}
	lists := 0
	for _, c := range srv.Calls() {
		if c.Method == "GET" && strings.HasSuffix(c.Path, "/comments") {
			lists++
		}
	}
	if lists != 2 {
		t.Errorf("comment pages listed = %d, want 2 (once per publisher, both pages)", lists)
	}
}

func TestPublisherChecksAndSizes(t *testing.T) {
	srv := githubtest.New(t)
	reviewtest.SeedExamplePR(t, srv, filepath.Join("..", "..", "examples", "admin-export.diff"))
	ctx := context.Background()
	gh := reviewtest.GitHubClient(t, srv)
	c, err := review.ReadPullRequest(ctx, review.NewGitHub(gh), reviewtest.ExamplePR, nil, nil, review.DefaultMaxDiffBytes)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := (&review.Debate{Change: c, Repository: "acme/shop", PRNumber: 7, Trigger: "pull_request.opened", Protocol: toulmin.Standard(), Clock: reviewtest.FixedClock()}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPublisher(gh, reviewtest.ExamplePR)
	if err := p.StartCheck(ctx, c.HeadSHA); err != nil {
		t.Fatal(err)
	}
	if err := p.FinishCheck(ctx, tr); err != nil {
		t.Fatal(err)
	}
	runs := srv.Checks("acme/shop")
	if len(runs) != 1 || runs[0].Name != "debatebot" || runs[0].HeadSHA != "abc123" || runs[0].Status != "completed" || runs[0].Conclusion != "action_required" {
		t.Errorf("check runs = %+v, want one completed with action_required for request_changes", runs)
	}
	for d, want := range map[voting.Option]string{voting.Approve: "success", voting.ApproveWithChanges: "neutral", voting.RequestChanges: "action_required", voting.Escalate: "action_required"} {
		if got := Conclusion(d); got != want {
			t.Errorf("Conclusion(%s) = %s, want %s", d, got, want)
		}
	}
	dc, err := render.DecisionComment(tr)
	if err != nil || !strings.HasPrefix(dc, render.DecisionMarker) || !strings.Contains(dc, "repository: acme/shop") || !strings.Contains(dc, "pr_number: 7") {
		t.Errorf("decision comment = %q (%v)", dc, err)
	}
	long := strings.Repeat("line of transcript\n", 5000) + "```yaml\n" + strings.Repeat("x: 1\n", 3000) + "```\n"
	fit := render.FitComment(long, render.MaxCommentChars, "https://debatebot.example/debates/deb-1")
	if len(fit) > render.MaxCommentChars || strings.Count(fit, "```")%2 != 0 || !strings.Contains(fit, "debates/deb-1") {
		t.Errorf("FitComment: %d chars, fences balanced %v", len(fit), strings.Count(fit, "```")%2 == 0)
	}
}
