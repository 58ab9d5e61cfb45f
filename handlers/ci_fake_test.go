package handlers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/pull/pulltest"
	"github.com/debatebot/debatebot/store"
)

// roundTrip is an http.RoundTripper of a function: the log storage in the tests.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

var shopPR = review.PullRequest{Owner: "acme", Repo: "shop", Number: 7}

// A workflow run's failure is its latest attempt's first failed job, found across pages, and
// that job's log, fetched from where GitHub redirects without the installation's token; a log
// that cannot be fetched leaves the failed step's name as the message.
func TestReadWorkflowFailureThroughPlainFake(t *testing.T) {
	gh := newFakeGitHub()
	gh.PerPage = 2
	job := func(id int64, name, conclusion string, steps ...*github.TaskStep) *github.WorkflowJob {
		return &github.WorkflowJob{ID: github.Int64(id), Name: github.String(name), Conclusion: github.String(conclusion), Steps: steps}
	}
	step := func(name, conclusion string) *github.TaskStep {
		return &github.TaskStep{Name: github.String(name), Conclusion: github.String(conclusion)}
	}
	gh.Jobs = map[int64][]*github.WorkflowJob{5: {
		job(1, "lint", "success"), job(2, "build", "skipped"),
		job(3, "test", "failure", step("Set up Go", "success"), step("Run go test", "failure")),
		job(4, "race", "failure"),
	}}
	gh.LogURLs = map[int64]string{3: "https://logs.example/job/3?sig=x", 4: "https://logs.example/job/4"}
	var fetched []string
	r := &Runner{LogClient: &http.Client{Transport: roundTrip(func(req *http.Request) (*http.Response, error) {
		fetched = append(fetched, req.URL.Host+req.URL.Path)
		if req.Header.Get("Authorization") != "" {
			t.Errorf("the log storage was sent %q", req.Header.Get("Authorization"))
		}
		return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Body: io.NopCloser(strings.NewReader(goTestLog(12))), Request: req}, nil
	})}}
	run := &CIRun{Source: "workflow_run", ID: 5, Name: "CI", Conclusion: "failure"}

	d := r.readFailure(context.Background(), gh, shopPR, run)
	if want := dialectic.ErrorMessage(goTestLog(12)); d.message != want || !strings.Contains(d.message, "undefined: NewToken") {
		t.Errorf("message = %q, want %q", d.message, want)
	}
	if !slices.Equal(fetched, []string{"logs.example/job/3"}) {
		t.Errorf("logs fetched: %q, want the first failed job's only", fetched)
	}
	if !slices.Contains(d.files, "auth/auth.go") || len(d.lines) == 0 {
		t.Errorf("files %q, %d lines: want auth/auth.go and the log's relevant lines", d.files, len(d.lines))
	}

	gh.LogURLs[3] = "file:///etc/passwd"
	d = r.readFailure(context.Background(), gh, shopPR, run)
	if want := `step "Run go test" of job "test" failed`; d.message != want || len(fetched) != 1 {
		t.Errorf("a log at a file URL: message %q after %d fetches, want %q and no fetch", d.message, len(fetched), want)
	}

	gh.Fail = map[string]error{"WorkflowJobs": pulltest.Status(http.StatusInternalServerError, "boom")}
	if d = r.readFailure(context.Background(), gh, shopPR, run); d.message != "CI concluded failure" {
		t.Errorf("jobs unreadable: message %q, want the conclusion's", d.message)
	}
}

