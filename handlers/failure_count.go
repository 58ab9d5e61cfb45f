package handlers

import (
	"time"

	"github.com/debatebot/debatebot/store"
)

// StaleFailure is seed 000's staleness guideline: a failure older than this is not consecutive
// with the next one, unless nothing changed since (the same commit failed again).
const StaleFailure = 24 * time.Hour

// Consecutive reports whether a failure continues a task's streak: the same fingerprint, and
// either recent or on the same commit.
func Consecutive(prev store.FailureTask, f *store.Failure) bool {
	if prev.Streak == 0 || prev.Fingerprint != f.Fingerprint {
		return false
	}
	return f.At.Sub(prev.LastAt) <= StaleFailure || prev.LastHead == f.HeadSHA
}

// failureAction is what a recorded failure calls for.
type failureAction int

const (
	noAction failureAction = iota
	// holdDebate: the second consecutive failure with the same fingerprint.
	holdDebate
	// escalateTask: a failure after the task's failure debate (its one more attempt spent).
	escalateTask
)

// nextStreak moves a task's streak by a failure and decides, in the same transaction, what the
// failure calls for: two workers recording two failures of a task at once cannot both hold its
// debate.
func nextStreak(f *store.Failure, action *failureAction) func(store.FailureTask) store.FailureTask {
	return func(t store.FailureTask) store.FailureTask {
		if Consecutive(t, f) {
			t.Streak++
		} else {
			t.Streak, t.Debated, t.Escalated = 1, 0, false
		}
		t.Fingerprint, t.LastAt, t.LastHead, t.Files = f.Fingerprint, f.At, f.HeadSHA, f.Files
		*action = noAction
		switch {
		case t.Escalated:
		case t.Debated > 0 && t.Streak > t.Debated:
			t.Escalated, *action = true, escalateTask
		case t.Streak >= 2 && t.Debated == 0:
			t.Debated, *action = t.Streak, holdDebate
		}
		return t
	}
}
