package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// TestSIGTERMMidPhaseRunsThePhaseAgain sends SIGTERM to `debatebot serve` while the model holds
// the rebuttal phase of a debate past the shutdown's grace period. The interrupted phase is not
// saved as final ("timed_out"): the checkpoint ends with the last completed phase, and after a
// restart the debate resumes, asks the rebuttals again, and decides on the votes rather than
// escalating for a failed phase; the comments are edited, not duplicated.
func TestSIGTERMMidPhaseRunsThePhaseAgain(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh := githubtest.New(t)
	putExample(t, gh, 7, "abc123")
	// Until the restart, the model sits on every rebuttal (the request's cancellation ends it).
	// The first rebuttal is answered (and billed) before SIGTERM.
	var hold atomic.Bool
	var rebuttals atomic.Int32
	hold.Store(true)
	llm := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
		resp := llmtest.Valid(n, r)
		if phase, _ := llmtest.Phase(r); phase == string(toulmin.PhaseRebuttal) && hold.Load() && rebuttals.Add(1) > 1 {
			resp.Delay = 10 * time.Minute
		}
		return resp
	})
	db := filepath.Join(t.TempDir(), "debatebot.db")
	p := newServe(t, bin, appEnv(t, gh, db, llm.BaseURL(), "DEBATEBOT_JOB_LEASE=1s", "DEBATEBOT_SHUTDOWN_TIMEOUT=1s", "DEBATEBOT_LOG_LEVEL=debug"))
	p.start()
	if code := p.post("pull_request", "d-1", prOpened(t, "abc123")); code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("delivery answered %d\n%s", code, p.logs.String())
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && phaseCalls(llm)["rebuttal"] == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	if phaseCalls(llm)["rebuttal"] == 0 {
		t.Fatalf("the debate never reached the rebuttals:\n%s", p.logs.String())
	}
	start := time.Now()
	p.stop() // SIGTERM, and wait for the process to exit
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("serve took %s to stop with a 1s shutdown grace", took)
	}
	before := phaseCalls(llm)
	t.Logf("SIGTERM to exit: %s", time.Since(start))

	st, err := store.Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ds, err := st.Debates(context.Background())
	if err != nil || len(ds) != 1 {
		t.Fatalf("debates in the store: %d (%v), want 1", len(ds), err)
	}
	id := ds[0].ID
	cp := checkpointOf(t, st, id)
	if ds[0].Decision != "" {
		t.Fatalf("the interrupted debate was decided (%s) at shutdown", ds[0].Decision)
	}
	for _, ph := range cp.Timeline {
		if ph.Status != toulmin.StatusCompleted || ph.Phase == toulmin.PhaseRebuttal {
			t.Errorf("checkpoint after SIGTERM holds %s:%s (%v); want only the phases completed before the rebuttals", ph.Phase, ph.Status, ph.Notes)
		}
	}

	hold.Store(false)
	p.logs.Reset()
	restarted := time.Now()
	p.start()
	defer p.stop()
	deadline = time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if d, err := st.Debate(context.Background(), id); err == nil && d.Decision != "" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	d, err := st.Debate(context.Background(), id)
	if err != nil || d.Decision == "" {
		t.Fatalf("the debate did not finish after the restart (%v):\n%s", err, p.logs.String())
	}
	after := phaseCalls(llm)
	t.Logf("restart to decision: %s (%s)", time.Since(restarted), d.Decision)
	if after["opening_arguments"] != before["opening_arguments"] {
		t.Errorf("opening arguments: %d model calls before SIGTERM, %d after the restart: a completed phase was asked again", before["opening_arguments"], after["opening_arguments"])
	}
	if after["rebuttal"] <= before["rebuttal"] || after["synthesis"] == 0 {
		t.Errorf("model calls before SIGTERM %v, after the restart %v: the interrupted rebuttals must be asked again and the debate go on", before, after)
	}
	final := checkpointOf(t, st, id)
	for _, e := range final.Escalations {
		if e.Reason == voting.ReasonPhaseFailed || strings.Contains(e.Detail, string(toulmin.PhaseRebuttal)) {
			t.Errorf("decision %s escalated for the interrupted phase: %+v", d.Decision, e)
		}
	}
	for _, ph := range final.Timeline {
		if ph.Status != toulmin.StatusCompleted {
			t.Errorf("the resumed debate's timeline has %s:%s (%v)", ph.Phase, ph.Status, ph.Notes)
		}
	}
	// The record counts every call the server billed, the interrupted phase's answered one too.
	if billed := llm.Billed(); d.Prompt != billed.Prompt || d.Completion != billed.Completion {
		t.Errorf("the record counts %d prompt and %d completion tokens; the model billed %+v", d.Prompt, d.Completion, billed)
	}
	checkPublishedOnce(t, gh, "SIGTERM and restart")
}

func checkpointOf(t *testing.T, st *store.Store, id string) *toulmin.Transcript {
	t.Helper()
	d, err := st.Debate(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var tr toulmin.Transcript
	if err := json.Unmarshal(d.Checkpoint, &tr); err != nil {
		t.Fatalf("checkpoint of %s: %v", id, err)
	}
	return &tr
}
