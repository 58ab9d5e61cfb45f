package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/store"
)

// TestHumanReviewAcrossReplicas runs two `debatebot serve` processes over one database, one
// worker each. /human-review is held by whichever replica is free, never the one running the
// debate: the running debate stops at its next heartbeat all the same, and a debate still queued
// is stopped before it asks the model anything.
func TestHumanReviewAcrossReplicas(t *testing.T) {
	bin := buildBinary(t)
	gh := githubtest.New(t)
	for _, n := range []int{7, 8, 9} {
		putExample(t, gh, n, fmt.Sprintf("head%d", n))
	}
	gh.Permissions["acme/shop:alice"] = "write"
	llm := llmtest.New(t, nil)
	llm.SetLatency(400 * time.Millisecond)
	db := filepath.Join(t.TempDir(), "debatebot.db")
	env := appEnv(t, gh, db, llm.BaseURL(), "DEBATEBOT_JOB_LEASE=1s", "DEBATEBOT_WORKERS=1", "DEBATEBOT_LOG_LEVEL=debug")
	var replicas []*serveProcess
	for i := 0; i < 2; i++ {
		p := newServe(t, bin, env)
		p.start()
		defer p.stop()
		replicas = append(replicas, p)
	}
	a, b := replicas[0], replicas[1]
	st, err := store.Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s\nreplica a:\n%s\nreplica b:\n%s", what, a.logs.String(), b.logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	comment := 9000
	humanReview := func(p *serveProcess, pr int) {
		comment++
		id := comment
		body := webhookFixture(t, "issue_comment.created.on-pull-request.json", pr, func(m map[string]any) {
			c := m["comment"].(map[string]any)
			c["id"], c["body"] = id, "/human-review"
		})
		if code := p.post("issue_comment", fmt.Sprintf("hr-%d", id), body); code >= 300 {
			t.Fatalf("/human-review answered %d", code)
		}
	}
	stoppedForHuman := func(pr int) bool {
		d, err := st.PendingHumanDecision(ctx, "acme/shop", pr)
		return err == nil && strings.Contains(d.Escalations, "human_review")
	}

	// 1. A debate running on one replica; /human-review reaches the other.
	opened := func(p *serveProcess, pr int) {
		body := webhookFixture(t, "pull_request.opened.json", pr, func(m map[string]any) {
			m["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = fmt.Sprintf("head%d", pr)
		})
		if code := p.post("pull_request", fmt.Sprintf("open-%d", pr), body); code >= 300 {
			t.Fatalf("pull_request answered %d", code)
		}
	}
	opened(a, 7)
	wait("the debate of #7 to ask the model", func() bool { return len(llm.Requests()) > 0 })
	humanReview(b, 7)
	wait("the running debate of #7 to stop for a human", func() bool { return stoppedForHuman(7) })
	if d, _ := st.PendingHumanDecision(ctx, "acme/shop", 7); d.Decision != "escalate" || d.Phases >= 6 {
		t.Errorf("the stopped debate: decision %s after %d phases, want escalate before the end", d.Decision, d.Phases)
	}

	// 2. Both workers busy with #8 and #9; a debate of #7's new head waits in the queue, and
	// /human-review stops it before it starts.
	opened(a, 8)
	opened(b, 9)
	wait("both replicas to debate", func() bool {
		c, _ := st.Counts(ctx)
		return c[store.Running] == 2
	})
	gh.PRs["acme/shop#7"].HeadSHA = "head7b"
	sync := webhookFixture(t, "pull_request.synchronize.json", 7, func(m map[string]any) {
		m["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = "head7b"
	})
	if code := a.post("pull_request", "sync-7", sync); code >= 300 {
		t.Fatalf("synchronize answered %d", code)
	}
	humanReview(a, 7)
	wait("every job to finish", func() bool {
		c, _ := st.Counts(ctx)
		return c[store.Queued] == 0 && c[store.Running] == 0
	})
	ds, err := st.Debates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var queued *store.Debate
	for i := range ds {
		if ds[i].PRNumber == 7 && ds[i].HeadSHA == "head7b" {
			queued = &ds[i]
		}
	}
	if queued == nil {
		t.Fatalf("no debate of #7's queued head: %+v", ds)
	}
	if queued.Decision != "escalate" || !strings.Contains(queued.Escalations, "human_review") || queued.HumanDecision != "pending" || queued.Prompt != 0 {
		t.Errorf("the queued debate after /human-review: %+v; want escalated for a human before any model call", *queued)
	}
	for _, pr := range []int{8, 9} {
		if d, err := st.LatestDecided(ctx, "acme/shop", pr); err != nil || strings.Contains(d.Escalations, "human_review") {
			t.Errorf("#%d: %+v (%v): another pull request's debate was stopped", pr, d, err)
		}
	}
	dec := 0
	for _, c := range gh.CommentsOn("acme/shop#7") {
		if strings.HasPrefix(c.Body, review.DecisionMarker) {
			dec++
		}
	}
	if dec != 1 {
		t.Errorf("%d decision comments on #7, want 1 edited in place", dec)
	}
}
