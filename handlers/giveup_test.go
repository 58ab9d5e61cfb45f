package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/store"
)

// A review job that fails every time it is tried ends failed after its attempts, and the pull
// request is told once that it could not be reviewed and why, in words for its readers, on the
// one cannot-debate comment; the check run the debate started is the one concluded as failed.
// The same event delivered again is no second job and no second answer.
func TestJobFailedForGoodIsAnsweredOnce(t *testing.T) {
	a := newAppClocked(t, nil, func(o *QueueOptions) { o.MaxAttempts = 2 }, false)
	// GitHub refuses the inline review each time: the debate is decided, its publication fails.
	a.gh.Deny(func(c githubtest.Call) bool {
		return c.Method == http.MethodPost && c.Path == "/repos/acme/shop/pulls/7/reviews"
	})
	body := fixture(t, "pull_request.opened.json", nil)
	if code := a.post("pull_request", "d-1", body, secret); code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	a.srv.Queue.Wait()
	a.post("pull_request", "d-1", body, secret)
	a.post("pull_request", "d-2", body, secret)
	a.srv.Queue.Wait()
	j, err := a.srv.Store.Job(t.Context(), 1)
	if err != nil || j.State != store.Failed || j.Attempts != 2 {
		t.Fatalf("job = %+v (%v); want failed after 2 attempts", j, err)
	}
	answers := a.comments(pull.CannotDebateMarker)
	if len(answers) != 1 {
		t.Fatalf("%d answers on the pull request, want one", len(answers))
	}
	want := "**debatebot could not review this pull request**: GitHub answered a request with HTTP 403 each time it was tried."
	if !strings.Contains(answers[0].Body, want) || strings.Contains(answers[0].Body, "http://") {
		t.Errorf("answer:\n%s\nwant it to say %q, without addresses", answers[0].Body, want)
	}
	runs := a.gh.Checks("acme/shop")
	if len(runs) != 1 || runs[0].Conclusion != "failure" || !strings.Contains(runs[0].Summary, "HTTP 403") {
		t.Errorf("check runs = %+v; want the debate's one, concluded as failed with the reason", runs)
	}
	a.checkCalls()
}

// What the pull request is told never carries the server's paths or addresses.
func TestNotReviewedReasonIsForUsers(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&AbandonedError{Times: 5}, "the worker stopped 5 times while reviewing this pull request (the process ended each time, and something in the change may be what ends it), so it is not tried again"},
		{fmt.Errorf("evidence: %w", errors.Join(errors.New("x"), &AbandonedError{Times: 2})), "the worker stopped 2 times while reviewing this pull request"},
		{fmt.Errorf("phase: %w", context.DeadlineExceeded), "it ran out of time each time it was tried"},
		{errors.New(`failed to read /tmp/debatebot-work/12-ab/debatebot-trees-9/head/go.mod: open "/var/lib/x": denied, from http://10.0.0.5:8080/v1/chat?key=1`),
			"it failed each time it was tried: failed to read (a path) open \"(a path)\": denied, from (an address)"},
	} {
		got := notReviewedReason(tc.err, "this pull request")
		if !strings.HasPrefix(got, tc.want) || strings.Contains(got, "/tmp") || strings.Contains(got, "10.0.0.5") {
			t.Errorf("reason for %v = %q, want %q", tc.err, got, tc.want)
		}
	}
}
