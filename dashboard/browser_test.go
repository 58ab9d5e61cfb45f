package dashboard_test

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
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/handlers"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/store"
)

const webhookSecret = "browser-test-secret"

// chromium returns the browser's path, or skips the test saying how to install it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("the browser test needs headless Chromium: install it (Debian: apt-get install chromium; .ci/run does)")
	return ""
}

// appHead is the head commit of acme/shop#n: a full commit id, as GitHub sends.
func appHead(n int) string { return fmt.Sprintf("abc12%d%034d", n, n) }

// theApp is the whole App (handlers.New, as serve runs it) on an https test server, against a
// fake GitHub holding acme/shop#7 and #8, whose debates pause after their first round.
type theApp struct {
	gh    *githubtest.Server
	srv   *handlers.Server
	url   string
	hooks *http.Client
}

func startApp(t *testing.T) *theApp {
	t.Helper()
	gh := githubtest.New(t)
	diff, err := os.ReadFile(filepath.Join("..", "examples", "admin-export.diff"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{7, 8} {
		gh.PRs[fmt.Sprintf("acme/shop#%d", n)] = &githubtest.PR{Title: "Add admin user export", BaseRef: "main", HeadRef: fmt.Sprintf("export-%d", n), HeadSHA: appHead(n), Diff: string(diff)}
	}
	gh.Contents["acme/shop@main:.github/debatebot.yml"] = "protocol: extended\nmax_rounds: 2\n"
	gh.Permissions["acme/shop:alice"] = "write"
	gh.SetOAuth(githubtest.OAuth{ClientID: "Iv1.browser", ClientSecret: "browser-secret", User: "alice"})
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	var handler http.Handler = http.NotFoundHandler()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	cfg := &config.Server{Workers: 2, DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "debatebot.db"), PublicURL: ts.URL,
		OAuthClientID: "Iv1.browser", OAuthClientSecret: "browser-secret"}
	cfg.GitHub.WebURL, cfg.GitHub.V3APIURL, cfg.GitHub.V4APIURL = gh.URL, gh.URL+"/", gh.URL+"/graphql"
	cfg.GitHub.App.IntegrationID, cfg.GitHub.App.WebhookSecret = 1, webhookSecret
	cfg.GitHub.App.PrivateKey = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := handlers.New(ctx, cfg, zerolog.Nop(), func(o *handlers.QueueOptions) {
		o.Poll, o.Heartbeat, o.Lease, o.Backoff = 5*time.Millisecond, 50*time.Millisecond, 10*time.Second, 10*time.Millisecond
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start(ctx)
	t.Cleanup(func() { cancel(); srv.Queue.Stop(); srv.Close() })
	handler = srv.Handler
	return &theApp{gh: gh, srv: srv, url: ts.URL, hooks: ts.Client()}
}

// deliver posts a signed delivery of a real webhook payload (../handlers/testdata/webhooks),
// pointed at acme/shop#n, as GitHub would.
func (a *theApp) deliver(t *testing.T, event, file string, n int, edit func(map[string]any)) {
	t.Helper()
	p := githubtest.Payload(t, filepath.Join("..", "handlers", "testdata", "webhooks", file))
	p["installation"] = map[string]any{"id": 42}
	p["sender"] = map[string]any{"login": "alice", "type": "User"}
	if pr, ok := p["pull_request"].(map[string]any); ok {
		pr["number"], pr["draft"] = n, false
		pr["head"].(map[string]any)["sha"] = appHead(n)
	}
	if is, ok := p["issue"].(map[string]any); ok {
		is["number"] = n
	}
	if edit != nil {
		edit(p)
	}
	body, _ := json.Marshal(p)
	m := hmac.New(sha256.New, []byte(webhookSecret))
	m.Write(body)
	req, _ := http.NewRequest(http.MethodPost, a.url+handlers.WebhookPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("%s-%d-%d", event, n, time.Now().UnixNano()))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
	resp, err := a.hooks.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("delivery answered %d", resp.StatusCode)
	}
}

func (a *theApp) paused(t *testing.T, n int) *store.Paused {
	t.Helper()
	a.srv.Queue.Wait()
	p, err := a.srv.Store.PausedDebate(context.Background(), "acme/shop", n)
	if err != nil {
		t.Fatalf("acme/shop#%d is not paused: %v", n, err)
	}
	return p
}

// A person signs in with GitHub, opens the list and a paused debate, watches the phases the
// resumed debate adds appear without reloading the page, and ends another debate's rounds with
// its button. Screenshots of each step are committed in testdata/screenshots; refresh them with
// DEBATEBOT_UPDATE_SCREENSHOTS=1 go test -run TestBrowser ./dashboard.
// browserOptions start the Chromium at path headless, with its profile and its temporary files
// (Chromium writes org.chromium.Chromium.* directories to TMPDIR) in the test's temporary
// directory, so that a test run leaves nothing behind.
func browserOptions(t *testing.T, path string) []chromedp.ExecAllocatorOption {
	dir := t.TempDir()
	return append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("ignore-certificate-errors", true), chromedp.WindowSize(1200, 900),
		chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.Env("TMPDIR="+dir))
}

func TestBrowser(t *testing.T) {
	path := chromium(t)
	a := startApp(t)
	a.deliver(t, "pull_request", "pull_request.opened.json", 7, nil)
	first := a.paused(t, 7)
	a.deliver(t, "pull_request", "pull_request.opened.json", 8, nil)
	second := a.paused(t, 8)

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browserOptions(t, path)...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTime()

	// The committed screenshots are rewritten only when asked, so that a test run leaves the
	// work tree as it was; otherwise they go to a temporary directory (taken all the same).
	dir := t.TempDir()
	if os.Getenv("DEBATEBOT_UPDATE_SCREENSHOTS") != "" {
		dir = filepath.Join("testdata", "screenshots")
	}
	shot, run := screenshots(dir), browse(t, ctx)

	// Signing in: the list sends the visitor to GitHub, which sends alice back.
	var list string
	run("sign in and open the list",
		chromedp.Navigate(a.url+"/"),
		chromedp.WaitVisible("#debates", chromedp.ByQuery),
		chromedp.OuterHTML("#debates", &list, chromedp.ByQuery),
		shot("1-list"),
	)
	for _, want := range []string{"acme/shop", "#7", "#8", "paused after round 1"} {
		if !strings.Contains(list, want) {
			t.Errorf("the list lacks %q: %s", want, list)
		}
	}

	// The paused debate, with its buttons; the page then stays open.
	var phasesBefore, status string
	run("open the paused debate",
		chromedp.Click(`a[href="/debates/`+first.ID+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#checkpoint", chromedp.ByQuery),
		chromedp.Text("#phase-count", &phasesBefore, chromedp.ByQuery),
		chromedp.Evaluate(`window.stillTheSamePage = true`, nil),
		shot("2-paused-debate"),
	)
	// Alice answers on the pull request; the open page follows the store.
	a.deliver(t, "issue_comment", "issue_comment.created.on-pull-request.json", 7, func(p map[string]any) {
		c := p["comment"].(map[string]any)
		c["id"], c["body"] = 9001, "/debate continue"
	})
	var phasesAfter string
	var same bool
	var at positions
	run("watch the resumed debate's phases appear",
		chromedp.WaitVisible("#record", chromedp.ByQuery),
		chromedp.Text("#phase-count", &phasesAfter, chromedp.ByQuery),
		chromedp.Text("#status", &status, chromedp.ByQuery),
		chromedp.Evaluate(`window.stillTheSamePage === true`, &same),
		chromedp.Evaluate(measure, &at),
		shot("3-live-decided"),
		// A rebuttal, its Toulmin parts and its link to the argument it answers.
		chromedp.ScrollIntoView(`article.arg a[href^="#arg-"]`, chromedp.ByQuery),
		shot("4-arguments"),
		chromedp.ScrollIntoView("#record", chromedp.ByQuery),
		shot("5-record"),
	)
	if !same {
		t.Error("the page was reloaded: the phases did not arrive live")
	}
	// The App's own debate of the example change: its decision leads the page.
	t.Logf("the decided debate's page: decision at %.0fpx, first argument at %.0fpx, page %.0fpx high", at.Verdict, at.FirstArgument, at.Height)
	if at.Verdict < 0 || at.FirstArgument < 0 || at.Verdict > at.FirstArgument || at.Verdict > at.Viewport {
		t.Errorf("the decided debate's decision is not on the first screen above the first argument: %+v", at)
	}
	if want := "/acme/shop/blob/" + appHead(7) + "/"; !strings.Contains(at.FirstLink, want) {
		t.Errorf("the decided debate's first finding links to %q, not to its line at the head (%s…)", at.FirstLink, want)
	}
	before, _ := strconv.Atoi(phasesBefore)
	after, _ := strconv.Atoi(phasesAfter)
	if before == 0 || after <= before {
		t.Errorf("phases %s before, %s after: none appeared", phasesBefore, phasesAfter)
	}
	if status != "decided" && status != "escalated" {
		t.Errorf("status %q after the resumed debate ended", status)
	}

	// The other debate's "End the rounds" button.
	run("end the other debate's rounds with its button",
		chromedp.Navigate(a.url+"/debates/"+second.ID),
		chromedp.WaitVisible("#end", chromedp.ByQuery),
		chromedp.Click("#end", chromedp.ByQuery),
		chromedp.WaitVisible("#record", chromedp.ByQuery),
		shot("6-ended-by-button"),
	)
	a.srv.Queue.Wait()
	d, err := a.srv.Store.LatestDecided(context.Background(), "acme/shop", 8)
	if err != nil || d.ID != second.ID {
		t.Fatalf("the debate ended by the button was not decided: %v", err)
	}
	answered := false
	for _, c := range a.gh.CommentsOn("acme/shop#8") {
		answered = answered || strings.Contains(c.Body, "@alice answered the checkpoint after round 1: **end**")
	}
	if !answered {
		t.Errorf("the pull request does not say alice ended the rounds: %+v", a.gh.CommentsOn("acme/shop#8"))
	}
	run("metrics", chromedp.Navigate(a.url+"/metrics-overview"), chromedp.WaitVisible("svg", chromedp.ByQuery), shot("7-metrics"))
}

// screenshots is the action that saves the page as dir/NAME.png.
func screenshots(dir string) func(name string) chromedp.Action {
	return func(name string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var png []byte
			if err := chromedp.CaptureScreenshot(&png).Do(ctx); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		})
	}
}

// browse runs a step of actions in the browser, failing the test with what the step was.
func browse(t *testing.T, ctx context.Context) func(what string, actions ...chromedp.Action) {
	return func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}
