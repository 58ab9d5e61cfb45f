package handlers

import (
	"context"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
)

// A force push after a debate: GitHub no longer knows the debated head and answers the compare
// API 404 (as the fake does for a commit it does not hold). The new head is debated whole and
// published at once, by one job that neither fails nor is retried.
func TestForcePushIsDebatedWhole(t *testing.T) {
	for _, tc := range []struct {
		name      string
		unrelated bool
	}{
		{"old head unknown", false},
		{"no common ancestor", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApp(t)
			a.post("pull_request", "d-1", fixture(t, "pull_request.opened.json", nil), secret)
			a.srv.Queue.Wait()
			if n := len(a.comments(render.DecisionMarker)); n != 1 {
				t.Fatalf("%d decision comments after the first debate, want 1", n)
			}
			// The force push rewrites the branch: the old head is gone, or (rebased onto an
			// unrelated history) shares no ancestor with the new one.
			a.gh.SetHead("acme/shop#7", "f0rce99")
			if tc.unrelated {
				a.gh.Commits["acme/shop@abc123"] = true
				a.gh.Unrelated["acme/shop@abc123...f0rce99"] = true
			}
			sync := fixture(t, "pull_request.synchronize.json", func(p map[string]any) {
				p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = "f0rce99"
			})
			a.post("pull_request", "d-2", sync, secret)
			a.srv.Queue.Wait()

			counts, err := a.srv.Store.Counts(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if counts[store.Done] != 2 || counts[store.Failed] != 0 {
				t.Errorf("jobs %v, want both debates done and none failed", counts)
			}
			// One compare (answered 404, not retried), then the whole change read again.
			compares, diffsAfter := 0, 0
			for _, c := range a.gh.Calls() {
				if strings.Contains(c.Path, "/compare/") {
					compares++
				}
				if compares > 0 && strings.Contains(c.Accept, "diff") {
					diffsAfter++
				}
			}
			if compares != 1 || diffsAfter == 0 {
				t.Errorf("compare calls = %d, whole-diff reads after it = %d; want one compare and the whole change read again", compares, diffsAfter)
			}
			tr, dec := a.comments(render.TranscriptMarker), a.comments(render.DecisionMarker)
			if len(tr) != 1 || len(dec) != 1 {
				t.Fatalf("%d transcript and %d decision comments, want the same two edited", len(tr), len(dec))
			}
			d := dec[0].Body
			if !strings.Contains(d, "head_sha: f0rce99") || !strings.Contains(d, "trigger: pull_request.synchronize") || !strings.Contains(d, "internal/export/users.go:30: use a parameterised query") {
				t.Errorf("the new head's decision is not a debate of the whole change:\n%s", d)
			}
			if strings.Contains(tr[0].Body, "Carried forward") {
				t.Error("a whole-change debate carried findings forward as if it were incremental")
			}
			runs := a.gh.Checks("acme/shop")
			if len(runs) != 2 || runs[1].HeadSHA != "f0rce99" || runs[1].Status != "completed" {
				t.Errorf("check runs = %+v, want the new head's concluded", runs)
			}
			a.checkCalls()
		})
	}
}
