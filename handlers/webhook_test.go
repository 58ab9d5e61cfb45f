package handlers

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/debatebot/debatebot/handlers/webhooktest"
	"github.com/rs/zerolog"
)

// send posts body to the webhook with the given headers (a nil value removes a header the
// harness would set) and returns the response, its body read.
func (a *app) send(event, delivery string, body []byte, headers map[string]*string) (*http.Response, string) {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.url+WebhookPath, bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", sign(body, secret))
	for k, v := range headers {
		if v == nil {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, *v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp, string(text)
}

func ptr(s string) *string { return &s }

// stored reports whether the store kept the delivery.
func (a *app) stored(id string) bool {
	a.t.Helper()
	ok, err := a.srv.Store.Delivered(context.Background(), id)
	if err != nil {
		a.t.Fatal(err)
	}
	return ok
}

// outcome reads debatebot_webhooks_total for the event and outcome from /metrics.
func (a *app) outcome(event, outcome string) string {
	a.t.Helper()
	resp, err := client.Get(a.url + "/metrics")
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	want := fmt.Sprintf("debatebot_webhooks_total{event=%q,outcome=%q} ", event, outcome)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), want); ok {
			return v
		}
	}
	return "0"
}

// rawPost writes a request with the given head and streams body until the server answers; it
// returns the status, how many body bytes were written before the answer, and how long the
// answer took.
func rawPost(t testing.TB, addr, head string, body io.Reader) (status int, written int64, took time.Duration) {
	t.Helper()
	a, err := webhooktest.Post(addr, head, body)
	if err != nil {
		t.Fatalf("after %d body bytes: %v", a.Written, err)
	}
	return a.Status, a.Written, a.Took
}

func hostOf(url string) string { return strings.TrimPrefix(url, "http://") }

// An unsigned 100 MB body is refused with 413 from its Content-Length, before it is read: the
// server answers after a few bytes and stores nothing.
func TestOversizedDeliveryRefusedBeforeItIsRead(t *testing.T) {
	a := newApp(t)
	head := "POST " + WebhookPath + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
		"X-GitHub-Event: pull_request\r\nX-GitHub-Delivery: big-1\r\nX-Hub-Signature-256: sha256=00\r\n" +
		"Content-Length: 100000000\r\n\r\n"
	status, written, _ := rawPost(t, hostOf(a.url), head, webhooktest.Zeros(100_000_000))
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("a declared 100 MB body answered %d, want 413", status)
	}
	if written > 32<<20 {
		t.Errorf("the client wrote %d bytes before the answer: the body was read", written)
	}
	if a.stored("big-1") {
		t.Error("a refused delivery was stored")
	}
	if got := a.outcome("pull_request", "Request Entity Too Large"); got != "1" {
		t.Errorf("413 outcomes = %s, want 1", got)
	}
}

// A chunked body, whose size is not declared, is cut at the cap: 413 once it passes 25 MiB.
func TestOversizedChunkedDeliveryRefusedAtTheCap(t *testing.T) {
	a := newApp(t)
	head := "POST " + WebhookPath + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
		"X-GitHub-Event: pull_request\r\nX-GitHub-Delivery: big-2\r\nX-Hub-Signature-256: sha256=00\r\n" +
		"Transfer-Encoding: chunked\r\n\r\n"
	status, written, _ := rawPost(t, hostOf(a.url), head, webhooktest.Chunked(webhooktest.Zeros(100_000_000)))
	if status != http.StatusRequestEntityTooLarge {
		t.Errorf("a chunked 100 MB body answered %d, want 413", status)
	}
	if written > 60<<20 {
		t.Errorf("the client wrote %d bytes before the answer: the body was read past the cap", written)
	}
	if a.stored("big-2") {
		t.Error("a refused delivery was stored")
	}
}

// GitHub's own largest payloads are still accepted: a signed delivery of exactly 25 MiB passes
// the guard and the dispatcher (as a push, an event the App does not handle, so that decoding 25
// MiB does not slow the suite down), one byte more is refused.
func TestDeliveryAtTheCapIsAccepted(t *testing.T) {
	a := newApp(t)
	body := fixture(t, "pull_request.opened.json", nil)
	pad := func(size int) []byte {
		// {"padding":"aaa…", …the fixture's fields…}
		head, tail := `{"padding":"`, `",`+string(body[1:])
		out := []byte(head + strings.Repeat("a", size-len(head)-len(tail)) + tail)
		if len(out) != size {
			t.Fatalf("padded to %d bytes, want %d", len(out), size)
		}
		return out
	}
	if code := a.post("push", "cap-1", pad(MaxWebhookBody+1), secret); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a signed body one byte over the cap answered %d, want 413", code)
	}
	if code := a.post("push", "cap-0", pad(MaxWebhookBody), secret); code != http.StatusAccepted {
		t.Errorf("a signed body of exactly 25 MiB answered %d, want 202", code)
	}
	if got := a.outcome("push", "Request Entity Too Large"); got != "1" {
		t.Errorf("413 outcomes = %s, want 1", got)
	}
}

