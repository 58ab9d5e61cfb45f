package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/githubtest"
)

var (
	reSetupLink   = regexp.MustCompile(`Register the GitHub App: open (http://\S+/setup\?token=[0-9a-f]+)`)
	reSetupAction = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	reSetupField  = regexp.MustCompile(`<input type="hidden" name="manifest" value="([^"]+)">`)
)

// The App's setup as its README tells it: start serve with nothing but where it is reached,
// open the link it prints, click; GitHub (the fake) registers the App from app.yml and sends the
// browser back; serve stores the credentials and goes on serving with them: a webhook signed
// with the new App's secret is taken, one signed otherwise is not, and a restart needs no setup.
func TestServeRegistersTheAppByTheManifestFlow(t *testing.T) {
	t.Parallel() // a process of its own: waits on it overlap another test's
	bin := buildBinary(t)
	gh := githubtest.New(t)
	file := filepath.Join(t.TempDir(), "data", "github-app.yml")
	env := []string{
		"GITHUB_V3_API_URL=" + gh.URL + "/", "GITHUB_WEB_URL=" + gh.URL, "DEBATEBOT_APP_FILE=" + file,
		"DEBATEBOT_DATABASE_URL=sqlite:" + filepath.Join(t.TempDir(), "debatebot.db"),
		"DEBATEBOT_CACHE_DIR=" + filepath.Join(t.TempDir(), "cache"), "DEBATEBOT_GOPROXY=off",
	}
	p := newServe(t, bin, env)
	p.env = append(p.env, "DEBATEBOT_PUBLIC_URL=http://"+p.addr)
	p.start()
	defer p.kill()
	m := reSetupLink.FindStringSubmatch(p.logs.String())
	if m == nil {
		t.Fatalf("serve printed no setup link:\n%s", p.logs.String())
	}
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	action, manifest := reSetupAction.FindSubmatch(page), reSetupField.FindSubmatch(page)
	if resp.StatusCode != http.StatusOK || action == nil || manifest == nil {
		t.Fatalf("setup page: %d\n%s", resp.StatusCode, page)
	}
	// The click: the browser posts the manifest to GitHub, which sends it back to the callback.
	resp, err = http.PostForm(html.UnescapeString(string(action[1])), url.Values{"manifest": {html.UnescapeString(string(manifest[1]))}})
	if err != nil {
		t.Fatal(err)
	}
	done, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(done), "is registered") {
		t.Fatalf("callback: %d\n%s\n%s", resp.StatusCode, done, p.logs.String())
	}
	waitLog(t, p, "debatebot is serving")
	apps := gh.ManifestApps()
	if len(apps) != 1 {
		t.Fatalf("%d Apps registered", len(apps))
	}
	secret := apps[0].Conversion["webhook_secret"].(string)
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("stored credentials: %v %v", info, err)
	}
	if strings.Contains(p.logs.String(), secret) || strings.Contains(p.logs.String(), "PRIVATE KEY") {
		t.Errorf("the logs show the App's secret or key:\n%s", p.logs.String())
	}
	ping := []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`)
	if code := postSigned(t, p.addr, secret, ping); code != http.StatusOK {
		t.Errorf("a delivery signed with the new App's secret answered %d\n%s", code, p.logs.String())
	}
	if code := postSigned(t, p.addr, "s3cret", ping); code == http.StatusOK {
		t.Errorf("a delivery signed with another secret was taken")
	}
	p.stop()

	// Restarted with the same environment: the stored App, no setup.
	q := newServe(t, bin, env)
	q.env = append(q.env, "DEBATEBOT_PUBLIC_URL=http://"+q.addr)
	q.start()
	defer q.kill()
	waitLog(t, q, "debatebot is serving")
	if strings.Contains(q.logs.String(), "Register the GitHub App") {
		t.Errorf("a restart asked for the setup again:\n%s", q.logs.String())
	}
}

// With no App and no DEBATEBOT_PUBLIC_URL, serve cannot build the App's URLs: it exits with the
// missing settings and says how to register the App.
func TestServeWithoutAppOrPublicURLSaysHow(t *testing.T) {
	code, _, errOut := runCmd(t, "", map[string]string{"DEBATEBOT_APP_FILE": filepath.Join(t.TempDir(), "none.yml")}, "serve")
	if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "GITHUB_APP_INTEGRATION_ID: not set") ||
		!strings.Contains(errOut, "set DEBATEBOT_PUBLIC_URL") || !strings.Contains(errOut, "/setup page") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func waitLog(t *testing.T, p *serveProcess, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(p.logs.String(), what) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(p.logs.String(), what) {
		t.Fatalf("serve never logged %q:\n%s", what, p.logs.String())
	}
}

func postSigned(t *testing.T, addr, secret string, body []byte) int {
	t.Helper()
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/github/hook", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", "ping")
	req.Header.Set("X-GitHub-Delivery", "setup-ping-"+secret[:6])
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
