package handlers

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/githubtest"
)

// FuzzWebhookDecoding posts any body, correctly signed, as each event the App handles, through
// the whole webhook route (the guard, go-githubapp's dispatcher, the handlers' decoding and the
// queue over a real store). Whatever the body, the answer is 2xx or 4xx, never a 5xx or a panic:
// a delivery GitHub signed but the App cannot read is the sender's fault. The workers are not
// started, so accepted deliveries stay queued rather than being debated.
//
//	go test ./handlers -run '^$' -fuzz FuzzWebhookDecoding -fuzztime 2m
func FuzzWebhookDecoding(f *testing.F) {
	events := []string{"pull_request", "issue_comment", "issues", "ping", "push"}
	for i, name := range []string{"pull_request.opened.json", "pull_request.closed.json", "issue_comment.created.on-pull-request.json", "issues.labeled.json"} {
		body := fixture(f, name, nil)
		f.Add(uint8(i%3), body, false)
		f.Add(uint8(i%3), body, true)
	}
	f.Add(uint8(0), []byte(`{"action":"opened","pull_request":{"number":7},"repository":{"name":"shop","owner":{"login":"acme"}},"installation":{"id":1}}`), false)
	f.Add(uint8(1), []byte(`{"action":"created","comment":{"body":"/debate extended"},"issue":{"number":1,"pull_request":null},"repository":{"name":"a","owner":{"login":"b"}},"installation":{"id":1}}`), false)
	f.Add(uint8(2), []byte(`{"action":"labeled","label":{"name":"needs-debate"}}`), false)
	f.Add(uint8(0), []byte(`{"action":`), false)
	f.Add(uint8(3), []byte(`{}`), false)
	f.Add(uint8(1), []byte(`payload=%7B%7D`), true)

	gh := githubtest.New(f)
	cfg := &config.Server{Workers: 1, DatabaseURL: "sqlite::memory:"}
	cfg.GitHub.V3APIURL = gh.URL + "/"
	cfg.GitHub.V4APIURL = gh.URL + "/graphql"
	cfg.GitHub.App.IntegrationID = 1
	cfg.GitHub.App.WebhookSecret = secret
	cfg.GitHub.App.PrivateKey = testKey(f)
	s, err := New(context.Background(), cfg, testLogger(), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	n := 0
	f.Fuzz(func(t *testing.T, event uint8, body []byte, form bool) {
		n++
		r := httptest.NewRequest(http.MethodPost, WebhookPath, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		if form {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		r.Header.Set("X-GitHub-Event", events[int(event)%len(events)])
		r.Header.Set("X-GitHub-Delivery", fmt.Sprintf("fuzz-%d", n))
		r.Header.Set("X-Hub-Signature-256", sign(body, secret))
		w := httptest.NewRecorder()
		s.Handler.ServeHTTP(w, r)
		if w.Code >= 500 || w.Code < 200 || w.Code == http.StatusUnauthorized {
			t.Fatalf("a signed %s delivery answered %d: %s\nbody: %q", events[int(event)%len(events)], w.Code, w.Body.String(), body)
		}
	})
}
