package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryDelay(t *testing.T) {
	hdr := func(k, v string) *http.Response {
		return &http.Response{Header: http.Header{http.CanonicalHeaderKey(k): {v}}}
	}
	tests := map[string]struct {
		resp     *http.Response
		attempt  int
		min, max time.Duration
	}{
		"retry-after-ms":            {hdr("retry-after-ms", "250"), 0, 250 * time.Millisecond, 250 * time.Millisecond},
		"retry-after seconds":       {hdr("Retry-After", "2"), 0, 2 * time.Second, 2 * time.Second},
		"retry-after date":          {hdr("Retry-After", time.Now().Add(3*time.Second).UTC().Format(http.TimeFormat)), 0, time.Second, 3 * time.Second},
		"retry-after over a minute": {hdr("Retry-After", "3600"), 1, 750 * time.Millisecond, time.Second},
		"no answer, first retry":    {nil, 0, 375 * time.Millisecond, 500 * time.Millisecond},
		"backoff is capped":         {nil, 10, 6 * time.Second, 8 * time.Second},
	}
	for name, tc := range tests {
		if d := retryDelay(tc.resp, tc.attempt); d < tc.min || d > tc.max {
			t.Errorf("%s: delay %v, want %v..%v", name, d, tc.min, tc.max)
		}
	}
}
