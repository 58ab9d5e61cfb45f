package toulmin

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	"github.com/debatebot/debatebot/voting"
)

// counting wraps agents and counts their calls per phase.
type counting struct {
	mu    sync.Mutex
	calls map[PhaseKind]int
}

func (c *counting) wrap(a *scripted) *scripted {
	inner := a.take
	return &scripted{p: a.p, take: func(ctx context.Context, req *Request) (*Turn, error) {
		c.mu.Lock()
		c.calls[req.Phase.Kind]++
		c.mu.Unlock()
		return inner(ctx, req)
	}}
}

func panel(c *counting) []Agent {
	return []Agent{
		c.wrap(stakeholder("a", "A", opener(voting.RequestChanges))),
		c.wrap(stakeholder("b", "B", opener(voting.Approve))),
		c.wrap(maintainer("core", "CM", voting.RoleCoreMaintainer, voting.RequestChanges)),
	}
}

func copyTranscript(t *testing.T, tr *Transcript) *Transcript {
	t.Helper()
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var out Transcript
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func TestResumeSkipsCompletedPhases(t *testing.T) {
	p := Standard()
	p.Loop.MaxRounds = 3
	p.Loop.ExitWhen = nil
	for _, after := range []struct {
		phase PhaseKind
		round int
	}{{PhaseOpening, 1}, {PhaseRebuttal, 1}, {PhaseClarification, 2}, {PhaseFinal, 3}} {
		t.Run(string(after.phase), func(t *testing.T) {
			var saved *Transcript
			full := &counting{calls: map[PhaseKind]int{}}
			e, err := NewEngine(p, panel(full), WithClock(fixedClock()), WithCheckpoint(func(_ context.Context, tr *Transcript) error {
				last := tr.Timeline[len(tr.Timeline)-1]
				if last.Phase == after.phase && last.Round == after.round {
					saved = copyTranscript(t, tr)
				}
				return nil
			}))
			if err != nil {
				t.Fatal(err)
			}
			want, err := e.Run(context.Background(), subject())
			if err != nil || saved == nil {
				t.Fatalf("run: %v, checkpoint saved: %v", err, saved != nil)
			}

			resumed := &counting{calls: map[PhaseKind]int{}}
			e2, _ := NewEngine(p, panel(resumed), WithClock(fixedClock()))
			got, err := e2.Resume(context.Background(), subject(), saved)
			if err != nil {
				t.Fatal(err)
			}
			// Calls after the checkpoint plus calls before it equal the uninterrupted run's.
			before := map[PhaseKind]int{}
			for _, ph := range saved.Timeline {
				before[ph.Phase] += len(ph.Agents)
			}
			for kind, n := range full.calls {
				if resumed.calls[kind]+before[kind] != n {
					t.Errorf("%s: %d calls after resuming + %d before the checkpoint, want %d in all", kind, resumed.calls[kind], before[kind], n)
				}
			}
			if len(got.Arguments) != len(want.Arguments) || got.Rounds != want.Rounds || len(got.Timeline) != len(want.Timeline) {
				t.Errorf("resumed: %d arguments, %d rounds, %d phases; uninterrupted: %d, %d, %d",
					len(got.Arguments), got.Rounds, len(got.Timeline), len(want.Arguments), want.Rounds, len(want.Timeline))
			}
			for i := range want.Arguments {
				if i < len(got.Arguments) && got.Arguments[i].ID != want.Arguments[i].ID {
					t.Errorf("argument %d is %s, want %s", i, got.Arguments[i].ID, want.Arguments[i].ID)
				}
			}
			gr, wr := got.Record, want.Record
			gr.EndedAt, wr.EndedAt = "", ""
			if !reflect.DeepEqual(gr, wr) {
				t.Errorf("resumed record %+v\nwant %+v", gr, wr)
			}
		})
	}
}

func TestCheckpointFailureEndsTheDebate(t *testing.T) {
	e, _ := NewEngine(Standard(), []Agent{stakeholder("a", "A", opener(voting.Approve))}, WithCheckpoint(func(context.Context, *Transcript) error {
		return context.DeadlineExceeded
	}))
	if _, err := e.Run(context.Background(), subject()); err == nil {
		t.Fatal("a debate whose checkpoints cannot be kept went on")
	}
}
