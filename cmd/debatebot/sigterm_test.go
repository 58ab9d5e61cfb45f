package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
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
// a phase of a debate past the shutdown's grace period. The interrupted phase is not saved as
// final ("timed_out"): the checkpoint ends with the last completed phase, and after a restart the
// debate resumes, asks the phase again, and decides on the votes rather than escalating for a
// failed phase; the comments are edited, not duplicated. A call of the interrupted phase is
// answered (and billed) before SIGTERM: with a call per agent, the first agent's rebuttal is
// answered and the others' are held; with a call for the panel, the panel's call is answered
// but one member's turn in it is unusable, and that member's own call is held. In the middle of
// a panel's round (its clarification), the turns its call held are lost with the process: the
// restart asks the panel again from the clarification on.
func TestSIGTERMMidPhaseRunsThePhaseAgain(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	for _, mode := range llmtest.CallModes {
		t.Run(mode.Name, func(t *testing.T) { sigtermRunsThePhaseAgain(t, bin, mode.Config, toulmin.PhaseRebuttal) })
	}
	t.Run("panel mid-round", func(t *testing.T) { sigtermRunsThePhaseAgain(t, bin, "", toulmin.PhaseClarification) })
}

// unusableTurn is what makes a member's turn of a panel's reply unusable, so that the member is
// asked alone: rebuttals of no argument of the debate, or a clarification without a stance.
func unusableTurn(turn llmtest.Turn) {
	switch turn.Phase {
	case string(toulmin.PhaseRebuttal):
		args, _ := turn.Fields["arguments"].([]any)
		for _, a := range args {
			a.(map[string]any)["target"] = "ZZ-9"
		}
	case string(toulmin.PhaseClarification):
		turn.Fields["position"] = map[string]any{"vote": "maybe"}
	}
}

func sigtermRunsThePhaseAgain(t *testing.T, bin, config string, held toulmin.PhaseKind) {
	gh := githubtest.New(t)
	putExample(t, gh, 7, "abc123")
	perAgent := config != ""
	if perAgent {
		gh.Contents["acme/shop@main:.github/debatebot.yml"] = config
	}
	// Until the restart, the model sits on the calls of the phase it holds (the request's
	// cancellation ends them). In a panel's reply, the turn of the member asked alone is
	// unusable: MS's rebuttal (it rebuts SS-1), SS's clarification (SS-1 is rebutted).
	alone := map[toulmin.PhaseKind]string{toulmin.PhaseRebuttal: "MS", toulmin.PhaseClarification: "SS"}[held]
	var hold atomic.Bool
	var answered, holding atomic.Int32
	hold.Store(true)
	llm := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
		resp := llmtest.Valid(n, r)
		if !hold.Load() || !slices.Contains(llmtest.Phases(r), string(held)) {
			return resp
		}
		if r.ResponseFormat.JSONSchema.Name == llmtest.PanelSchema {
			return llmtest.EditTurns(r, resp, func(turn llmtest.Turn) {
				if turn.Phase == string(held) && turn.Agent == alone {
					unusableTurn(turn)
				}
			})
		}
		if perAgent && answered.Add(1) == 1 {
			return resp
		}
		holding.Add(1)
		resp.Delay = 10 * time.Minute
		return resp
	})
	db := filepath.Join(t.TempDir(), "debatebot.db")
	p := newServe(t, bin, appEnv(t, gh, db, llm.BaseURL(), "DEBATEBOT_JOB_LEASE=1s", "DEBATEBOT_SHUTDOWN_TIMEOUT=1s", "DEBATEBOT_LOG_LEVEL=debug"))
	p.start()
	if code := p.post("pull_request", "d-1", prOpened(t, "abc123")); code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("delivery answered %d\n%s", code, p.logs.String())
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && holding.Load() == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	if holding.Load() == 0 {
		t.Fatalf("the debate never reached the %s calls the model holds (%v):\n%s", held, phaseCalls(llm), p.logs.String())
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
	done := []string{string(toulmin.PhaseOpening)}
	for _, ph := range cp.Timeline {
		if ph.Status != toulmin.StatusCompleted || ph.Phase == held {
			t.Errorf("checkpoint after SIGTERM holds %s:%s (%v); want only the phases completed before the %s", ph.Phase, ph.Status, ph.Notes, held)
		}
		if !slices.Contains(done, string(ph.Phase)) {
			done = append(done, string(ph.Phase))
		}
	}
	if held == toulmin.PhaseClarification && !slices.Contains(done, string(toulmin.PhaseRebuttal)) {
		t.Errorf("checkpoint after SIGTERM lacks the completed rebuttals: %v", done)
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
	for _, phase := range done {
		if after[phase] != before[phase] {
			t.Errorf("%s: %d model calls before SIGTERM, %d after the restart: a completed phase was asked again", phase, before[phase], after[phase])
		}
	}
	if after[string(held)] <= before[string(held)] || after["synthesis"] == 0 {
		t.Errorf("model calls before SIGTERM %v, after the restart %v: the interrupted %s must be asked again and the debate go on", before, after, held)
	}
	final := checkpointOf(t, st, id)
	for _, e := range final.Escalations {
		if e.Reason == voting.ReasonPhaseFailed || strings.Contains(e.Detail, string(held)) {
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
	llmtest.CheckAskedAs(t, llm.Requests(), config)
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
