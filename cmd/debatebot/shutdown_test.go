package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/store"
)

// TestDeliveryDuringDrainIs503 sends SIGTERM to `debatebot serve` while a model-backed debate
// runs: while the debate finishes, the listener stays open and a new delivery is answered 503
// with Retry-After (GitHub's delivery log shows a failure someone can redeliver) rather than a
// refused connection, and it is not stored; once the debate is done the process exits 0.
func TestDeliveryDuringDrainIs503(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh := githubtest.New(t)
	putExample(t, gh, 7, "abc123")
	llm := llmtest.New(t, nil)
	llm.SetLatency(200 * time.Millisecond)
	db := filepath.Join(t.TempDir(), "debatebot.db")
	p := newServe(t, bin, appEnv(t, gh, db, llm.BaseURL(), "DEBATEBOT_LOG_LEVEL=debug"))
	p.start()
	defer p.kill()
	if code := p.post("pull_request", "d-1", prOpened(t, "abc123")); code != http.StatusOK {
		t.Fatalf("delivery answered %d\n%s", code, p.logs.String())
	}
	// SIGTERM once the debate is asking the model.
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && len(llm.Requests()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if len(llm.Requests()) == 0 {
		t.Fatalf("the debate never asked the model:\n%s", p.logs.String())
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()

	// Deliver once the server says it is shutting down.
	deadline = time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(p.logs.String(), "Shutting down") {
		time.Sleep(5 * time.Millisecond)
	}
	resp, err := signedPost(p.addr, "pull_request", "d-drain", prOpened(t, "def456"))
	if err != nil {
		t.Fatalf("a delivery during the drain failed: %v\n%s", err, p.logs.String())
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a delivery during the drain answered %d, Retry-After %q; want 503 with Retry-After\n%s", resp.StatusCode, resp.Header.Get("Retry-After"), p.logs.String())
	}
	if h, err := http.Get("http://" + p.addr + "/healthz"); err != nil || h.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/healthz during the drain: %v %v; want 503", err, h)
	} else {
		h.Body.Close()
	}

	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("serve exited with %v after SIGTERM\n%s", err, p.logs.String())
		}
	case <-time.After(45 * time.Second):
		t.Fatalf("serve did not exit after SIGTERM\n%s", p.logs.String())
	}
	// Once it has exited, the port is closed: nothing is listening to take deliveries it cannot keep.
	if _, err := signedPost(p.addr, "pull_request", "d-after", prOpened(t, "def456")); err == nil {
		t.Error("a delivery after the exit was answered")
	}
	st, err := store.Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if ok, err := st.Delivered(context.Background(), "d-drain"); err != nil || ok {
		t.Errorf("the delivery refused during the drain was stored (%v, %v)", ok, err)
	}
	if ok, err := st.Delivered(context.Background(), "d-1"); err != nil || !ok {
		t.Errorf("the delivery before the drain was not kept (%v, %v)", ok, err)
	}
}

// signedRequest is a delivery to the server at addr, signed with the test's webhook secret.
func signedRequest(addr, event, delivery string, body []byte) *http.Request {
	m := hmac.New(sha256.New, []byte("s3cret"))
	m.Write(body)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/github/hook", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
	req.Header.Set("Content-Type", "application/json")
	return req
}

func signedPost(addr, event, delivery string, body []byte) (*http.Response, error) {
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(signedRequest(addr, event, delivery, body))
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode == 0 {
		return nil, errors.New("no status")
	}
	return resp, nil
}
