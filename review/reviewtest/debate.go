package reviewtest

import (
	"context"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/toulmin"
)

// FixedClock is a clock that starts at 2026-01-02 03:04:05 UTC and moves on 100 ms at each
// reading, so that a debate's transcript is the same at every run.
func FixedClock() func() time.Time {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var n atomic.Int64
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * 100 * time.Millisecond) }
}

// RunDebate holds the offline debate of a change under the named protocol, with a fixed clock.
func RunDebate(t testing.TB, c *change.Change, protocol string) *toulmin.Transcript {
	t.Helper()
	p, err := toulmin.Named(protocol)
	if err != nil {
		t.Fatal(err)
	}
	d := &review.Debate{Change: c, Protocol: p, Clock: FixedClock()}
	tr, err := d.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

var voteRe = regexp.MustCompile(`\bvote: (\w+)`)

// AllApprove reports whether the decision record in text holds votes and every one is approve
// (not approve_with_changes).
func AllApprove(text string) bool {
	votes := voteRe.FindAllStringSubmatch(text, -1)
	for _, v := range votes {
		if v[1] != "approve" {
			return false
		}
	}
	return len(votes) > 0
}
