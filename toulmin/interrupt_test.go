package toulmin

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/debatebot/debatebot/voting"
)

// A debate whose context is cancelled from outside in the middle of a phase (the server shutting
// down, a lost lease) returns ErrInterrupted, does not checkpoint the phase, and a resume from
// the last checkpoint asks that phase again and decides on the votes.
func TestEngineInterruptedPhaseRunsAgainOnResume(t *testing.T) {
	for _, sequential := range []bool{false, true} {
		name := "parallel"
		if sequential {
			name = "sequential"
		}
		t.Run(name, func(t *testing.T) {
			p := Standard()
			for i := range p.Phases {
				if p.Phases[i].Kind == PhaseRebuttal {
					p.Phases[i].Sequential = sequential
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var rebuttals atomic.Int32
			// "a" answers its rebuttal; "b" holds it until the shutdown cancels the debate.
			holding := func(vote voting.Option) func(ctx context.Context, req *Request) (*Turn, error) {
				return func(ctx context.Context, req *Request) (*Turn, error) {
					if req.Phase.Kind == PhaseRebuttal {
						rebuttals.Add(1)
						if req.Self.Name == "b" {
							cancel()
							<-ctx.Done()
							return nil, ctx.Err()
						}
					}
					return opener(vote)(ctx, req)
				}
			}
			var saved []*Transcript
			checkpoint := WithCheckpoint(func(_ context.Context, tr *Transcript) error {
				saved = append(saved, copyTranscript(t, tr))
				return nil
			})
			panelOf := func(take func(voting.Option) func(context.Context, *Request) (*Turn, error)) []Agent {
				return []Agent{
					stakeholder("a", "A", take(voting.Approve)), stakeholder("b", "B", take(voting.Approve)),
					maintainer("core", "CM", voting.RoleCoreMaintainer, voting.Approve),
				}
			}
			e, err := NewEngine(p, panelOf(holding), WithClock(fixedClock()), checkpoint)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := e.Run(ctx, subject())
			if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) || tr != nil {
				t.Fatalf("interrupted debate returned %v, %v; want ErrInterrupted wrapping context.Canceled and no transcript", tr, err)
			}
			last := saved[len(saved)-1]
			for _, ph := range last.Timeline {
				if ph.Phase == PhaseRebuttal || ph.Status != StatusCompleted {
					t.Fatalf("the checkpoint holds %s:%s; want only the completed phases before the interrupted rebuttal", ph.Phase, ph.Status)
				}
			}

			// Resume from the last checkpoint: the rebuttal is asked again and the debate decides.
			rebuttals.Store(0)
			e2, _ := NewEngine(p, panelOf(func(v voting.Option) func(context.Context, *Request) (*Turn, error) { return opener(v) }), WithClock(fixedClock()))
			got, err := e2.Resume(context.Background(), subject(), last)
			if err != nil {
				t.Fatal(err)
			}
			if got.Record.Decision != voting.Approve || len(got.Escalations) != 0 {
				t.Errorf("resumed decision %s, escalations %+v; want approve", got.Record.Decision, got.Escalations)
			}
			if n := len(got.ArgumentsIn(PhaseRebuttal)); n != 4 {
				t.Errorf("resumed debate has %d rebuttals, want 4 (two per stakeholder): the interrupted phase must run again", n)
			}
			for _, ph := range got.Timeline {
				if ph.Status != StatusCompleted {
					t.Errorf("resumed timeline has %s:%s", ph.Phase, ph.Status)
				}
			}
		})
	}
}

// A cancellation between phases is an interruption too: nothing of the next phase is recorded.
func TestEngineInterruptedBetweenPhases(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	lost := errors.New("lease lost")
	var phases []PhaseKind
	e, _ := NewEngine(Standard(), []Agent{stakeholder("a", "A", opener(voting.Approve))}, WithClock(fixedClock()),
		WithCheckpoint(func(_ context.Context, tr *Transcript) error {
			phases = append(phases, tr.Timeline[len(tr.Timeline)-1].Phase)
			if len(phases) == 2 {
				cancel(lost)
			}
			return nil
		}))
	_, err := e.Run(ctx, subject())
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, lost) {
		t.Fatalf("err = %v, want ErrInterrupted wrapping the cause", err)
	}
	if len(phases) != 2 || phases[1] != PhaseOpening {
		t.Errorf("checkpointed phases %v, want evidence and opening only", phases)
	}
}

