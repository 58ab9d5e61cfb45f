package toulmin

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debatebot/debatebot/voting"
)

// threeRounds is a protocol whose loop runs to three rounds unless a checkpoint ends it.
func threeRounds() Protocol {
	p := Standard()
	p.Loop.MaxRounds = 3
	p.Loop.ExitWhen = []ExitRule{ExitStagnation}
	p.Checkpoints = true
	return p
}

// guidanceSeen records the guidance each phase's requests carried, by phase and round.
type guidanceSeen struct {
	mu   sync.Mutex
	seen map[string]string
}

func (g *guidanceSeen) agent(name, abbrev string, vote voting.Option) *scripted {
	inner := opener(vote)
	return stakeholder(name, abbrev, func(ctx context.Context, req *Request) (*Turn, error) {
		g.mu.Lock()
		g.seen[string(req.Phase.Kind)+"/"+string(rune('0'+req.Round))+"/"+name] = req.Guidance
		g.mu.Unlock()
		return inner(ctx, req)
	})
}

func TestCheckpointGuideContinueEnd(t *testing.T) {
	g := &guidanceSeen{seen: map[string]string{}}
	answers := []CheckpointAnswer{
		{Action: CheckpointGuide, Guidance: "  weigh the migration's rollback  ", By: "octocat"},
		{Action: CheckpointEnd, By: "octocat"},
	}
	var pauses []Pause
	hook := func(_ context.Context, p Pause) (CheckpointAnswer, error) {
		pauses = append(pauses, p)
		a := answers[0]
		answers = answers[1:]
		return a, nil
	}
	e, err := NewEngine(threeRounds(), []Agent{g.agent("a", "A", voting.Approve), g.agent("b", "B", voting.RequestChanges)},
		WithClock(fixedClock()), WithRoundCheckpoint(hook))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	if len(pauses) != 2 || pauses[0].Round != 1 || pauses[1].Round != 2 || pauses[0].Judgement.Round != 1 {
		t.Fatalf("pauses %+v, want one after round 1 and one after round 2", pauses)
	}
	if tr.Rounds != 2 || !strings.Contains(tr.ExitReason, "ended at the checkpoint after round 2 by octocat") {
		t.Errorf("rounds %d exit %q, want the rounds ended by the human after round 2", tr.Rounds, tr.ExitReason)
	}
	if len(tr.Checkpoints) != 2 || tr.Checkpoints[0].Action != CheckpointGuide || tr.Checkpoints[0].Guidance != "weigh the migration's rollback" ||
		tr.Checkpoints[1].Action != CheckpointEnd || tr.Checkpoints[1].AfterRound != 2 {
		t.Errorf("checkpoints %+v", tr.Checkpoints)
	}
	// The guidance reaches the round after it, and only that round.
	for _, key := range []string{"rebuttal/2/a", "clarification/2/b", "response/2/a"} {
		if g.seen[key] != "weigh the migration's rollback" {
			t.Errorf("%s carried guidance %q", key, g.seen[key])
		}
	}
	for _, key := range []string{"rebuttal/1/a", "opening_arguments/1/a", "final_arguments/2/b"} {
		if g.seen[key] != "" {
			t.Errorf("%s carried guidance %q, want none", key, g.seen[key])
		}
	}
	// End goes on to the final arguments and the decision.
	if last := tr.Timeline[len(tr.Timeline)-1]; last.Phase != PhaseDecision || tr.Record.Decision == "" {
		t.Errorf("last phase %s decision %q", last.Phase, tr.Record.Decision)
	}
	if _, ok := g.seen["final_arguments/2/a"]; !ok {
		t.Error("the final arguments did not run after the checkpoint ended the rounds")
	}
}

func TestCheckpointNotAskedWhenTheRoundsEndAnyway(t *testing.T) {
	calls := 0
	hook := func(context.Context, Pause) (CheckpointAnswer, error) {
		calls++
		return CheckpointAnswer{Action: CheckpointContinue}, nil
	}
	agents := func() []Agent {
		return []Agent{stakeholder("a", "A", opener(voting.Approve)), stakeholder("b", "B", opener(voting.RequestChanges))}
	}
	e, _ := NewEngine(threeRounds(), agents(), WithClock(fixedClock()), WithRoundCheckpoint(hook))
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	// Three rounds, and the last is followed by none: two pauses.
	if tr.Rounds != 3 || calls != 2 || len(tr.Checkpoints) != 2 {
		t.Errorf("rounds %d, hook called %d times, %d checkpoints; want 3 rounds and 2 pauses", tr.Rounds, calls, len(tr.Checkpoints))
	}

	// Without checkpoints in the protocol the hook is never asked.
	p := threeRounds()
	p.Checkpoints = false
	calls = 0
	e, _ = NewEngine(p, agents(), WithClock(fixedClock()), WithRoundCheckpoint(hook))
	if tr, _ = e.Run(context.Background(), subject()); calls != 0 || len(tr.Checkpoints) != 0 || tr.Rounds != 3 {
		t.Errorf("checkpoints off: hook called %d times, rounds %d", calls, tr.Rounds)
	}
}

