package handlers

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/store/storetest"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/render"
)

const secret = "webhook-secret"

// GitHub's transient failures are retried quickly in tests.
func init() { publish.RetryBaseDelay = time.Millisecond }

type app struct {
	t      testing.TB
	gh     *githubtest.Server
	srv    *Server
	url    string
	cancel context.CancelFunc
	// served records how long the server took to answer each request, as it sees it.
	mu     sync.Mutex
	served []time.Duration
	// skew is how far ahead of the real time the runner's clock runs (newAppClocked).
	skew atomic.Int64
}

// appKey is the App's private key of every test, generated once per test run: a 2048-bit key
// takes a noticeable fraction of a second under the race detector, and the fake GitHub accepts
// any key.
var appKey = sync.OnceValues(func() (string, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})), nil
})

func testKey(t testing.TB) string {
	t.Helper()
	k, err := appKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// newApp starts the whole App against a fake GitHub that holds the example pull request acme/shop#7.
func newApp(t testing.TB) *app { return newAppWith(t, nil) }

func newAppWith(t testing.TB, edit func(*config.Server)) *app {
	return newAppClocked(t, edit, nil, false)
}

// newAppClocked is newAppWith with the queue's options edited by qo and, when clocked, the
// runner's clock running app.skew ahead of the real time (set before any worker starts).
func newAppClocked(t testing.TB, edit func(*config.Server), qo func(*QueueOptions), clocked bool) *app {
	t.Helper()
	gh := githubtest.New(t)
	diff, err := os.ReadFile(filepath.Join("..", "examples", "admin-export.diff"))
	if err != nil {
		t.Fatal(err)
	}
	gh.PRs["acme/shop#7"] = &githubtest.PR{Title: "Add admin user export", BaseRef: "main", HeadRef: "export", HeadSHA: "abc123", Diff: string(diff)}
	gh.Permissions["acme/shop:alice"] = "write"
	gh.Permissions["acme/shop:mallory"] = "read"
	cfg := &config.Server{Workers: 2, DatabaseURL: "sqlite:" + storetest.SQLite(t)}
	cfg.GitHub.WebURL = gh.URL
	cfg.GitHub.V3APIURL = gh.URL + "/"
	cfg.GitHub.V4APIURL = gh.URL + "/graphql"
	cfg.GitHub.App.IntegrationID = 1
	cfg.GitHub.App.WebhookSecret = secret
	cfg.GitHub.App.PrivateKey = testKey(t)
	if edit != nil {
		edit(cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(ctx, cfg, testLogger(), func(o *QueueOptions) {
		// A lease long enough that a loaded machine (-race on 2 cores) never sees a live worker as dead.
		// A delivery wakes a worker at once (Enqueue); the poll only finds retries that came due, so
		// 100ms keeps them prompt without idle workers querying the store 200 times a second each
		// (at 5ms, the polls were a third of the package's CPU under the race detector).
		o.Poll, o.Heartbeat, o.Lease, o.Backoff = 100*time.Millisecond, 50*time.Millisecond, 10*time.Second, 10*time.Millisecond
		if qo != nil {
			qo(o)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	a := &app{t: t, gh: gh, srv: s, cancel: cancel}
	if clocked {
		s.Runner.Clock = func() time.Time { return time.Now().Add(time.Duration(a.skew.Load())) }
	}
	s.Start(ctx)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.Handler.ServeHTTP(w, r)
		a.mu.Lock()
		a.served = append(a.served, time.Since(start))
		a.mu.Unlock()
	}))
	t.Cleanup(func() { hs.Close(); cancel(); s.Queue.Stop(); s.Close() })
	a.url = hs.URL
	return a
}

// fixture loads a real webhook payload (testdata/webhooks, from ../shared/fixtures) and points
// it at acme/shop#7.
func fixture(t testing.TB, name string, edit func(map[string]any)) []byte {
	t.Helper()
	p := githubtest.Payload(t, filepath.Join("testdata", "webhooks", name))
	p["installation"] = map[string]any{"id": 42}
	p["sender"] = map[string]any{"login": "alice", "type": "User"}
	if pr, ok := p["pull_request"].(map[string]any); ok {
		pr["number"] = 7
		pr["head"].(map[string]any)["sha"] = "abc123"
		pr["draft"] = false
	}
	if is, ok := p["issue"].(map[string]any); ok {
		is["number"] = 7
	}
	if edit != nil {
		edit(p)
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var commentIDs atomic.Int64

// commentFixture is a new comment by user on acme/shop#7: each call is another comment, with its
// own id.
func commentFixture(t testing.TB, user, body string) []byte {
	id := 5000 + commentIDs.Add(1)
	return fixture(t, "issue_comment.created.on-pull-request.json", func(p map[string]any) {
		p["sender"] = map[string]any{"login": user, "type": "User"}
		c := p["comment"].(map[string]any)
		c["id"], c["body"] = id, body
	})
}

// client keeps connections alive, as GitHub's delivery workers do between deliveries.
var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func sign(body []byte, key string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func (a *app) post(event, delivery string, body []byte, key string) int {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.url+WebhookPath, bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", sign(body, key))
	resp, err := client.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (a *app) comments(prefix string) []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range a.gh.CommentsOn("acme/shop#7") {
		if strings.HasPrefix(c.Body, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func (a *app) checkCalls() {
	a.t.Helper()
	for _, c := range a.gh.Unknown() {
		a.t.Errorf("the bot made a request that is no GitHub operation: %s %s", c.Method, c.Path)
	}
}

func TestPullRequestOpenedIsDebatedAndPublished(t *testing.T) {
	a := newApp(t)
	if code := a.post("pull_request", "d-1", fixture(t, "pull_request.opened.json", nil), secret); code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("delivery answered %d", code)
	}
	a.srv.Queue.Wait()
	tr, dec := a.comments(render.TranscriptMarker), a.comments(render.DecisionMarker)
	if len(tr) != 1 || len(dec) != 1 {
		t.Fatalf("transcript comments %d, decision comments %d; want one each", len(tr), len(dec))
	}
	if !strings.Contains(tr[0].Body, "## debatebot: Request changes\n\n**Consensus 0.75** (consensus) · convergence 0.50 · protocol standard · Add admin user export") || !strings.Contains(dec[0].Body, "decision: request_changes") ||
		!strings.Contains(dec[0].Body, "repository: acme/shop") || !strings.Contains(dec[0].Body, "trigger: pull_request.opened") {
		t.Errorf("published comments do not hold the debate:\n%s\n%s", tr[0].Body[:300], dec[0].Body)
	}
	runs := a.gh.Checks("acme/shop")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "action_required" || runs[0].HeadSHA != "abc123" {
		t.Errorf("check runs = %+v", runs)
	}
	// A new push: the same comments are edited, a new check run concludes on the new head.
	a.gh.SetHead("acme/shop#7", "def456")
	sync := fixture(t, "pull_request.synchronize.json", func(p map[string]any) { p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = "def456" })
	a.post("pull_request", "d-2", sync, secret)
	a.srv.Queue.Wait()
	tr2, dec2 := a.comments(render.TranscriptMarker), a.comments(render.DecisionMarker)
	if len(tr2) != 1 || len(dec2) != 1 || tr2[0].ID != tr[0].ID || !strings.Contains(dec2[0].Body, "trigger: pull_request.synchronize") {
		t.Errorf("after a push: %d transcript and %d decision comments; want the same two edited", len(tr2), len(dec2))
	}
	if runs := a.gh.Checks("acme/shop"); len(runs) != 2 || runs[1].HeadSHA != "def456" {
		t.Errorf("check runs after the push = %+v", runs)
	}
	a.checkCalls()
}

func TestRedeliveryStartsOneDebate(t *testing.T) {
	a := newApp(t)
	body := fixture(t, "pull_request.opened.json", nil)
	for i := 0; i < 3; i++ {
		a.post("pull_request", "same-delivery", body, secret)
	}
	a.srv.Queue.Wait()
	if runs := a.gh.Checks("acme/shop"); len(runs) != 1 {
		t.Errorf("check runs = %d, want one debate for one delivery", len(runs))
	}
}

func TestBadSignatureIsRefused(t *testing.T) {
	a := newApp(t)
	code := a.post("pull_request", "d-bad", fixture(t, "pull_request.opened.json", nil), "wrong-secret")
	a.srv.Queue.Wait()
	if code != http.StatusUnauthorized {
		t.Errorf("bad signature answered %d, want 401", code)
	}
	for _, c := range a.gh.Calls() {
		if c.Method != http.MethodGet || !strings.HasPrefix(c.Path, "/app") {
			t.Errorf("a refused delivery reached GitHub: %s %s", c.Method, c.Path)
		}
	}
}

func TestCommandFromReadOnlyUserIsRefused(t *testing.T) {
	a := newApp(t)
	body := fixture(t, "issue_comment.created.on-pull-request.json", func(p map[string]any) {
		p["sender"] = map[string]any{"login": "mallory", "type": "User"}
		p["comment"].(map[string]any)["body"] = "/debate extended"
	})
	a.post("issue_comment", "d-cmd", body, secret)
	a.srv.Queue.Wait()
	all := a.gh.CommentsOn("acme/shop#7")
	if len(all) != 1 || !strings.Contains(all[0].Body, "@mallory: debatebot commands need write permission") {
		t.Fatalf("comments = %+v, want one refusal", all)
	}
	if len(a.gh.Checks("acme/shop")) != 0 {
		t.Error("a refused command started a debate")
	}
	a.checkCalls()
}

func TestCommandStartsDebateWithProtocol(t *testing.T) {
	a := newApp(t)
	body := fixture(t, "issue_comment.created.on-pull-request.json", func(p map[string]any) {
		p["comment"].(map[string]any)["body"] = "/debate fast-track\nplease"
	})
	a.post("issue_comment", "d-cmd2", body, secret)
	a.srv.Queue.Wait()
	dec := a.comments(render.DecisionMarker)
	if len(dec) != 1 || !strings.Contains(dec[0].Body, "protocol: fast-track") || !strings.Contains(dec[0].Body, "trigger: issue_comment.created") {
		t.Fatalf("decision = %+v", dec)
	}
	a.checkCalls()
}

func TestBrokenConfigGetsOneComment(t *testing.T) {
	a := newApp(t)
	a.gh.Contents["acme/shop@main:.github/debatebot.yml"] = "protocol: standard\nthreshold: 0.5\n"
	a.post("pull_request", "d-c1", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	a.post("pull_request", "d-c2", fixture(t, "pull_request.reopened.json", nil), secret)
	a.srv.Queue.Wait()
	errs := a.comments(pull.ConfigErrorMarker)
	if len(errs) != 1 || !strings.Contains(errs[0].Body, `line 2: unknown key "threshold"`) {
		t.Fatalf("config error comments = %+v, want one naming the key and line", errs)
	}
	if len(a.comments(render.TranscriptMarker)) != 0 || len(a.gh.Checks("acme/shop")) != 0 {
		t.Error("a debate ran under a broken configuration")
	}
	a.checkCalls()
}

func TestOwnCommentsAreIgnored(t *testing.T) {
	// Even when every bot is allowed, the App never answers itself.
	a := newAppWith(t, func(cfg *config.Server) { cfg.AllowedBots = []string{"debatebot[bot]", "renovate[bot]"} })
	body := fixture(t, "issue_comment.created.on-pull-request.json", func(p map[string]any) {
		p["sender"] = map[string]any{"login": "debatebot[bot]", "type": "Bot"}
		p["comment"].(map[string]any)["body"] = "/debate"
	})
	a.post("issue_comment", "d-bot", body, secret)
	a.srv.Queue.Wait()
	if n := len(a.gh.CommentsOn("acme/shop#7")); n != 0 {
		t.Errorf("the bot answered its own comment (%d comments)", n)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	a := newApp(t)
	a.post("pull_request", "d-m", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	for path, want := range map[string]string{"/healthz": "ok", "/metrics": `debatebot_debates_total{decision="request_changes",protocol="standard"} 1`, "/metrics#store": "debatebot_recorded_decisions{decision=\"request_changes\"} 1"} {
		path = strings.TrimSuffix(path, "#store")
		resp, err := http.Get(a.url + path)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(b.String(), want) {
			t.Errorf("GET %s = %d, lacks %q", path, resp.StatusCode, want)
		}
	}
	_ = fmt.Sprint()
}

func TestGitHubFailuresAreRetried(t *testing.T) {
	a := newApp(t)
	// A 502 on the diff (a GET: retried by the transport), a secondary rate limit on the check
	// run, and a 502 on creating the transcript comment (a POST: retried by the job after listing
	// again, so that it is not posted twice).
	a.gh.Fail("GET", "/repos/acme/shop/pulls/7", 502, 1)
	a.gh.Fail("POST", "/repos/acme/shop/check-runs", 403, 1)
	a.gh.Fail("PATCH", "/repos/acme/shop/issues/comments/", 502, 2)
	a.post("pull_request", "d-f", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	if len(a.comments(render.TranscriptMarker)) != 1 || len(a.comments(render.DecisionMarker)) != 1 {
		t.Fatalf("after transient failures: %d transcript, %d decision comments; want one each",
			len(a.comments(render.TranscriptMarker)), len(a.comments(render.DecisionMarker)))
	}
	if runs := a.gh.Checks("acme/shop"); len(runs) != 1 || runs[0].Conclusion == "" {
		t.Errorf("check runs = %+v, want one concluded after the rate limit", runs)
	}
	a.checkCalls()
}

func TestTranscriptShowsProgressOncePerPhase(t *testing.T) {
	a := newApp(t)
	a.post("pull_request", "d-p", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	creates, edits := 0, 0
	id := a.comments(render.TranscriptMarker)[0].ID
	for _, c := range a.gh.Calls() {
		switch {
		case c.Method == "POST" && strings.HasSuffix(c.Path, "/issues/7/comments") && strings.Contains(c.Body, "debatebot:transcript"):
			creates++
		case c.Method == "PATCH" && strings.HasSuffix(c.Path, fmt.Sprintf("/comments/%d", id)):
			edits++
		}
	}
	// Eight phases (seed 004's seven and the challengers' responses): the comment is created
	// when the first starts, edited as each of the next six starts (the decision phase is not
	// shown), and once more with the whole transcript.
	if creates != 1 || edits != 7 {
		t.Errorf("transcript created %d times and edited %d times, want 1 and 7", creates, edits)
	}
}

func TestHumanReviewWithNoDebateRunning(t *testing.T) {
	a := newApp(t)
	body := fixture(t, "issue_comment.created.on-pull-request.json", func(p map[string]any) {
		p["comment"].(map[string]any)["body"] = "/human-review"
	})
	a.post("issue_comment", "d-h", body, secret)
	a.srv.Queue.Wait()
	all := a.gh.CommentsOn("acme/shop#7")
	if len(all) != 1 || !strings.Contains(all[0].Body, "@alice asked for human review, and a human decides") {
		t.Errorf("comments = %+v", all)
	}
}

func TestIssueLabeledStartsDesignDebate(t *testing.T) {
	a := newApp(t)
	body := fixture(t, "issues.labeled.json", func(p map[string]any) {
		is := p["issue"].(map[string]any)
		is["title"], is["body"] = "Cache sessions in Redis?", "Sessions are slow to load from PostgreSQL."
		delete(is, "pull_request")
		p["label"] = map[string]any{"name": "needs-debate"}
	})
	a.post("issues", "d-i", body, secret)
	a.srv.Queue.Wait()
	dec := a.comments(render.DecisionMarker)
	// Seed 002: the question is answered by a synthesis document, not an escalation or a vote.
	if len(dec) != 1 || strings.Contains(dec[0].Body, "decision: escalate") || !strings.Contains(dec[0].Body, "trigger: issues.labeled") ||
		!strings.Contains(dec[0].Body, "## debatebot recommendation (confidence Medium)") || !strings.Contains(dec[0].Body, "synthesis:") {
		t.Fatalf("design debate decision = %+v", dec)
	}
	tr := a.comments(render.TranscriptMarker)
	if len(tr) != 1 || !strings.Contains(tr[0].Body, "<details><summary>Synthesis</summary>") || !strings.Contains(tr[0].Body, "### Dissenting view") ||
		!strings.Contains(tr[0].Body, "**Question:** Cache sessions in Redis?") {
		t.Fatalf("design debate transcript = %+v", tr)
	}
	if len(a.gh.Checks("acme/shop")) != 0 {
		t.Error("an issue got a check run")
	}
	a.checkCalls()
}

func TestTriggersFromConfig(t *testing.T) {
	a := newApp(t)
	a.gh.Contents["acme/shop@main:.github/debatebot.yml"] = "triggers:\n  pull_request: [opened]\n"
	a.post("pull_request", "d-s", fixture(t, "pull_request.synchronize.json", nil), secret)
	a.srv.Queue.Wait() // the fake's pull request is not changed under a running job
	a.gh.PRs["acme/shop#7"].Draft = true
	a.post("pull_request", "d-o", fixture(t, "pull_request.opened.json", func(p map[string]any) {
		p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = "draft1"
	}), secret)
	a.srv.Queue.Wait()
	if n := len(a.gh.Checks("acme/shop")); n != 0 {
		t.Errorf("%d debates ran: synchronize is not configured and drafts are skipped", n)
	}
}

// A push after a debate is debated incrementally: only what changed since, with the earlier
// required changes carried forward, and no finding on unchanged code posted again.
func TestNewPushIsDebatedIncrementally(t *testing.T) {
	a := newApp(t)
	a.post("pull_request", "d-1", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	first := a.comments(render.DecisionMarker)[0].Body
	if !strings.Contains(first, "internal/export/users.go:30: use a parameterised query") {
		t.Fatalf("first decision lacks the SQL finding:\n%s", first)
	}
	// The new push fixes the query at line 30 and adds a helper with a TODO.
	a.gh.SetHead("acme/shop#7", "def456")
	a.gh.Compares["acme/shop@abc123...def456"] = []map[string]any{
		{"filename": "internal/export/users.go", "status": "modified", "patch": "@@ -29,3 +29,3 @@ func (h *Handler) Users(w http.ResponseWriter, r *http.Request) {\n \tcountry := r.URL.Query().Get(\"country\")\n-\tquery := fmt.Sprintf(\"SELECT id, email FROM users WHERE country = '%s' ORDER BY id\", country)\n-\trows, err := h.db.Query(query)\n+\tconst query = \"SELECT id, email FROM users WHERE country = $1 ORDER BY id\"\n+\trows, err := h.db.Query(query, country)"},
		{"filename": "internal/export/format.py", "status": "added", "patch": "@@ -0,0 +1,2 @@\n+# TODO: support XLSX\n+FORMATS = ['csv']"},
	}
	sync := fixture(t, "pull_request.synchronize.json", func(p map[string]any) { p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = "def456" })
	a.post("pull_request", "d-2", sync, secret)
	a.srv.Queue.Wait()
	tr, dec := a.comments(render.TranscriptMarker), a.comments(render.DecisionMarker)
	if len(tr) != 1 || len(dec) != 1 {
		t.Fatalf("%d transcript and %d decision comments, want the same two edited", len(tr), len(dec))
	}
	body := tr[0].Body
	for _, want := range []string{"<summary>Carried forward from abc123</summary>", "- [x] internal/export/users.go:30: use a parameterised query (placeholders with arguments) (resolved)",
		"- [ ] internal/export/users.go:47: fetch in one batched query or request outside the loop (still open)", "internal/export/format.py:1"} {
		if !strings.Contains(body, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if strings.Contains(body, "users.go:61") {
		t.Error("a finding on unchanged code was posted again")
	}
	d := dec[0].Body
	if !strings.Contains(d, "head_sha: def456") || !strings.Contains(d, "decision: approve_with_changes") || strings.Contains(d, "users.go:30: use a parameterised query") {
		t.Errorf("incremental decision:\n%s", d)
	}
	compares, diffs := 0, 0
	for _, c := range a.gh.Calls() {
		if strings.Contains(c.Path, "/compare/") {
			compares++
		}
		if strings.Contains(c.Accept, "diff") {
			diffs++
		}
	}
	if compares != 1 || diffs != 1 {
		t.Errorf("compare calls = %d, whole-diff reads = %d; want 1 and 1 (the first debate's only)", compares, diffs)
	}
	a.checkCalls()
}

// /human-review while a model-backed debate runs: the debate stops, what was said is published,
// and the decision record says a human decides.
func TestHumanReviewStopsRunningDebate(t *testing.T) {
	llm := llmtest.New(t, nil)
	llm.SetLatency(300 * time.Millisecond)
	a := newAppWith(t, func(cfg *config.Server) { cfg.OpenAIKey, cfg.OpenAIBaseURL = "sk-test", llm.BaseURL() })
	a.post("pull_request", "d-1", fixture(t, "pull_request.opened.json", nil), secret)
	deadline := time.Now().Add(10 * time.Second)
	for len(llm.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	body := fixture(t, "issue_comment.created.on-pull-request.json", func(p map[string]any) {
		p["comment"].(map[string]any)["body"] = "/human-review"
	})
	a.post("issue_comment", "d-h", body, secret)
	a.srv.Queue.Wait()
	dec := a.comments(render.DecisionMarker)
	if len(dec) != 1 || !strings.Contains(dec[0].Body, "decision: escalate") || !strings.Contains(dec[0].Body, "a human review was asked for") {
		t.Fatalf("decision after /human-review = %+v", dec)
	}
	tr := a.comments(render.TranscriptMarker)
	if len(tr) != 1 || !strings.Contains(tr[0].Body, "stopped") {
		t.Errorf("the transcript does not show the debate stopped for human review")
	}
	if n := len(llm.Requests()); n > 8 {
		t.Errorf("%d model calls: the debate went on after /human-review", n)
	}
	if runs := a.gh.Checks("acme/shop"); len(runs) != 1 || runs[0].Conclusion != "action_required" {
		t.Errorf("check runs = %+v", runs)
	}
}

func TestOtherBotsOnlyWhenAllowed(t *testing.T) {
	for name, allowed := range map[string][]string{"ignored": nil, "allowed": {"renovate[bot]"}} {
		t.Run(name, func(t *testing.T) {
			a := newAppWith(t, func(cfg *config.Server) { cfg.AllowedBots = allowed })
			a.post("pull_request", "d-r", fixture(t, "pull_request.opened.json", func(p map[string]any) {
				p["sender"] = map[string]any{"login": "renovate[bot]", "type": "Bot"}
			}), secret)
			a.srv.Queue.Wait()
			if got, want := len(a.gh.Checks("acme/shop")), len(allowed); got != want {
				t.Errorf("debates = %d, want %d", got, want)
			}
		})
	}
}

// GitHub fails every edit for a while: the finished debate is published later, once, from the
// store, without running it again.
func TestPublishIsRetriedLater(t *testing.T) {
	a := newApp(t)
	// The progress comment is created, then every edit fails for the job's first attempts.
	a.gh.Fail("PATCH", "/repos/acme/shop/issues/comments/", 502, 30)
	a.post("pull_request", "d-r", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	dec := a.comments(render.DecisionMarker)
	tr := a.comments(render.TranscriptMarker)
	if len(dec) != 1 || len(tr) != 1 || !strings.Contains(tr[0].Body, "<summary>How the debate went</summary>") {
		t.Fatalf("after GitHub recovered: %d decision and %d transcript comments (transcript complete: %v)", len(dec), len(tr), len(tr) == 1 && strings.Contains(tr[0].Body, "<summary>How the debate went</summary>"))
	}
	if runs := a.gh.Checks("acme/shop"); len(runs) != 1 || runs[0].Status != "completed" {
		t.Errorf("check runs = %+v", runs)
	}
}

func testLogger() zerolog.Logger {
	if os.Getenv("DEBATEBOT_TEST_LOG") != "" {
		return zerolog.New(os.Stderr)
	}
	return zerolog.Nop()
}

// After /human-review, a maintainer's decision moves each agent's trust toward its agreement
// with the human; trust above 1.2 makes a stakeholder senior in the next debate.
func TestHumanDecisionsTeachTrust(t *testing.T) {
	a := newApp(t)
	a.gh.Permissions["acme/shop:maria"] = "maintain"
	ctx := context.Background()
	comment := func(id, user, body string) {
		a.post("issue_comment", id, commentFixture(t, user, body), secret)
		a.srv.Queue.Wait()
	}
	for round, head := range []string{"abc123", "def456"} {
		a.gh.SetHead("acme/shop#7", head)
		a.post("pull_request", "open-"+head, fixture(t, "pull_request.opened.json", func(p map[string]any) {
			p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = head
		}), secret)
		a.srv.Queue.Wait()
		comment(fmt.Sprintf("hr-%d", round), "alice", "/human-review")
		comment(fmt.Sprintf("refused-%d", round), "alice", "/human-review approve")
		comment(fmt.Sprintf("decide-%d", round), "maria", "/human-review approve")
	}
	perf, _ := a.srv.Store.Trust(ctx, "acme/shop", "performance")
	sec, _ := a.srv.Store.Trust(ctx, "acme/shop", "security")
	if perf <= 1.2 || sec >= 1.0 {
		t.Errorf("trust after two approvals: performance %.3f (voted approve_with_changes), security %.3f (voted request_changes)", perf, sec)
	}
	var refusals, lessons int
	for _, c := range a.gh.CommentsOn("acme/shop#7") {
		switch {
		case strings.Contains(c.Body, "only maintainers decide after /human-review"):
			refusals++
		case strings.Contains(c.Body, "The agents learn from it") && strings.Contains(c.Body, "performance voted approve_with_changes: trust"):
			lessons++
		}
	}
	// The second refusal to the same user on the same pull request within the hour is a reaction.
	if refusals != 1 || lessons != 2 || a.reactions()[RefusalReaction] != 1 {
		t.Errorf("%d refusals, %d lessons and reactions %v, want 1, 2 and one %q", refusals, lessons, a.reactions(), RefusalReaction)
	}
	// The next debate weighs the performance stakeholder as senior.
	a.gh.SetHead("acme/shop#7", "fff999")
	a.post("pull_request", "open-3", fixture(t, "pull_request.opened.json", func(p map[string]any) {
		p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = "fff999"
	}), secret)
	a.srv.Queue.Wait()
	dec := a.comments(render.DecisionMarker)[0].Body
	if !strings.Contains(dec, "- agent: performance\n      role: senior_stakeholder\n      weight: 1.5") {
		t.Errorf("the trusted stakeholder does not vote as senior:\n%s", dec)
	}
	// Merging is a human decision too: it counts for the reversal rate.
	a.post("pull_request", "closed", fixture(t, "pull_request.closed.json", func(p map[string]any) { p["pull_request"].(map[string]any)["merged"] = true }), secret)
	a.srv.Queue.Wait()
	st, err := a.srv.Store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Debates != 3 || st.HumanDecided != 3 || st.ReversalRate != 1 {
		t.Errorf("stats = %+v: the merge of a pull request the debate held back is a reversal", st)
	}
}

// A job that keeps failing is retried up to its bound, then reported on the check run.
func TestFailedJobIsSurfacedOnTheCheckRun(t *testing.T) {
	a := newAppWith(t, nil)
	a.gh.Fail("GET", "/repos/acme/shop/pulls/7", 500, 1000)
	a.post("pull_request", "d-x", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	runs := a.gh.Checks("acme/shop")
	if len(runs) != 1 || runs[0].Conclusion != "failure" || !strings.Contains(runs[0].Summary, "500") || runs[0].HeadSHA != "abc123" {
		t.Fatalf("check runs = %+v, want one failure naming the error", runs)
	}
	counts, _ := a.srv.Store.Counts(context.Background())
	if counts["failed"] != 1 {
		t.Errorf("job states = %v", counts)
	}
}

// The bot's comment ids are kept in the store; a comment someone deleted is posted again, once.
func TestCommentIDsAreRemembered(t *testing.T) {
	a := newApp(t)
	a.post("pull_request", "d-1", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	id, err := a.srv.Store.Publication(context.Background(), "acme/shop#7", render.DecisionMarker)
	if err != nil || id != a.comments(render.DecisionMarker)[0].ID {
		t.Fatalf("stored decision comment id = %d (%v)", id, err)
	}
	// Someone deletes the decision comment; the next debate posts it again.
	kept := a.gh.Comments["acme/shop#7"][:0]
	for _, c := range a.gh.Comments["acme/shop#7"] {
		if c.ID != id {
			kept = append(kept, c)
		}
	}
	a.gh.Comments["acme/shop#7"] = kept
	a.gh.SetHead("acme/shop#7", "def456")
	a.post("pull_request", "d-2", fixture(t, "pull_request.reopened.json", func(p map[string]any) {
		p["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = "def456"
	}), secret)
	a.srv.Queue.Wait()
	if n := len(a.comments(render.DecisionMarker)); n != 1 {
		t.Errorf("decision comments after the deletion = %d, want 1", n)
	}
	a.checkCalls()
}
