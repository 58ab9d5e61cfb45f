package handlers

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/store"
)

// alertRunner is a runner over a store of its own whose enqueued jobs are kept.
func alertRunner(t *testing.T) (*Runner, func() []*Job) {
	t.Helper()
	st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "alerts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var mu sync.Mutex
	var queued []*Job
	r := &Runner{Store: st, Enqueue: func(_ context.Context, j *Job) (bool, string, error) {
		mu.Lock()
		defer mu.Unlock()
		queued = append(queued, j)
		return true, "", nil
	}}
	return r, func() []*Job { mu.Lock(); defer mu.Unlock(); return slices.Clone(queued) }
}

// alertJob is a default-branch code scanning alert of rule in acme/shop, closed as closed ("" while open).
func alertJob(number int, rule, closed string) *Job {
	return &Job{Kind: KindAlert, DeliveryID: "d-" + rule + "-" + closed + string(rune('0'+number)), Trigger: "code_scanning_alert.created", Installation: 1,
		PR: review.PullRequest{Owner: "acme", Repo: "shop"},
		Alert: &Alert{Alert: evidence.Alert{Kind: "code_scanning", Number: number, Tool: "CodeQL", Rule: rule, Severity: "high",
			Message: "Query built from user input", Path: "db/users.go", Line: 10 + number, URL: "https://github.com/acme/shop/security/code-scanning/1"},
			DefaultBranch: true, Closed: closed}}
}

// A private repository's default-branch alerts are filed in one issue per rule, opened for the
// rule's first alert and debated; the next alert of the rule is listed in it; each alert that
// ends is ticked off; the issue is closed with a comment when the last one ends, as completed
// when any was fixed. All of it through the small interface, with a plain fake of GitHub.
func TestAlertIssueLifecycleThroughPlainFake(t *testing.T) {
	gh := newFakeGitHub()
	gh.Trees = map[string]map[string]string{"": {config.RepoPath: "alerts: issue\n"}}
	gh.Repo = &github.Repository{Private: github.Bool(true), Visibility: github.String("private")}
	r, queued := alertRunner(t)
	ctx := context.Background()

	if err := r.alert(ctx, gh, alertJob(1, "go/sql-injection", "")); err != nil {
		t.Fatal(err)
	}
	open := gh.open()
	if len(open) != 1 {
		t.Fatalf("open issues %v, want one", open)
	}
	n := open[0]
	if body := gh.body(n); !strings.Contains(body, "- [ ] [`CodeQL` alert #1]") || !strings.Contains(body, "`go/sql-injection: Query built from user input`") {
		t.Errorf("issue body lacks the alert's line:\n%s", body)
	}
	if q := queued(); len(q) != 1 || q[0].Kind != KindDesign || q[0].PR.Number != n || q[0].Alert == nil {
		t.Errorf("enqueued %+v, want the issue's design debate", q)
	}

	// The rule's second alert goes in the same issue, and opens no debate.
	if err := r.alert(ctx, gh, alertJob(2, "go/sql-injection", "")); err != nil {
		t.Fatal(err)
	}
	if open := gh.open(); !slices.Equal(open, []int{n}) || !strings.Contains(gh.body(n), "- [ ] [`CodeQL` alert #2]") || len(queued()) != 1 {
		t.Errorf("second alert: open %v, %d jobs, body:\n%s", open, len(queued()), gh.body(n))
	}
	// A redelivery of it changes nothing.
	edits := gh.Edits[n]
	if err := r.alert(ctx, gh, alertJob(2, "go/sql-injection", "")); err != nil || gh.Edits[n] != edits {
		t.Errorf("a redelivery: %v, %d edits, want no edit", err, gh.Edits[n]-edits)
	}

	// Alert 2 is dismissed: ticked, the issue stays open for alert 1.
	if err := r.alert(ctx, gh, alertJob(2, "go/sql-injection", "dismissed")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gh.body(n), "- [x] [`CodeQL` alert #2](https://github.com/acme/shop/security/code-scanning/1) (dismissed)") || len(gh.open()) != 1 {
		t.Errorf("dismissed alert: open %v, body:\n%s", gh.open(), gh.body(n))
	}
	// Alert 1 is fixed: the last open one, so the issue is closed as completed, with a comment.
	if err := r.alert(ctx, gh, alertJob(1, "go/sql-injection", "fixed")); err != nil {
		t.Fatal(err)
	}
	if len(gh.open()) != 0 || gh.Issues[n].GetStateReason() != "completed" {
		t.Errorf("after the last alert ended: open %v, state reason %q; want closed as completed", gh.open(), gh.Issues[n].GetStateReason())
	}
	if c := gh.Comments[n]["<!-- debatebot:alert-code_scanning-1-closed -->"]; !strings.Contains(c, "the last of this issue's alerts still open") {
		t.Errorf("closing comment = %q", c)
	}

	// The rule's next alert opens a new issue: the closed one's group and slot were freed.
	if err := r.alert(ctx, gh, alertJob(3, "go/sql-injection", "")); err != nil {
		t.Fatal(err)
	}
	if open := gh.open(); len(open) != 1 || open[0] == n {
		t.Errorf("after the issue closed, a new alert: open %v, want a new issue", open)
	}
}

// An alert opens no issue in a repository that is not private (the delivery's visibility, else
// the API's, else unknown), nor past max_alert_issues; an issue closed by someone on GitHub gives
// its slot back.
func TestAlertIssueWithheldThroughPlainFake(t *testing.T) {
	ctx := context.Background()
	for _, repo := range []*github.Repository{{Private: github.Bool(false)}, {Visibility: github.String("internal"), Private: github.Bool(true)}, nil} {
		gh := newFakeGitHub()
		gh.Trees = map[string]map[string]string{"": {config.RepoPath: "alerts: issue\n"}}
		gh.Repo = repo
		r, _ := alertRunner(t)
		job := alertJob(1, "go/xss", "")
		if err := r.alert(ctx, gh, job); err != nil {
			t.Fatal(err)
		}
		if v, err := r.Store.Publication(ctx, "acme/shop#alerts-withheld", AlertMarker(job.Alert)); len(gh.Issues) != 0 || err != nil || v != alertWithheldPublic {
			t.Errorf("repository %+v: %d issues, withheld %d (%v); want none, withheld as public", repo, len(gh.Issues), v, err)
		}
	}

	gh := newFakeGitHub()
	gh.Trees = map[string]map[string]string{"": {config.RepoPath: "alerts: issue\nmax_alert_issues: 1\n"}}
	gh.Repo = &github.Repository{Visibility: github.String("private")}
	r, _ := alertRunner(t)
	if err := r.alert(ctx, gh, alertJob(1, "go/xss", "")); err != nil {
		t.Fatal(err)
	}
	capped := alertJob(2, "go/path-injection", "")
	if err := r.alert(ctx, gh, capped); err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Store.Publication(ctx, "acme/shop#alerts-withheld", AlertMarker(capped.Alert)); len(gh.Issues) != 1 || v != alertWithheldCap {
		t.Errorf("past the cap: %d issues, withheld %d; want one issue, withheld at the cap", len(gh.Issues), v)
	}
	// Someone closes the issue on GitHub: its slot is free again.
	for _, is := range gh.Issues {
		is.State = github.String("closed")
	}
	if err := r.alert(ctx, gh, alertJob(3, "go/path-injection", "")); err != nil {
		t.Fatal(err)
	}
	if open := gh.open(); len(open) != 1 || !strings.Contains(gh.body(open[0]), "go/path-injection") {
		t.Errorf("after the issue was closed on GitHub: open %v, want the new rule's issue", open)
	}
}
