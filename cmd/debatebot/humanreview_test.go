package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// TestHumanReviewAcrossReplicas runs two `debatebot serve` processes over one database, one
// worker each. /human-review is held by whichever replica is free, never the one running the
// debate: the running debate stops at its next heartbeat all the same, and a debate still queued
// is stopped before it asks the model anything.
func TestHumanReviewAcrossReplicas(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
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
	gh.SetHead("acme/shop#7", "head7b")
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
		if strings.HasPrefix(c.Body, render.DecisionMarker) {
			dec++
		}
	}
	if dec != 1 {
		t.Errorf("%d decision comments on #7, want 1 edited in place", dec)
	}
}

// A replica dies in the middle of a debate, and /human-review arrives before another replica
// takes the job over: the job is resumed already stopped, from its checkpoint, so what was said
// before the crash is kept and published, not replaced by an empty debate. The replica dies once
// the openings are checkpointed (after the evidence), while the panel's round is asked.
func TestHumanReviewAfterCrashKeepsWhatWasSaid(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh := githubtest.New(t)
	putExample(t, gh, 7, "abc123")
	gh.Permissions["acme/shop:alice"] = "write"
	llm := llmtest.New(t, nil)
	llm.SetLatency(250 * time.Millisecond)
	db := filepath.Join(t.TempDir(), "debatebot.db")
	// A lease long enough that the second replica's /human-review runs before the job is free.
	env := appEnv(t, gh, db, llm.BaseURL(), "DEBATEBOT_JOB_LEASE=6s", "DEBATEBOT_WORKERS=1", "DEBATEBOT_LOG_LEVEL=debug")
	a := newServe(t, bin, env)
	a.start()
	if code := a.post("pull_request", "d-1", prOpened(t, "abc123")); code >= 300 {
		t.Fatalf("delivery answered %d", code)
	}
	st, err := store.Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var id string
	for deadline := time.Now().Add(30 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		id = checkpointed(st, 2)
	}
	if id == "" {
		t.Fatalf("no checkpoint of the openings:\n%s", a.logs.String())
	}
	a.kill()
	before, err := st.Debate(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}

	b := newServe(t, bin, env)
	b.start()
	defer b.stop()
	body := webhookFixture(t, "issue_comment.created.on-pull-request.json", 7, func(m map[string]any) {
		c := m["comment"].(map[string]any)
		c["id"], c["body"] = 9100, "/human-review"
	})
	if code := b.post("issue_comment", "hr-1", body); code >= 300 {
		t.Fatalf("/human-review answered %d", code)
	}
	var d *store.Debate
	for deadline := time.Now().Add(40 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if d, err = st.PendingHumanDecision(context.Background(), "acme/shop", 7); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the debate was not stopped for a human after the takeover (%v):\n%s", err, b.logs.String())
	}
	if d.ID != id || d.Decision != "escalate" || d.Phases < before.Phases || !strings.Contains(d.Escalations, "human_review") {
		t.Errorf("after the crash and /human-review: debate %s, %s after %d phases (%s); want %s stopped for a human with the %d phases said before the crash",
			d.ID, d.Decision, d.Phases, d.Escalations, id, before.Phases)
	}
	tr := checkpointOf(t, st, id)
	if len(tr.ArgumentsIn(toulmin.PhaseOpening)) == 0 {
		t.Error("the opening arguments said before the crash were lost")
	}
}
