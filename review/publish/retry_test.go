package publish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
)

// A publishing step is repeated when it may pass next time (a network error, a server error),
// not when GitHub refused it (a 4xx comes back the same).
func TestRetryRepeatsOnlyWhatMayPass(t *testing.T) {
	status := func(code int) error {
		return fmt.Errorf("failed to edit comment 1 on acme/shop#7: %w",
			&github.ErrorResponse{Response: &http.Response{StatusCode: code, Request: &http.Request{Method: "PATCH"}}, Message: http.StatusText(code)})
	}
	for _, c := range []struct {
		name  string
		err   error
		calls int
	}{
		{"403 no permission", status(403), 1},
		{"404 not found", status(404), 1},
		{"422 validation", status(422), 1},
		{"primary rate limit", fmt.Errorf("post: %w", &github.RateLimitError{Response: &http.Response{StatusCode: 403}}), 1},
		{"secondary rate limit", &github.AbuseRateLimitError{Response: &http.Response{StatusCode: 403}}, 1},
		{"502 bad gateway", status(502), 3},
		{"connection reset", errors.New("read tcp 127.0.0.1:1234: connection reset by peer"), 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			err := Retry(context.Background(), 3, func() error { calls++; return c.err })
			if calls != c.calls || !errors.Is(err, c.err) {
				t.Errorf("%d calls, err %v; want %d calls and the step's error", calls, err, c.calls)
			}
		})
	}
	calls := 0
	if err := Retry(context.Background(), 3, func() error {
		if calls++; calls < 2 {
			return status(500)
		}
		return nil
	}); err != nil || calls != 2 {
		t.Errorf("a step that passes on its second try: %d calls, %v", calls, err)
	}
}
