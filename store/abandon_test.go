package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// A job whose worker dies every time it holds it (a crash, kill -9: the lease lapses each time)
// is claimed at most maxAttempts times, each takeover counted; the next claim after the last
// lease lapsed fails it as abandoned, once, instead of running it again.
func TestClaimCappedAbandonsAJobThatKillsItsWorkers(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		clock := time.Unix(1_800_000_000, 0)
		s.now = func() time.Time { return clock }
		if _, err := s.Enqueue(ctx, "d", "pull_request", job("k", "acme/shop#1", "h")); err != nil {
			t.Fatal(err)
		}
		const maxAttempts = 3
		for attempt := 1; attempt <= maxAttempts; attempt++ {
			j, abandoned, err := s.ClaimCapped(ctx, fmt.Sprintf("w%d", attempt), time.Minute, maxAttempts)
			if err != nil || j == nil || j.Attempts != attempt || len(abandoned) != 0 {
				t.Fatalf("claim %d: %+v, abandoned %v, %v", attempt, j, abandoned, err)
			}
			// The worker dies holding it: nothing is recorded, and the lease lapses.
			clock = clock.Add(2 * time.Minute)
		}
		j, abandoned, err := s.ClaimCapped(ctx, "w-last", time.Minute, maxAttempts)
		if err != nil || j != nil {
			t.Fatalf("claim past the cap: %+v, %v; want nothing to run", j, err)
		}
		if len(abandoned) != 1 || abandoned[0].State != Failed || abandoned[0].Attempts != maxAttempts {
			t.Fatalf("abandoned = %+v, want the job, failed after %d attempts", abandoned, maxAttempts)
		}
		want := "abandoned: the worker stopped 3 times while holding this job"
		if got, _ := s.Job(ctx, abandoned[0].ID); got.State != Failed || got.Error != want || got.Attempts != maxAttempts || got.LeaseOwner != "" {
			t.Errorf("stored job = %+v, want failed with %q", got, want)
		}
		if j, again, err := s.ClaimCapped(ctx, "w-after", time.Minute, maxAttempts); err != nil || j != nil || len(again) != 0 {
			t.Errorf("a later claim: %+v, abandoned %v, %v; want nothing (reported once)", j, again, err)
		}
		// The dead worker's late outcome is refused.
		if err := s.Complete(ctx, abandoned[0].ID, "w3"); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("late completion: %v, want ErrLeaseLost", err)
		}
	})
}

// Replicas claiming at once: the abandoned job is reported by exactly one of them, and none runs it.
func TestClaimCappedReportsAnAbandonedJobOnce(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		if _, err := s.Enqueue(ctx, "d", "pull_request", job("k", "acme/shop#1", "h")); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			if j, _, err := s.ClaimCapped(ctx, "dead", time.Millisecond, 2); err != nil || j == nil {
				t.Fatalf("claim %d: %+v %v", i, j, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		var mu sync.Mutex
		var reported, ran int
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j, abandoned, err := s.ClaimCapped(ctx, fmt.Sprintf("w%d", w), time.Minute, 2)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				defer mu.Unlock()
				reported += len(abandoned)
				if j != nil {
					ran++
				}
			}()
		}
		wg.Wait()
		if reported != 1 || ran != 0 {
			t.Errorf("reported %d times, run %d times; want reported once, never run", reported, ran)
		}
	})
}

// A job given back at shutdown is queued at once and its interrupted attempt is not counted:
// deploys do not use up the attempts of a long debate.
func TestReleaseRequeuesWithoutCountingTheAttempt(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		if _, err := s.Enqueue(ctx, "d", "pull_request", job("k", "acme/shop#1", "h")); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			j, _, err := s.ClaimCapped(ctx, "w", time.Minute, 2)
			if err != nil || j == nil || j.Attempts != 1 {
				t.Fatalf("claim after %d releases: %+v %v", i, j, err)
			}
			if err := s.Release(ctx, j.ID, "w"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Release(ctx, 1, "w"); !errors.Is(err, ErrLeaseLost) {
			t.Errorf("releasing a job not held: %v, want ErrLeaseLost", err)
		}
		if j, _ := s.Job(ctx, 1); j.State != Queued || j.Attempts != 0 {
			t.Errorf("job = %+v, want queued with no attempt counted", j)
		}
	})
}