// A signed delivery that is not the event it names is the sender's fault: 400, counted as a
// bad delivery, never stored, and the server goes on accepting good deliveries.
func TestSignedMalformedDeliveriesAreBadRequests(t *testing.T) {
	a := newApp(t)
	good := fixture(t, "pull_request.opened.json", nil)
	noRepo := fixture(t, "pull_request.opened.json", func(p map[string]any) { delete(p, "repository") })
	noInstallation := fixture(t, "issue_comment.created.on-pull-request.json", func(p map[string]any) { delete(p, "installation") })
	cases := []struct {
		name, event, delivery string
		body                  []byte
		headers               map[string]*string
		want                  int
	}{
		{"malformed JSON", "pull_request", "m-1", []byte(`{"action": "opened", "pull_request": {`), nil, 400},
		{"wrong JSON types", "issue_comment", "m-2", []byte(`{"action": "created", "issue": {"number": "seven"}}`), nil, 400},
		{"not an object", "issues", "m-3", []byte(`[1, 2, 3]`), nil, 400},
		{"empty body", "pull_request", "m-4", []byte{}, nil, 400},
		{"no repository", "pull_request", "m-5", noRepo, nil, 400},
		{"no installation", "issue_comment", "m-6", noInstallation, nil, 400},
		{"wrong Content-Type", "pull_request", "m-7", good, map[string]*string{"Content-Type": ptr("text/plain")}, 400},
		{"unparsable Content-Type", "pull_request", "m-8", good, map[string]*string{"Content-Type": ptr("application/json; charset")}, 400},
		{"no Content-Type", "pull_request", "m-9", good, map[string]*string{"Content-Type": nil}, 400},
		{"form without payload", "pull_request", "m-10", []byte("a=%zz"), map[string]*string{"Content-Type": ptr("application/x-www-form-urlencoded")}, 400},
		{"no event", "", "m-11", good, nil, 400},
		{"malformed delivery id", "pull_request", "m 12\t", good, nil, 400},
		{"wrong Content-Type, unsigned", "pull_request", "m-13", good, map[string]*string{"Content-Type": ptr("text/plain"), "X-Hub-Signature-256": nil}, 400},
		{"unsigned", "pull_request", "m-14", good, map[string]*string{"X-Hub-Signature-256": nil}, 401},
		{"badly signed", "pull_request", "m-15", good, map[string]*string{"X-Hub-Signature-256": ptr("sha256=zz")}, 401},
	}
	for _, c := range cases {
		resp, text := a.send(c.event, c.delivery, c.body, c.headers)
		if resp.StatusCode != c.want {
			t.Errorf("%s: answered %d (%s), want %d", c.name, resp.StatusCode, strings.TrimSpace(text), c.want)
		}
		if a.stored(c.delivery) {
			t.Errorf("%s: the delivery was stored", c.name)
		}
	}
	if got := a.outcome("pull_request", "Internal Server Error"); got != "0" {
		t.Errorf("%s deliveries were counted as server errors", got)
	}
	if got := a.outcome("pull_request", "Bad Request"); got != "9" {
		t.Errorf("pull_request bad deliveries counted %s, want 9", got)
	}
	if code := a.post("pull_request", "m-good", good, secret); code != http.StatusOK {
		t.Errorf("a good delivery after the bad ones answered %d", code)
	}
	a.srv.Queue.Wait()
	if runs := a.gh.Checks("acme/shop"); len(runs) != 1 {
		t.Errorf("check runs = %d, want one debate, of the good delivery", len(runs))
	}
	a.checkCalls()
}

// A delivery without X-GitHub-Delivery is refused and never stored under the empty id, so later
// deliveries without the header are refused the same way rather than dropped as duplicates,
// and a delivery with an id is debated.
func TestDeliveryWithoutIDIsRefused(t *testing.T) {
	a := newApp(t)
	body := fixture(t, "pull_request.opened.json", nil)
	for i := range 2 {
		resp, text := a.send("pull_request", "", body, map[string]*string{"X-GitHub-Delivery": nil})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(text, "X-GitHub-Delivery") {
			t.Errorf("delivery %d without an id answered %d %q, want 400 naming the header", i, resp.StatusCode, text)
		}
	}
	if a.stored("") {
		t.Error("a delivery was stored under the empty id")
	}
	a.srv.Queue.Wait()
	if runs := a.gh.Checks("acme/shop"); len(runs) != 0 {
		t.Errorf("check runs = %d for deliveries without an id", len(runs))
	}
	if code := a.post("pull_request", "with-id", body, secret); code != http.StatusOK {
		t.Errorf("a delivery with an id answered %d", code)
	}
	a.srv.Queue.Wait()
	if runs := a.gh.Checks("acme/shop"); len(runs) != 1 {
		t.Errorf("check runs = %d, want the one debate of the delivery with an id", len(runs))
	}
}

