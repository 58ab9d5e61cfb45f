package evidence

import (
	"strings"
	"testing"
)

// Goroutines and pooled values, on code written for the test: a variable captured and assigned
// by a literal started twice, by two literals, per loop iteration, or read by its starter before
// anything waits (found), and not when each goroutine has its own variable, the starter waits
// (Wait, a receive) or the literal locks; an unbuffered channel whose sender is abandoned by a
// timeout or an early return (found), and not when it is buffered, always received from,
// sent on in a select, or handed to a helper; a pooled buffer's bytes returned past a deferred
// put or used after the put (found), and not a copy, a string, or a put after the last use;
// time.After made on every wakeup of a for or goto loop (found), and not when the other case
// leaves the loop or the timer is made once.
func TestGoroutineAndPoolAnalyses(t *testing.T) {
	got, by := analyzeOwn(t, "testdata/goconc", "race/race.go", "leak/leak.go", "pool/pool.go", "timer/timer.go")
	sameFindings(t, got, wantMarkers(t, "testdata/goconc"))
	words := map[string]string{
		RuleCapturedRace + " race/race.go:14":        "`err` is captured by the goroutine started at line 17 and assigned here, while the go statement at line 18 starts the same literal again",
		RuleCapturedRace + " race/race.go:38":        "the goroutine started at line 40 assigns it too (line 41)",
		RuleCapturedRace + " race/race.go:51":        "runs on every iteration of a loop",
		RuleCapturedRace + " race/race.go:72":        "uses the variable at line 74",
		RuleGoroutineLeak + " leak/leak.go:11":       "the goroutine started at line 12 sends on it (line 13), but the path that returns at line 19 no longer receives from it",
		RulePoolUseAfterPut + " pool/pool.go:26":     "returns memory of the pooled value `b`, which the deferred call at line 22 puts back",
		RulePoolUseAfterPut + " pool/pool.go:54":     "after line 53 put it back",
		RuleTimerPerIteration + " timer/timer.go:12": "time.After makes a new timer on every iteration of the loop that waits on it in the select at line 9",
	}
	for k, w := range words {
		if f := by[k]; !strings.Contains(f.Message, w) {
			t.Errorf("%s: message %q, want it to contain %q", k, f.Message, w)
		}
	}
}