// A real phase timeout is final: the phase is checkpointed as timed out and the debate
// escalates, as before.
func TestEnginePhaseTimeoutIsFinal(t *testing.T) {
	p := Standard()
	for i := range p.Phases {
		if p.Phases[i].Kind == PhaseRebuttal {
			p.Phases[i].Timeout = 50 * time.Millisecond
		}
	}
	hang := func(ctx context.Context, req *Request) (*Turn, error) {
		if req.Phase.Kind == PhaseRebuttal {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return opener(voting.Approve)(ctx, req)
	}
	var saved *Transcript
	e, _ := NewEngine(p, []Agent{stakeholder("a", "A", hang), stakeholder("b", "B", hang)}, WithClock(fixedClock()),
		WithCheckpoint(func(_ context.Context, tr *Transcript) error { saved = copyTranscript(t, tr); return nil }))
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Record.Decision != voting.Escalate || len(tr.Escalations) == 0 || tr.Escalations[0].Reason != voting.ReasonPhaseFailed {
		t.Fatalf("decision %s escalations %+v, want a failed-phase escalation", tr.Record.Decision, tr.Escalations)
	}
	if st := saved.Timeline[len(saved.Timeline)-1]; st.Phase != PhaseRebuttal || st.Status != StatusTimedOut {
		t.Errorf("last checkpointed phase %s:%s, want rebuttal:timed_out", st.Phase, st.Status)
	}
}

// The debate's own total time running out is final as well.
func TestEngineTotalTimeoutIsFinal(t *testing.T) {
	p := Standard()
	p.TotalTimeout = 50 * time.Millisecond
	hang := func(ctx context.Context, req *Request) (*Turn, error) {
		if req.Phase.Kind == PhaseRebuttal {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return opener(voting.Approve)(ctx, req)
	}
	e, _ := NewEngine(p, []Agent{stakeholder("a", "A", hang)}, WithClock(fixedClock()))
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Record.Decision != voting.Escalate {
		t.Errorf("decision %s, want escalate after the total time ran out", tr.Record.Decision)
	}
	var status PhaseStatus
	for _, ph := range tr.Timeline {
		if ph.Phase == PhaseRebuttal {
			status = ph.Status
		}
	}
	if status != StatusTimedOut {
		t.Errorf("rebuttal status %q, want timed_out", status)
	}
}

// /human-review while some agents have answered: their arguments are kept, the phase is shown as
// stopped (not completed), and the debate escalates to a human.
func TestEngineHumanReviewMidPhaseKeepsWhatWasSaid(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	slow := stakeholder("b", "B", func(ctx context.Context, req *Request) (*Turn, error) {
		if req.Phase.Kind == PhaseRebuttal {
			cancel(ErrHumanReview)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return opener(voting.Approve)(ctx, req)
	})
	p := Standard()
	for i := range p.Phases {
		if p.Phases[i].Kind == PhaseRebuttal {
			p.Phases[i].Sequential = true // "a" answers before "b" asks for a human
		}
	}
	var saved *Transcript
	e, _ := NewEngine(p, []Agent{stakeholder("a", "A", opener(voting.Approve)), slow}, WithClock(fixedClock()),
		WithCheckpoint(func(_ context.Context, tr *Transcript) error { saved = copyTranscript(t, tr); return nil }))
	tr, err := e.Run(ctx, subject())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Record.Decision != voting.Escalate || tr.Escalations[0].Reason != voting.ReasonHumanReview {
		t.Fatalf("decision %s escalations %+v, want a human-review escalation", tr.Record.Decision, tr.Escalations)
	}
	reb := tr.ArgumentsIn(PhaseRebuttal)
	if len(reb) != 2 || reb[0].Agent != "a" || reb[1].Agent != "a" {
		t.Errorf("rebuttals kept %+v, want a's two, given before the stop", reb)
	}
	if st := saved.Timeline[len(saved.Timeline)-1]; st.Phase != PhaseRebuttal || st.Status != StatusStopped {
		t.Errorf("checkpointed %s:%s, want rebuttal:stopped", st.Phase, st.Status)
	}
}

// The calls of a phase interrupted from outside were billed: the checkpoint keeps their usage
// as abandoned, and the resumed debate's record counts every call, those included.
func TestEngineInterruptedPhaseUsageIsCounted(t *testing.T) {
	for _, sequential := range []bool{false, true} {
		t.Run(map[bool]string{false: "parallel", true: "sequential"}[sequential], func(t *testing.T) {
			p := Standard()
			for i := range p.Phases {
				if p.Phases[i].Kind == PhaseRebuttal {
					p.Phases[i].Sequential = sequential
				}
			}
			var mu sync.Mutex
			var billed voting.Usage
			bill := func(u voting.Usage) voting.Usage {
				mu.Lock()
				defer mu.Unlock()
				billed.Add(u)
				return u
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// b's shutdown comes once a has answered its rebuttal.
			aAnswered := make(chan struct{})
			var once sync.Once
			agent := func(hold bool) func(voting.Option) func(context.Context, *Request) (*Turn, error) {
				return func(vote voting.Option) func(context.Context, *Request) (*Turn, error) {
					return func(ctx context.Context, req *Request) (*Turn, error) {
						turn, err := opener(vote)(ctx, req)
						if err != nil {
							return nil, err
						}
						if req.Phase.Kind == PhaseRebuttal {
							turn.Usage = voting.Usage{Prompt: 70, Completion: 7, Calls: 1, CostUSD: 0.001}
							if hold && req.Self.Name == "b" {
								// b's call is billed, then the server shuts down under it.
								turn.Usage = bill(voting.Usage{Prompt: 50, Calls: 1, CostUSD: 0.0005})
								<-aAnswered
								cancel()
								<-ctx.Done()
								return turn, ctx.Err()
							}
						}
						bill(turn.Usage)
						if hold && req.Phase.Kind == PhaseRebuttal && req.Self.Name == "a" {
							once.Do(func() { close(aAnswered) })
						}
						return turn, nil
					}
				}
			}
			panel := func(hold bool) []Agent {
				return []Agent{
					stakeholder("a", "A", agent(hold)(voting.Approve)), stakeholder("b", "B", agent(hold)(voting.Approve)),
					maintainer("core", "CM", voting.RoleCoreMaintainer, voting.Approve),
				}
			}
			var last *Transcript
			e, _ := NewEngine(p, panel(true), WithClock(fixedClock()), WithCheckpoint(func(_ context.Context, tr *Transcript) error {
				last = copyTranscript(t, tr)
				return nil
			}))
			if _, err := e.Run(ctx, subject()); !errors.Is(err, ErrInterrupted) {
				t.Fatalf("run returned %v, want ErrInterrupted", err)
			}
			if last.Abandoned.Prompt != 120 || last.Abandoned.Calls != 2 || last.AbandonedByAgent["b"].Prompt != 50 || len(last.Arguments) != 2 {
				t.Fatalf("the checkpoint after the interruption: abandoned %+v by agent %+v, %d arguments; want both rebuttal calls kept and only the openings' arguments",
					last.Abandoned, last.AbandonedByAgent, len(last.Arguments))
			}
			e2, _ := NewEngine(p, panel(false), WithClock(fixedClock()))
			got, err := e2.Resume(context.Background(), subject(), last)
			if err != nil {
				t.Fatal(err)
			}
			if got.Usage.Prompt != billed.Prompt || got.Usage.Completion != billed.Completion || got.Usage.Calls != billed.Calls {
				t.Errorf("the resumed debate counts %+v, the agents billed %+v", got.Usage, billed)
			}
			if got.Record.Tokens.Prompt != billed.Prompt || math.Abs(got.Record.Tokens.CostUSD-billed.CostUSD) > 1e-6 {
				t.Errorf("the record says %+v, the agents billed %+v", got.Record.Tokens, billed)
			}
			if got.UsageByAgent["b"].Prompt != 100+50+70 { // its opening, its interrupted rebuttal, its rebuttal on resume
				t.Errorf("b's usage %+v, want its opening, its interrupted rebuttal and its rebuttal on resume", got.UsageByAgent["b"])
			}
		})
	}
}