// While the server drains, deliveries are answered 503 with Retry-After and not stored, and
// /healthz says so.
func TestDrainingServerAnswers503(t *testing.T) {
	a := newApp(t)
	a.srv.Drain()
	resp, _ := a.send("pull_request", "drain-1", fixture(t, "pull_request.opened.json", nil), nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a delivery while draining answered %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if a.stored("drain-1") {
		t.Error("a delivery refused while draining was stored")
	}
	h, err := client.Get(a.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	h.Body.Close()
	if h.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/healthz while draining answered %d, want 503", h.StatusCode)
	}
}

// Bad deliveries are logged as such, at warn level; a server fault is an error.
func TestErrorCallbackLogs(t *testing.T) {
	for _, c := range []struct {
		err    error
		status int
		level  string
		msg    string
	}{
		{badDelivery(errors.New("failed to parse pull_request payload: unexpected EOF")), 400, "warn", "Refused a bad webhook delivery."},
		{fmt.Errorf("enqueue: %w", ErrUnavailable), 503, "warn", "it can be redelivered"},
		{errors.New("boom"), 500, "error", "Failed to handle a webhook delivery."},
	} {
		var logs bytes.Buffer
		r := httptest.NewRequest(http.MethodPost, WebhookPath, nil)
		r = r.WithContext(zerolog.New(&logs).WithContext(r.Context()))
		w := httptest.NewRecorder()
		errorCallback(nil)(w, r, c.err)
		if w.Code != c.status || !strings.Contains(logs.String(), `"level":"`+c.level+`"`) || !strings.Contains(logs.String(), c.msg) {
			t.Errorf("%v: answered %d, logged %s; want %d at %s with %q", c.err, w.Code, logs.String(), c.status, c.level, c.msg)
		}
	}
}

// Bodies that are declared large and then trickle in hold at most the webhook memory budget:
// two stalled 25 MiB bodies take it, a third large body waits and is answered 503 with
// Retry-After, a small signed delivery still goes ahead of it, and the budget comes back when
// the stalled clients go away.
func TestStalledBodiesHoldBoundedMemory(t *testing.T) {
	defer func(w time.Duration) { webhookMemoryWait = w }(webhookMemoryWait)
	webhookMemoryWait = 300 * time.Millisecond
	a := newApp(t)
	budget := a.srv.guard.budget
	free := func() int64 {
		budget.mu.Lock()
		defer budget.mu.Unlock()
		return budget.free
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if ok() {
				return
			}
		}
		t.Fatalf("%s: free budget %d of %d", what, free(), webhookMemory)
	}
	head := func(id string) string {
		return "POST " + WebhookPath + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
			"X-GitHub-Event: pull_request\r\nX-GitHub-Delivery: " + id + "\r\nX-Hub-Signature-256: sha256=00\r\n" +
			"Content-Length: " + fmt.Sprint(MaxWebhookBody) + "\r\n\r\n{"
	}
	var stalled []net.Conn
	for i := range 2 {
		c, err := net.Dial("tcp", hostOf(a.url))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, head(fmt.Sprint("stalled-", i))); err != nil {
			t.Fatal(err)
		}
		stalled = append(stalled, c)
	}
	waitFor("two stalled bodies hold their share", func() bool { return free() == webhookMemory-2*MaxWebhookBody })

	status, _, took := rawPost(t, hostOf(a.url), head("third"), webhooktest.Zeros(MaxWebhookBody-1))
	if status != http.StatusServiceUnavailable || took < webhookMemoryWait {
		t.Errorf("a third large body answered %d after %v, want 503 after waiting %v", status, took, webhookMemoryWait)
	}
	if code := a.post("pull_request", "small", fixture(t, "pull_request.opened.json", nil), secret); code != http.StatusOK {
		t.Errorf("a small signed delivery during the flood answered %d, want 200", code)
	}
	for _, c := range stalled {
		c.Close()
	}
	waitFor("the budget comes back", func() bool { return free() == webhookMemory })
}

// truncate cuts untrusted text (CI output, alert messages) before a character the cut would
// split, so that what it keeps is valid UTF-8; ASCII and bytes that are no UTF-8 are cut at n.
func TestTruncateKeepsUTF8(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc..."},
		{"ab€cd", 2, "ab..."},                // € is 3 bytes at 2..4: a cut at its start keeps "ab"
		{"ab€cd", 3, "ab..."},                // a cut after its first byte drops it whole
		{"ab€cd", 4, "ab..."},                // and after its second
		{"ab€cd", 5, "ab€..."},               // after it, it is kept
		{"a😀b", 4, "a..."},                   // a 4-byte character cut after its third byte
		{"ab\xff\xfe\xfdcd", 3, "ab\xff..."}, // no UTF-8: cut at n
		{"a\x80\x80\x80\x80b", 4, "a\x80\x80\x80..."},
	} {
		got := truncate(c.s, c.n)
		if got != c.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
		if utf8.ValidString(c.s) && !utf8.ValidString(got) {
			t.Errorf("truncate(%q, %d) = %q is no longer valid UTF-8", c.s, c.n, got)
		}
	}
}
