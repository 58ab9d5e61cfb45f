package handlers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/store"
)

const publicURL = "https://debatebot.example.com"

// dashboardApp is pausedApp with the dashboard's sign-in configured and a public URL.
func dashboardApp(t *testing.T) (*app, *store.Paused) {
	t.Helper()
	a := newAppClocked(t, func(c *config.Server) {
		c.OAuthClientID, c.OAuthClientSecret, c.PublicURL = "Iv1.client", "client-secret", publicURL
	}, func(o *QueueOptions) { o.SweepEvery = time.Hour }, true)
	a.gh.SetOAuth(githubtest.OAuth{ClientID: "Iv1.client", ClientSecret: "client-secret"})
	a.gh.Permissions["acme/shop:alice"] = "write"
	a.gh.Contents["acme/shop@main:.github/debatebot.yml"] = extendedTwoRounds
	a.post("pull_request", "d-open", fixture(t, "pull_request.opened.json", nil), secret)
	a.srv.Queue.Wait()
	p, err := a.srv.Store.PausedDebate(context.Background(), "acme/shop", 7)
	if err != nil {
		t.Fatalf("no paused debate after the first round: %v", err)
	}
	return a, p
}

// noRedirect is a client that shows redirects instead of following them. The test server is
// plain HTTP, where a cookie jar would not send the dashboard's Secure cookies: the test carries
// them by hand, as a browser does on https.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func cookieOf(resp *http.Response, name string) string {
	for _, c := range resp.Cookies() {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// dashSignIn signs login in to the App's dashboard through the fake GitHub and returns the
// session cookie's value.
func dashSignIn(t *testing.T, a *app, login string) string {
	t.Helper()
	a.gh.SignInAs(login)
	resp, err := noRedirect.Get(a.url + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	state := cookieOf(resp, "debatebot_oauth_state")
	authorize, _ := url.Parse(resp.Header.Get("Location"))
	if q := authorize.Query(); q.Get("redirect_uri") != publicURL+"/oauth/callback" {
		t.Errorf("redirect_uri %q, want the public URL's callback", q.Get("redirect_uri"))
	}
	resp, err = noRedirect.Get(authorize.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	if back.Path != "/oauth/callback" || back.Query().Get("code") == "" {
		t.Fatalf("GitHub sent the browser to %s", back)
	}
	// The browser follows the redirect to the public URL, which is this server.
	req, _ := http.NewRequest(http.MethodGet, a.url+back.RequestURI(), nil)
	req.AddCookie(&http.Cookie{Name: "debatebot_oauth_state", Value: state})
	resp, err = noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	session := cookieOf(resp, "debatebot_session")
	if resp.StatusCode != http.StatusSeeOther || session == "" {
		t.Fatalf("callback answered %d without a session: %s", resp.StatusCode, body)
	}
	return session
}

func dashDo(t *testing.T, a *app, session, method, path string, form url.Values) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, a.url+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.AddCookie(&http.Cookie{Name: "debatebot_session", Value: session})
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// The dashboard's checkpoint buttons act as the comment commands: a user with read permission
// sees none and is refused (the debate stays paused); a writer's "continue" is answered as
// "/debate continue" is, on the pull request too, and the debate resumes and is decided. The
// check run links to the debate's page under DEBATEBOT_PUBLIC_URL.
func TestDashboardCheckpointActsAsCommand(t *testing.T) {
	a, p := dashboardApp(t)
	ctx := context.Background()
	page := "/debates/" + url.PathEscape(p.ID)

	mallory := dashSignIn(t, a, "mallory")
	status, body := dashDo(t, a, mallory, http.MethodGet, page, nil)
	if status != 200 || strings.Contains(body, `value="continue"`) || !strings.Contains(body, "Answering needs write permission") {
		t.Fatalf("mallory's page (%d) offers the buttons: %s", status, body)
	}
	token := csrfInput.FindStringSubmatch(body)[1]
	if status, _ := dashDo(t, a, mallory, http.MethodPost, page+"/checkpoint", url.Values{"csrf": {token}, "action": {"continue"}}); status != http.StatusForbidden {
		t.Errorf("mallory's continue answered %d", status)
	}
	a.srv.Queue.Wait()
	if still, err := a.srv.Store.PausedDebate(ctx, "acme/shop", 7); err != nil || still.ID != p.ID {
		t.Fatalf("a refused button unpaused the debate: %v", err)
	}

	alice := dashSignIn(t, a, "alice")
	status, body = dashDo(t, a, alice, http.MethodGet, page, nil)
	if status != 200 || !strings.Contains(body, `value="continue"`) {
		t.Fatalf("alice's page (%d) lacks the buttons: %s", status, body)
	}
	token = csrfInput.FindStringSubmatch(body)[1]
	if status, _ := dashDo(t, a, alice, http.MethodPost, page+"/checkpoint", url.Values{"csrf": {token}, "action": {"continue"}}); status != http.StatusSeeOther {
		t.Fatalf("alice's continue answered %d", status)
	}
	a.srv.Queue.Wait()
	if a.commentsContaining("@alice answered the checkpoint after round 1: **continue**") != 1 {
		t.Errorf("the pull request does not say alice answered: %+v", a.gh.CommentsOn("acme/shop#7"))
	}
	if _, err := a.srv.Store.PausedDebate(ctx, "acme/shop", 7); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("still paused after the answer: %v", err)
	}
	d, err := a.srv.Store.LatestDecided(ctx, "acme/shop", 7)
	if err != nil || d.ID != p.ID {
		t.Fatalf("the resumed debate was not decided: %v", err)
	}
	_, body = dashDo(t, a, alice, http.MethodGet, page, nil)
	if !strings.Contains(body, "Decision record") || !strings.Contains(body, "<strong>continue</strong> by alice") {
		t.Errorf("the decided page lacks the record or the checkpoint: %s", body)
	}
	linked := false
	for _, c := range a.gh.Calls() {
		if strings.Contains(c.Path, "/check-runs") && strings.Contains(c.Body, `"details_url":"`+publicURL+"/debates/"+url.PathEscape(p.ID)+`"`) {
			linked = true
		}
	}
	if !linked {
		t.Error("no check run links to the debate's page under the public URL")
	}
	a.checkCalls()
}
