package publish

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/debatebot/debatebot/review/evidence/redact"
)

// The transport of the App's GitHub client, in the order a request crosses it: the publisher's
// writes are redacted (redactingTransport), then every request is retried on GitHub's transient
// failures and counted (retryTransport, the client middleware of the App and of the Action).

// redactingClient returns a client for the same GitHub API as gh whose every write (comments,
// check runs and their annotations, reviews, labels: any POST, PATCH or PUT with a JSON body) has
// each of its strings redacted by Redact before it is sent. The publisher writes through it, so
// that no text it posts, whoever wrote it (the change, an analyzer, a model), carries a secret.
func redactingClient(gh *github.Client) *github.Client {
	if gh == nil {
		return nil
	}
	hc := gh.Client()
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = redactingTransport{base}
	c := github.NewClient(hc)
	c.BaseURL, c.UploadURL, c.UserAgent = gh.BaseURL, gh.UploadURL, gh.UserAgent
	return c
}

type redactingTransport struct{ base http.RoundTripper }

func (t redactingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodPost, http.MethodPatch, http.MethodPut:
	default:
		return t.base.RoundTrip(req)
	}
	if req.Body == nil || req.Body == http.NoBody || !strings.Contains(req.Header.Get("Content-Type"), "json") {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("failed to read the body of %s %s to redact it: %w", req.Method, req.URL.Path, err)
	}
	red, err := RedactJSON(body)
	if err != nil {
		// Not JSON after all: redact it as text.
		red = []byte(redact.Redact(string(body)))
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(red))
	out.ContentLength = int64(len(red))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(red)), nil }
	return t.base.RoundTrip(out)
}

// retryTransport retries GitHub's transient failures: 5xx for requests that are safe to repeat
// (GET, PUT, PATCH, DELETE), and secondary rate limits (403 or 429 with Retry-After) for every
// method, since GitHub did not process those. It waits Retry-After when given (up to maxWait),
// otherwise 250 ms doubling, at most attempts times in all.
type retryTransport struct {
	next     http.RoundTripper
	attempts int
	maxWait  time.Duration
	// requests and seconds count the requests (the App's metrics); nil counts nothing.
	requests *prometheus.CounterVec
	seconds  prometheus.Histogram
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
	}
	delay := RetryBaseDelay
	for attempt := 1; ; attempt++ {
		if body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		start := time.Now()
		resp, err := t.next.RoundTrip(req)
		if t.requests != nil {
			code := "error"
			if resp != nil {
				code = strconv.Itoa(resp.StatusCode)
			}
			t.requests.WithLabelValues(req.Method, code).Inc()
			t.seconds.Observe(time.Since(start).Seconds())
		}
		if err != nil || attempt >= t.attempts || !t.retryable(req, resp) {
			return resp, err
		}
		wait := delay
		if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && ra >= 0 {
			wait = time.Duration(ra) * time.Second
		}
		if wait > t.maxWait {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(wait):
		}
		delay *= 2
	}
}

func (t *retryTransport) retryable(req *http.Request, resp *http.Response) bool {
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return true
	case resp.StatusCode == http.StatusForbidden:
		return resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") == "0"
	case resp.StatusCode >= 500:
		return req.Method != http.MethodPost || strings.HasSuffix(req.URL.Path, "/access_tokens")
	}
	return false
}

// RetryBaseDelay is the first wait between tries; tests shorten it.
var RetryBaseDelay = 250 * time.Millisecond

// RetryMiddleware is the client middleware (go-githubapp's, or the Action's client's) that adds
// retries and, when requests and seconds are given, request metrics.
func RetryMiddleware(requests *prometheus.CounterVec, seconds prometheus.Histogram) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return &retryTransport{next: next, attempts: 4, maxWait: 10 * time.Second, requests: requests, seconds: seconds}
	}
}