// A check run's failure is its first failure annotation (else its first annotation), with every
// annotation as a log line; a check without annotations is read from its output.
func TestReadCheckFailureThroughPlainFake(t *testing.T) {
	gh := newFakeGitHub()
	ann := func(path, level, msg string, line int) *github.CheckRunAnnotation {
		return &github.CheckRunAnnotation{Path: github.String(path), AnnotationLevel: github.String(level), Message: github.String(msg), StartLine: github.Int(line)}
	}
	gh.Annotations = map[int64][]*github.CheckRunAnnotation{
		8: {ann("README.md", "notice", "spelling", 1), ann("cart/cart.go", "failure", "  cart.go:40: nil map\n  write  ", 40)},
		9: {ann("a.go", "warning", "shadowed err", 3)},
	}
	r := &Runner{}
	d := r.readFailure(context.Background(), gh, shopPR, &CIRun{Source: "check_run", ID: 8, Name: "vet", Conclusion: "failure"})
	if d.message != "cart.go:40: nil map\n  write" || !slices.Equal(d.files, []string{"cart/cart.go"}) {
		t.Errorf("message %q, files %q: want the failure annotation's", d.message, d.files)
	}
	if want := "cart/cart.go:40: failure: cart.go:40: nil map write"; len(d.lines) != 2 || d.lines[1] != want {
		t.Errorf("lines = %q, want the notice's and %q", d.lines, want)
	}
	if d = r.readFailure(context.Background(), gh, shopPR, &CIRun{Source: "check_run", ID: 9, Name: "vet", Conclusion: "failure"}); d.message != "shadowed err" {
		t.Errorf("no failure annotation: message %q, want the first annotation's", d.message)
	}
	out := &CIRun{Source: "check_run", ID: 10, Name: "e2e", Conclusion: "timed_out", Title: "E2E", Summary: "Error: browser crashed at step 3"}
	if d = r.readFailure(context.Background(), gh, shopPR, out); !strings.Contains(d.message, "browser crashed") {
		t.Errorf("no annotations: message %q, want the output's error", d.message)
	}
}

// The pull requests of a run are the open ones whose head is the run's commit, in this
// repository; a commit GitHub no longer has is none, and any other failure is an error.
func TestHeadPullRequestsThroughPlainFake(t *testing.T) {
	head := strings.Repeat("a", 40)
	pr := func(n int, state, sha, base string) *github.PullRequest {
		return &github.PullRequest{Number: github.Int(n), State: github.String(state), Head: &github.PullRequestBranch{SHA: github.String(sha)},
			Base: &github.PullRequestBranch{Repo: &github.Repository{FullName: github.String(base)}}}
	}
	gh := newFakeGitHub()
	gh.PerPage = 2
	gh.WithCommit = map[string][]*github.PullRequest{head: {
		pr(1, "open", head, "acme/shop"), pr(2, "closed", head, "acme/shop"), pr(3, "open", strings.Repeat("b", 40), "acme/shop"),
		pr(4, "open", head, "fork/shop"), pr(5, "open", head, "ACME/shop"),
	}}
	r := &Runner{}
	numbers := func(job *Job) ([]int, error) {
		prs, err := r.headPullRequests(context.Background(), gh, job)
		var out []int
		for _, p := range prs {
			out = append(out, p.GetNumber())
		}
		return out, err
	}
	if got, err := numbers(&Job{PR: review.PullRequest{Owner: "acme", Repo: "shop"}, HeadSHA: head}); err != nil || !slices.Equal(got, []int{1, 5}) {
		t.Errorf("listed: %v, %v; want [1 5]", got, err)
	}
	gh.Meta = pr(7, "open", head, "acme/shop")
	if got, err := numbers(&Job{PR: shopPR, HeadSHA: head}); err != nil || !slices.Equal(got, []int{7}) {
		t.Errorf("named: %v, %v; want [7]", got, err)
	}
	if got, err := numbers(&Job{PR: shopPR, HeadSHA: strings.Repeat("c", 40)}); err != nil || got != nil {
		t.Errorf("named, of an older head: %v, %v; want none", got, err)
	}
	gh.Fail = map[string]error{"PullRequestsWithCommit": pulltest.Status(http.StatusUnprocessableEntity, "No commit found")}
	if got, err := numbers(&Job{PR: review.PullRequest{Owner: "acme", Repo: "shop"}, HeadSHA: head}); err != nil || got != nil {
		t.Errorf("a commit GitHub lost: %v, %v; want none and no error", got, err)
	}
	boom := pulltest.Status(http.StatusInternalServerError, "boom")
	gh.Fail["PullRequestsWithCommit"] = boom
	if _, err := numbers(&Job{PR: review.PullRequest{Owner: "acme", Repo: "shop"}, HeadSHA: head}); !errors.Is(err, boom) {
		t.Errorf("a server error: %v, want it wrapped", err)
	}
}

