package store

import (
	"context"
	"sync"
	"testing"
	"time"
)

// count is a streak policy for the tests: the same fingerprint continues the streak.
func count(f *Failure) func(FailureTask) FailureTask {
	return func(t FailureTask) FailureTask {
		if t.Streak > 0 && t.Fingerprint == f.Fingerprint {
			t.Streak++
		} else {
			t.Streak, t.Debated, t.Escalated = 1, 0, false
		}
		t.Fingerprint, t.LastAt, t.LastHead, t.Files = f.Fingerprint, f.At, f.HeadSHA, f.Files
		return t
	}
}

func TestRecordFailureStreaks(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		at := time.Unix(1700000000, 0)
		fail := func(key, fp string) (FailureTask, bool) {
			t.Helper()
			f := &Failure{RunKey: key, PR: "acme/shop#7", TaskID: "task1", At: at, Fingerprint: fp, Message: "m " + fp, HeadSHA: "h-" + key, Files: []string{"a.go", "b.go"}}
			task, ok, err := s.RecordFailure(ctx, f, "CI / test", count(f))
			if err != nil {
				t.Fatal(err)
			}
			return task, ok
		}
		if task, ok := fail("run1", "x"); !ok || task.Streak != 1 {
			t.Fatalf("first failure: %+v %v", task, ok)
		}
		if _, ok := fail("run1", "x"); ok {
			t.Error("a redelivered failure is recorded once")
		}
		task, _ := fail("run2", "x")
		if task.Streak != 2 || task.Task != "CI / test" || len(task.Files) != 2 {
			t.Errorf("second failure: %+v", task)
		}
		task.Debated, task.Patterns = 2, []string{"p1"}
		if err := s.UpdateTask(ctx, &task); err != nil {
			t.Fatal(err)
		}
		got, err := s.FailureTaskOf(ctx, "acme/shop#7", "task1")
		if err != nil || got.Debated != 2 || len(got.Patterns) != 1 || got.LastHead != "h-run2" {
			t.Fatalf("stored task %+v %v", got, err)
		}
		last, err := s.LastFailures(ctx, "acme/shop#7", "task1", 2)
		if err != nil || len(last) != 2 || last[0].RunKey != "run1" || last[1].Attempt != 2 || last[1].Files[1] != "b.go" {
			t.Errorf("last failures %+v %v", last, err)
		}
		if ok, err := s.ResetTask(ctx, "acme/shop#7", "task1"); err != nil || !ok {
			t.Errorf("reset %v %v", ok, err)
		}
		if ok, _ := s.ResetTask(ctx, "acme/shop#7", "task1"); ok {
			t.Error("nothing to reset twice")
		}
		if task, _ := fail("run3", "x"); task.Streak != 1 || len(task.Patterns) != 1 {
			t.Errorf("after a reset the streak starts again and keeps the patterns: %+v", task)
		}
		if _, err := s.FailureTaskOf(ctx, "acme/shop#7", "nope"); err != ErrNotFound {
			t.Errorf("unknown task: %v", err)
		}
	})
}

func TestRecordFailureConcurrent(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				f := &Failure{RunKey: string(rune('a' + i)), PR: "acme/shop#7", TaskID: "t", At: time.Now(), Fingerprint: "x"}
				if _, _, err := s.RecordFailure(ctx, f, "task", count(f)); err != nil {
					t.Error(err)
				}
			}(i)
		}
		wg.Wait()
		task, err := s.FailureTaskOf(ctx, "acme/shop#7", "t")
		if err != nil || task.Streak != 8 {
			t.Errorf("eight failures at once make a streak of 8: %+v %v", task, err)
		}
	})
}