func TestCheckpointTimeoutEndsTheRounds(t *testing.T) {
	p := threeRounds()
	p.CheckpointTimeout = 20 * time.Millisecond
	p.TotalTimeout = time.Second
	waited := false
	hook := func(ctx context.Context, _ Pause) (CheckpointAnswer, error) {
		<-ctx.Done() // nobody answers
		waited = true
		return CheckpointAnswer{}, ctx.Err()
	}
	e, _ := NewEngine(p, []Agent{stakeholder("a", "A", opener(voting.Approve)), stakeholder("b", "B", opener(voting.RequestChanges))},
		WithClock(fixedClock()), WithRoundCheckpoint(hook))
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	if !waited || tr.Rounds != 1 || len(tr.Checkpoints) != 1 || tr.Checkpoints[0].Action != CheckpointEnd ||
		!strings.Contains(tr.Checkpoints[0].Note, "checkpoint timeout (20ms)") || !strings.Contains(tr.ExitReason, "ended at the checkpoint after round 1") {
		t.Errorf("rounds %d checkpoints %+v exit %q", tr.Rounds, tr.Checkpoints, tr.ExitReason)
	}
}

func TestCheckpointWaitDoesNotCountAgainstTotalTime(t *testing.T) {
	p := threeRounds()
	p.TotalTimeout = 150 * time.Millisecond
	hook := func(context.Context, Pause) (CheckpointAnswer, error) {
		time.Sleep(200 * time.Millisecond) // a human thinking longer than the debate's whole time
		return CheckpointAnswer{Action: CheckpointContinue, By: "terminal"}, nil
	}
	e, _ := NewEngine(p, []Agent{stakeholder("a", "A", opener(voting.Approve)), stakeholder("b", "B", opener(voting.RequestChanges))},
		WithClock(fixedClock()), WithRoundCheckpoint(hook))
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	for _, ph := range tr.Timeline {
		if ph.Status != StatusCompleted {
			t.Errorf("%s round %d: %s %v", ph.Phase, ph.Round, ph.Status, ph.Notes)
		}
	}
	if tr.Rounds != 3 {
		t.Errorf("rounds %d, want 3", tr.Rounds)
	}
}

func TestCheckpointHookFailures(t *testing.T) {
	agents := []Agent{stakeholder("a", "A", opener(voting.Approve)), stakeholder("b", "B", opener(voting.RequestChanges))}
	for name, hook := range map[string]RoundCheckpoint{
		"error": func(context.Context, Pause) (CheckpointAnswer, error) {
			return CheckpointAnswer{}, errors.New("terminal gone")
		},
		"answer": func(context.Context, Pause) (CheckpointAnswer, error) { return CheckpointAnswer{Action: "skip"}, nil },
	} {
		e, _ := NewEngine(threeRounds(), agents, WithClock(fixedClock()), WithRoundCheckpoint(hook))
		if _, err := e.Run(context.Background(), subject()); err == nil || !strings.Contains(err.Error(), "checkpoint after round 1") {
			t.Errorf("%s: err %v, want the checkpoint's failure", name, err)
		}
	}
	// Cancelled from outside while waiting: interrupted, to resume from the last checkpoint.
	ctx, cancel := context.WithCancel(context.Background())
	hook := func(hctx context.Context, _ Pause) (CheckpointAnswer, error) {
		cancel()
		<-hctx.Done()
		return CheckpointAnswer{}, hctx.Err()
	}
	e, _ := NewEngine(threeRounds(), agents, WithClock(fixedClock()), WithRoundCheckpoint(hook))
	if _, err := e.Run(ctx, subject()); !errors.Is(err, ErrInterrupted) {
		t.Errorf("err %v, want ErrInterrupted", err)
	}
}

func TestCheckpointResumeDoesNotAskAgain(t *testing.T) {
	var saved *Transcript
	hook := func(context.Context, Pause) (CheckpointAnswer, error) {
		return CheckpointAnswer{Action: CheckpointGuide, Guidance: "look at the index", By: "octocat"}, nil
	}
	g := &guidanceSeen{seen: map[string]string{}}
	p := threeRounds()
	p.Loop.MaxRounds = 2
	e, _ := NewEngine(p, []Agent{g.agent("a", "A", voting.Approve), g.agent("b", "B", voting.RequestChanges)}, WithClock(fixedClock()), WithRoundCheckpoint(hook),
		WithCheckpoint(func(_ context.Context, tr *Transcript) error {
			if len(tr.Checkpoints) == 1 && saved == nil {
				saved = copyTranscript(t, tr) // kept right after the human answered
			}
			return nil
		}))
	if _, err := e.Run(context.Background(), subject()); err != nil || saved == nil {
		t.Fatalf("run: %v, saved %v", err, saved != nil)
	}
	asked := 0
	g2 := &guidanceSeen{seen: map[string]string{}}
	e2, _ := NewEngine(p, []Agent{g2.agent("a", "A", voting.Approve), g2.agent("b", "B", voting.RequestChanges)}, WithClock(fixedClock()),
		WithRoundCheckpoint(func(context.Context, Pause) (CheckpointAnswer, error) {
			asked++
			return CheckpointAnswer{Action: CheckpointEnd}, nil
		}))
	tr, err := e2.Resume(context.Background(), subject(), saved)
	if err != nil {
		t.Fatal(err)
	}
	if asked != 0 || tr.Rounds != 2 || len(tr.Checkpoints) != 1 || g2.seen["rebuttal/2/a"] != "look at the index" {
		t.Errorf("asked %d, rounds %d, checkpoints %+v, round 2 guidance %q", asked, tr.Rounds, tr.Checkpoints, g2.seen["rebuttal/2/a"])
	}
}

func TestCheckpointTimeoutValidates(t *testing.T) {
	p := Standard()
	p.CheckpointTimeout = -time.Second
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "checkpoint timeout") {
		t.Errorf("err %v", err)
	}
	if !Extended().Checkpoints || Standard().Checkpoints || FastTrack().Checkpoints {
		t.Error("checkpoints should default on for extended only")
	}
	if std := Standard(); std.CheckpointWait() != 30*time.Minute {
		t.Errorf("default wait %s", std.CheckpointWait())
	}
}