// The files changed between two failing heads include a renamed file's old name; heads GitHub
// cannot compare (a force push dropped one) are not known.
func TestChangedBetweenThroughPlainFake(t *testing.T) {
	gh := &pulltest.Fake{Comparisons: map[string]pulltest.Comparison{"h1...h2": {Status: "ahead", Files: []*github.CommitFile{
		{Filename: github.String("go.mod")},
		{Filename: github.String("ci/build.yml"), PreviousFilename: github.String(".github/workflows/build.yml")},
	}}}}
	ctx := context.Background()
	if files, known := changedBetween(ctx, gh, shopPR, "h1", "h2"); !known || !slices.Equal(files, []string{"go.mod", "ci/build.yml", ".github/workflows/build.yml"}) {
		t.Errorf("changed %q (known %v)", files, known)
	}
	if files, known := changedBetween(ctx, gh, shopPR, "h2", "h2"); !known || files != nil || gh.Count("Compare h2") != 0 {
		t.Errorf("the same head: %q (known %v), %d requests; want nothing, known, no request", files, known, gh.Count("Compare h2"))
	}
	if files, known := changedBetween(ctx, gh, shopPR, "gone", "h2"); known || files != nil {
		t.Errorf("a dropped head: %q, known %v; want unknown", files, known)
	}
}

// A push resets a failing task's count only when GitHub's comparison shows it changed CI's
// environment (a workflow, a manifest): a push to other files is the next attempt, and a push
// GitHub cannot compare resets nothing.
func TestPushResetsOnlyOnEnvironmentThroughPlainFake(t *testing.T) {
	r, _ := alertRunner(t)
	ctx := context.Background()
	f := &store.Failure{RunKey: "workflow_run/1/1@" + shopPR.String(), PR: shopPR.String(), TaskID: "t1", At: time.Now(), Fingerprint: "fp", HeadSHA: "h1"}
	var action failureAction
	if _, _, err := r.Store.RecordFailure(ctx, f, "CI on "+shopPR.String(), nextStreak(f, &action)); err != nil {
		t.Fatal(err)
	}
	gh := &pulltest.Fake{Comparisons: map[string]pulltest.Comparison{
		"h1...h2": {Status: "ahead", Files: []*github.CommitFile{{Filename: github.String("auth/auth.go")}}},
		"h2...h3": {Status: "ahead", Files: []*github.CommitFile{{Filename: github.String(".github/workflows/ci.yml")}}},
	}}
	streak := func() int {
		task, err := r.Store.FailureTaskOf(ctx, shopPR.String(), "t1")
		if err != nil {
			t.Fatal(err)
		}
		return task.Streak
	}
	for _, step := range []struct {
		before, head string
		streak       int
	}{
		{"", "h2", 1},     // no earlier head: nothing to compare
		{"h1", "h2", 1},   // the failing code changed: the next attempt
		{"gone", "h3", 1}, // a force push: unknown
		{"h2", "h3", 0},   // a workflow changed
	} {
		if err := r.pushed(ctx, gh, &Job{PR: shopPR, Before: step.before, HeadSHA: step.head}); err != nil {
			t.Fatal(err)
		}
		if got := streak(); got != step.streak {
			t.Errorf("push %s..%s: streak %d, want %d", step.before, step.head, got, step.streak)
		}
	}
	if n := gh.Count("Compare"); n != 3 {
		t.Errorf("%d comparisons, want 3 (none without an earlier head)", n)
	}
}