func TestDialecticStats(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		at := time.Unix(1700000000, 0)
		for i, d := range []DialecticDebate{
			{ID: "f1", Type: "failure", PR: "acme/shop#7", TaskID: "t1", HeadSHA: "h1", Resolution: "PIVOT", At: at},
			{ID: "f2", Type: "failure", PR: "acme/shop#7", TaskID: "t2", HeadSHA: "h1", Resolution: "RETRY", At: at},
			{ID: "f3", Type: "failure", PR: "acme/shop#7", TaskID: "t3", HeadSHA: "h1", Resolution: "ESCALATE", At: at},
			{ID: "p1", Type: "planning", PR: "acme/shop#7", Resolution: "MODIFY", At: at},
		} {
			d.At = d.At.Add(time.Duration(i) * time.Second)
			if err := s.SaveDialecticDebate(ctx, &d); err != nil {
				t.Fatal(err)
			}
		}
		// t1 succeeds on a new commit (helped), t2 on the debated commit (not needed), t3 fails.
		for _, o := range []struct {
			task, head string
			ok         bool
		}{{"t1", "h2", true}, {"t2", "h1", true}, {"t3", "h2", false}, {"t1", "h3", false}} {
			if err := s.DebateOutcome(ctx, "acme/shop#7", o.task, o.head, o.ok); err != nil {
				t.Fatal(err)
			}
		}
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		d := st.Dialectic
		if d.ByType["failure"]["PIVOT"] != 1 || d.ByType["failure"]["RETRY"] != 1 || d.ByType["planning"]["MODIFY"] != 1 {
			t.Errorf("by type %v", d.ByType)
		}
		if d.WithOutcome != 3 || d.Helped != 1 || d.Needless != 1 || d.HelpedRate < 0.33 || d.HelpedRate > 0.34 || d.FalsePositiveRate < 0.33 || d.FalsePositiveRate > 0.34 {
			t.Errorf("outcomes %+v (the second run of t1 must not count again)", d)
		}
	})
}

func TestDialecticDebateLookups(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		if ok, err := s.FailureRecorded(ctx, "run/1"); err != nil || ok {
			t.Fatalf("nothing recorded yet: %v %v", ok, err)
		}
		f := &Failure{RunKey: "run/1", PR: "acme/shop#7", TaskID: "t", At: time.Now(), Fingerprint: "x"}
		if _, _, err := s.RecordFailure(ctx, f, "task", count(f)); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.FailureRecorded(ctx, "run/1"); err != nil || !ok {
			t.Fatalf("recorded: %v %v", ok, err)
		}
		at := time.Unix(1700000000, 0)
		for _, d := range []DialecticDebate{
			{ID: "failure/run/2", Type: "failure", PR: "acme/shop#7", TaskID: "t", Resolution: "PIVOT", At: at, Record: []byte("debate")},
			{ID: "escalation/run/3", Type: "escalation", PR: "acme/shop#7", TaskID: "t", Resolution: "ESCALATE", At: at.Add(time.Minute), Record: []byte("debate + escalation")},
			{ID: "plan/1", Type: "planning", PR: "acme/shop#7", TaskID: "t", Resolution: "PROCEED", At: at.Add(time.Hour), Record: []byte("plan")},
		} {
			if err := s.SaveDialecticDebate(ctx, &d); err != nil {
				t.Fatal(err)
			}
		}
		d, err := s.DialecticDebateByID(ctx, "failure/run/2")
		if err != nil || string(d.Record) != "debate" || d.Resolution != "PIVOT" || !d.At.Equal(at) {
			t.Errorf("by id: %+v %v", d, err)
		}
		if _, err := s.DialecticDebateByID(ctx, "nope"); err != ErrNotFound {
			t.Errorf("unknown id: %v", err)
		}
		latest, err := s.LatestDialecticDebate(ctx, "acme/shop#7", "t")
		if err != nil || latest.ID != "escalation/run/3" {
			t.Errorf("the latest failure debate or escalation (planning excluded): %+v %v", latest, err)
		}
		if _, err := s.LatestDialecticDebate(ctx, "acme/shop#8", "t"); err != ErrNotFound {
			t.Errorf("another pull request: %v", err)
		}
	})
}
