package dashboard_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debatebot/debatebot/dashboard"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// answers records the checkpoint answers the dashboard asked for, and grants the permission to
// the logins in allowed (the handlers' implementation, which asks GitHub, is tested with the
// whole App in package handlers).
type answers struct {
	mu      sync.Mutex
	allowed map[string]bool
	got     []string
}

func (a *answers) Permission(_ context.Context, id, login string) (bool, string, string, error) {
	if a.allowed[login] {
		return true, "write", "write", nil
	}
	return false, "write", "read", nil
}

func (a *answers) Answer(_ context.Context, id, login string, action toulmin.CheckpointAction, guidance string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, fmt.Sprintf("%s %s %s %s", id, login, action, guidance))
	return nil
}

func (a *answers) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.got...)
}

type env struct {
	t       testing.TB
	d       *dashboard.Dashboard
	gh      *githubtest.Server
	st      *store.Store
	url     string
	ts      *httptest.Server
	answers *answers
}

// secretToken is a GitHub token as a debate might quote it: no page may show it.
const secretToken = "ghp_R7xQ2mN8vK4pL9sT3wY6zB1cD5fH0jA2eG4i"

// newEnv is the dashboard over a store holding a decided debate of acme/shop (which alice and
// mallory can read) and a paused one of acme/private (which only alice can read), with a fake
// GitHub that signs in whoever SignInAs names.
func newEnv(t *testing.T) *env { return newEnvWith(t, seed) }

// newEnvWith is newEnv with the store seeded by seedStore.
func newEnvWith(t testing.TB, seedStore func(testing.TB, *store.Store), opts ...func(*dashboard.Config)) *env {
	t.Helper()
	gh := githubtest.New(t)
	gh.SetOAuth(githubtest.OAuth{ClientID: "Iv1.client", ClientSecret: "client-secret", User: "alice"})
	gh.Permissions["acme/shop:alice"] = "write"
	gh.Permissions["acme/shop:mallory"] = "read"
	gh.Permissions["acme/private:alice"] = "admin"
	st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "dash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	seedStore(t, st)
	ans := &answers{allowed: map[string]bool{"alice": true}}
	cfg := dashboard.Config{Store: st, WebURL: gh.URL, APIURL: gh.URL + "/", ClientID: "Iv1.client", ClientSecret: "client-secret",
		SessionKey: []byte("0123456789abcdef0123456789abcdef"), Checkpoints: ans, Poll: 20 * time.Millisecond}
	for _, o := range opts {
		o(&cfg)
	}
	d, err := dashboard.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewTLSServer(d)
	t.Cleanup(ts.Close)
	return &env{t: t, d: d, gh: gh, st: st, url: ts.URL, ts: ts, answers: ans}
}

func transcript(id, title string, rounds int) *toulmin.Transcript {
	start := time.Unix(1_700_000_000, 0).UTC()
	t := &toulmin.Transcript{DebateID: id, Title: title, Protocol: "extended", StartedAt: start,
		Participants: []toulmin.Participant{{Name: "security", Title: "Security Stakeholder", Abbrev: "SS"}, {Name: "core_maintainer", Title: "Core Maintainer", Abbrev: "CM"}}}
	t.Timeline = append(t.Timeline, toulmin.PhaseRecord{Phase: toulmin.PhaseOpening, StartedAt: start, EndedAt: start.Add(time.Second), Status: toulmin.StatusCompleted})
	t.Arguments = append(t.Arguments,
		toulmin.Argument{ID: "SS-1", Agent: "security", Phase: toulmin.PhaseOpening, Claim: "The export leaks the token " + secretToken, Warrant: "Tokens in responses are readable by anyone with the link.",
			Grounds: []toulmin.Ground{{Path: "internal/export/users.go", Line: 30, Text: "the query is built with Sprintf"}}, Qualifier: toulmin.Qualifier{Confidence: 0.9}, Quality: toulmin.Quality{Score: 0.8}},
		toulmin.Argument{ID: "CM-1", Agent: "core_maintainer", Phase: toulmin.PhaseOpening, Claim: "The change is small and reviewed.", Qualifier: toulmin.Qualifier{Confidence: 0.6}, Quality: toulmin.Quality{Score: 0.6}})
	for r := 1; r <= rounds; r++ {
		t.Timeline = append(t.Timeline, toulmin.PhaseRecord{Phase: toulmin.PhaseRebuttal, Round: r, StartedAt: start.Add(time.Duration(r) * time.Second), EndedAt: start.Add(time.Duration(r)*time.Second + 500*time.Millisecond), Status: toulmin.StatusCompleted})
		t.Arguments = append(t.Arguments, toulmin.Argument{ID: fmt.Sprintf("CM-R%d", r), Agent: "core_maintainer", Phase: toulmin.PhaseRebuttal, Round: r, Target: "SS-1",
			Claim: fmt.Sprintf("Round %d: the token is a test fixture.", r), Steelman: "The strongest form: any token in a response leaks.", Qualifier: toulmin.Qualifier{Confidence: 0.5}})
		t.Stances = append(t.Stances, toulmin.Stance{Agent: "security", Phase: toulmin.PhaseRebuttal, Round: r, Position: toulmin.Position{Vote: voting.RequestChanges, Confidence: 0.8}})
	}
	t.Rounds = rounds
	return t
}

func seed(t testing.TB, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	put := func(id, repo string, pr int, tr *toulmin.Transcript, decision string) {
		res, err := st.Enqueue(ctx, "del-"+id, "pull_request", &store.Job{Key: "key-" + id, PR: fmt.Sprintf("%s#%d", repo, pr), Kind: "review", Payload: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		cp, _ := json.Marshal(tr)
		d := &store.Debate{ID: id, JobID: res.JobID, Repository: repo, PRNumber: pr, Trigger: "pull_request.opened", Protocol: "extended", Phases: len(tr.Timeline), Checkpoint: cp, StartedAt: tr.StartedAt}
		if err := st.SaveCheckpoint(ctx, d); err != nil {
			t.Fatal(err)
		}
		if decision != "" {
			tr.Record = voting.Record{DebateID: id, Decision: voting.Option(decision), ConsensusLevel: voting.LevelConsensus, ConsensusScore: 0.8, RequiredChanges: []string{"Remove the token " + secretToken}}
			cp, _ = json.Marshal(tr)
			d.Checkpoint, d.Decision, d.EndedAt, d.Record = cp, decision, tr.StartedAt.Add(4*time.Second), []byte("decision: "+decision+"\n")
			d.Prompt, d.Completion, d.ConsensusLevel = 1200, 300, "consensus"
			if err := st.FinishDebate(ctx, d); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := st.PauseDebate(ctx, id, tr.Rounds, tr.StartedAt, tr.StartedAt.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	put("shop-debate", "acme/shop", 7, transcript("shop-debate", "Add admin user export", 2), "approve")
	put("private-debate", "acme/private", 3, transcript("private-debate", "Rotate the signing keys", 1), "")
}

// client is a browser: a cookie jar, trusting the test server's certificate.
func (e *env) client() *http.Client {
	jar, _ := cookiejar.New(nil)
	// A client of its own: the server's Client is one shared value.
	return &http.Client{Transport: e.ts.Client().Transport, Jar: jar}
}

// signIn signs login in through GitHub's web flow and returns the browser.
func (e *env) signIn(login string) *http.Client {
	e.t.Helper()
	e.gh.SignInAs(login)
	c := e.client()
	resp, err := c.Get(e.url + "/login")
	if err != nil {
		e.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/" || !strings.Contains(string(body), login) {
		e.t.Fatalf("sign-in of %s ended at %s with %d: %s", login, resp.Request.URL, resp.StatusCode, body)
	}
	return c
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token in the page: %s", page)
	}
	return m[1]
}

// The sign-in sets one session cookie, HttpOnly, Secure and SameSite=Lax, after GitHub's web
// flow with a state; the list then shows the debates the user can read.
func TestSignInAndList(t *testing.T) {
	e := newEnv(t)
	c := e.signIn("alice")
	u, _ := url.Parse(e.url)
	var session *http.Cookie
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "debatebot_session" {
			session = ck
		}
	}
	if session == nil {
		t.Fatal("no session cookie")
	}
	var authorize, exchange *githubtest.Call
	for _, call := range e.gh.Calls() {
		switch call.Operation {
		case "oauth/authorize":
			authorize = &call
		case "oauth/access_token":
			exchange = &call
		}
	}
	if authorize == nil || exchange == nil {
		t.Fatalf("the sign-in did not go through GitHub's authorize and access_token endpoints: %+v", e.gh.Calls())
	}
	q, _ := url.ParseQuery(authorize.Query)
	if q.Get("client_id") != "Iv1.client" || q.Get("state") == "" || q.Get("redirect_uri") != e.url+"/oauth/callback" {
		t.Errorf("authorize request %q lacks the client, state or redirect_uri", authorize.Query)
	}
	// A debate not begun (its job queued) is listed, without a page yet.
	if _, err := e.st.Enqueue(context.Background(), "del-12", "pull_request", &store.Job{Key: "pr12", PR: "acme/shop#12", Kind: "review", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	_, list := get(t, c, e.url+"/")
	for _, want := range []string{"acme/shop", "acme/private", "/debates/shop-debate", "/debates/private-debate", "paused after round 1", "decided", "1,500", `<span class="title">#12</span> <span class="muted" title="its first phase has not ended">not begun`} {
		if !strings.Contains(list, want) {
			t.Errorf("alice's list lacks %q", want)
		}
	}
	_, filtered := get(t, c, e.url+"/?status=paused")
	if strings.Contains(filtered, "/debates/shop-debate") || !strings.Contains(filtered, "/debates/private-debate") {
		t.Errorf("the paused filter shows the wrong debates")
	}
	_, byRepo := get(t, c, e.url+"/?repository=acme%2Fshop")
	if !strings.Contains(byRepo, "/debates/shop-debate") || strings.Contains(byRepo, "/debates/private-debate") {
		t.Errorf("the repository filter shows the wrong debates")
	}
}

// The cookies the dashboard sets are HttpOnly, Secure and SameSite=Lax.
func TestCookieAttributes(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(e.url + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || loc.Path != "/login/oauth/authorize" {
		t.Fatalf("/login answered %d to %s", resp.StatusCode, loc)
	}
	check := func(resp *http.Response, name string) {
		t.Helper()
		for _, ck := range resp.Cookies() {
			if ck.Name == name {
				if !ck.HttpOnly || !ck.Secure || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" {
					t.Errorf("cookie %s: HttpOnly %v Secure %v SameSite %v Path %q", name, ck.HttpOnly, ck.Secure, ck.SameSite, ck.Path)
				}
				return
			}
		}
		t.Errorf("no %s cookie", name)
	}
	check(resp, "debatebot_oauth_state")
	back, err := c.Get(loc.String())
	if err != nil {
		t.Fatal(err)
	}
	back.Body.Close()
	resp, err = c.Get(back.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	check(resp, "debatebot_session")
}

// A user who cannot read a private repository sees nothing of its debates: not in the list,
// not in the filter, not the page, not its events, not its buttons (the same 404 as a debate
// that does not exist).
func TestNoAccessSeesNothingOfPrivateDebates(t *testing.T) {
	e := newEnv(t)
	c := e.signIn("mallory")
	_, list := get(t, c, e.url+"/")
	if !strings.Contains(list, "/debates/shop-debate") {
		t.Errorf("mallory's list lacks the readable debate")
	}
	for _, leak := range []string{"acme/private", "private-debate", "Rotate the signing keys"} {
		if strings.Contains(list, leak) {
			t.Errorf("mallory's list shows %q", leak)
		}
	}
	_, filtered := get(t, c, e.url+"/?repository=acme%2Fprivate")
	if strings.Contains(filtered, "private-debate") {
		t.Errorf("a filter by the private repository shows its debate")
	}
	_, metrics := get(t, c, e.url+"/metrics-overview")
	if strings.Contains(metrics, "acme/private") || !strings.Contains(metrics, "acme/shop") {
		t.Errorf("mallory's metrics show the wrong repositories")
	}
	status, page := get(t, c, e.url+"/debates/private-debate")
	_, none := get(t, c, e.url+"/debates/no-such-debate")
	if status != http.StatusNotFound || strings.Contains(page, "Rotate") || page != none {
		t.Errorf("the private debate's page answered %d, and differs from a missing debate's: %s", status, page)
	}
	if status, body := get(t, c, e.url+"/debates/private-debate/events?phases=0"); status != http.StatusNotFound || strings.Contains(body, "Rotate") {
		t.Errorf("the private debate's events answered %d: %s", status, body)
	}
	_, shop := get(t, c, e.url+"/debates/shop-debate")
	resp, err := c.PostForm(e.url+"/debates/private-debate/checkpoint", url.Values{"csrf": {csrfOf(t, shop)}, "action": {"end"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || len(e.answers.list()) != 0 {
		t.Errorf("mallory's button on the private debate answered %d and asked for %v", resp.StatusCode, e.answers.list())
	}
	// Nor does a signed-out visitor see anything.
	anon := e.client()
	anon.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, p := range []string{"/", "/debates/private-debate", "/metrics-overview"} {
		resp, err := anon.Get(e.url + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login?next=") {
			t.Errorf("signed out, %s answered %d to %q", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if status, _ := get(t, anon, e.url+"/debates/private-debate/events"); status != http.StatusUnauthorized {
		t.Errorf("signed out, the events answered %d", status)
	}
}

// The debate's page shows its parts, links rebuttals to what they answer, and redacts secrets.
func TestDebatePage(t *testing.T) {
	e := newEnv(t)
	c := e.signIn("alice")
	status, page := get(t, c, e.url+"/debates/shop-debate")
	if status != 200 {
		t.Fatalf("page answered %d: %s", status, page)
	}
	for _, want := range []string{"Security Stakeholder", "Core Maintainer", `id="arg-SS-1"`, `href="#arg-SS-1"`, `href="#arg-CM-R1"`, "Steelman", "Warrant", "quality 80%",
		"internal/export/users.go:30", "Position history", "request_changes", "Decision record", "approve", "Required changes", "Rebuttals · round 2"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(page, `href="`+e.gh.URL+`/acme/shop/issues/7"`) {
		t.Error("the page does not link to the pull request on GitHub")
	}
	if strings.Contains(page, secretToken) {
		t.Error("the page shows the secret token")
	}
	if strings.Contains(page, "EventSource") {
		t.Error("a decided debate's page listens for events")
	}
	resp, err := c.Get(e.url + "/debates/private-debate")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	paused := string(raw)
	// The live page's script runs by its nonce, and no other script may.
	csp := resp.Header.Get("Content-Security-Policy")
	m := regexp.MustCompile(`script-src 'nonce-([^']+)';`).FindStringSubmatch(csp)
	if m == nil || !strings.Contains(paused, `<script nonce="`+m[1]+`">`) {
		t.Errorf("the live page's CSP %q does not name its script's nonce", csp)
	}
	for _, want := range []string{"Paused after round 1", `value="continue"`, `value="end"`, `name="guidance"`, "EventSource"} {
		if !strings.Contains(paused, want) {
			t.Errorf("the paused page lacks %q", want)
		}
	}
}

// The checkpoint buttons post the session's CSRF token: without it, or with another session's,
// nothing is answered; with it, the answer is asked for, once per click; a user without the
// permission is refused.
func TestCheckpointButtonsNeedCSRFAndPermission(t *testing.T) {
	e := newEnv(t)
	alice := e.signIn("alice")
	_, page := get(t, alice, e.url+"/debates/private-debate")
	token := csrfOf(t, page)
	post := func(c *http.Client, form url.Values) int {
		t.Helper()
		resp, err := c.PostForm(e.url+"/debates/private-debate/checkpoint", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := post(alice, url.Values{"action": {"continue"}}); s != http.StatusForbidden {
		t.Errorf("no CSRF token: %d", s)
	}
	if s := post(alice, url.Values{"action": {"continue"}, "csrf": {"forged"}}); s != http.StatusForbidden {
		t.Errorf("a forged CSRF token: %d", s)
	}
	other := e.signIn("alice") // another session of the same user has another token
	_, otherPage := get(t, other, e.url+"/debates/private-debate")
	if csrfOf(t, otherPage) == token {
		t.Fatal("two sessions share a CSRF token")
	}
	if s := post(alice, url.Values{"action": {"continue"}, "csrf": {csrfOf(t, otherPage)}}); s != http.StatusForbidden {
		t.Errorf("another session's CSRF token: %d", s)
	}
	if got := e.answers.list(); len(got) != 0 {
		t.Fatalf("rejected posts answered: %v", got)
	}
	if s := post(alice, url.Values{"action": {"guide"}, "csrf": {token}, "guidance": {"check the rollback"}}); s != 200 {
		t.Errorf("alice's guide: %d", s)
	}
	if got := e.answers.list(); len(got) != 1 || got[0] != "private-debate alice guide check the rollback" {
		t.Errorf("answers %v", got)
	}
	if s := post(alice, url.Values{"action": {"shout"}, "csrf": {token}}); s != http.StatusBadRequest {
		t.Errorf("an unknown action: %d", s)
	}
	// Logging out needs the token too.
	resp, err := alice.PostForm(e.url+"/logout", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("logout without a CSRF token: %d", resp.StatusCode)
	}
}

// A user with read access but not command_permission sees no buttons and is refused.
func TestCheckpointNeedsCommandPermission(t *testing.T) {
	e := newEnv(t)
	e.gh.Permissions["acme/private:mallory"] = "read"
	c := e.signIn("mallory")
	status, page := get(t, c, e.url+"/debates/private-debate")
	if status != 200 || strings.Contains(page, `value="continue"`) || !strings.Contains(page, "Answering needs write permission") {
		t.Fatalf("mallory's paused page (%d) shows buttons or no reason: %s", status, page)
	}
	resp, err := c.PostForm(e.url+"/debates/private-debate/checkpoint", url.Values{"csrf": {csrfOf(t, page)}, "action": {"end"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "needs write permission") || len(e.answers.list()) != 0 {
		t.Errorf("mallory's answer: %d %s; answers %v", resp.StatusCode, body, e.answers.list())
	}
}

// The callback refuses a state that is not the one the sign-in started with, a sign-in that did
// not start here, and a code GitHub does not know (bad_verification_code).
func TestCallbackChecksStateAndCode(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	// No sign-in started: no state cookie.
	if status, body := get(t, c, e.url+"/oauth/callback?code=abc&state=xyz"); status != http.StatusBadRequest || !strings.Contains(body, "did not start here") {
		t.Errorf("callback without a state cookie: %d %s", status, body)
	}
	start := func() (state string) {
		resp, err := c.Get(e.url + "/login")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		return loc.Query().Get("state")
	}
	start()
	if status, body := get(t, c, e.url+"/oauth/callback?code=abc&state=forged"); status != http.StatusBadRequest || !strings.Contains(body, "state") {
		t.Errorf("callback with a forged state: %d %s", status, body)
	}
	state := start()
	status, body := get(t, c, e.url+"/oauth/callback?code=not-issued&state="+url.QueryEscape(state))
	if status != http.StatusBadGateway || !strings.Contains(body, "bad_verification_code") {
		t.Errorf("callback with a code GitHub did not issue: %d %s", status, body)
	}
	// A user who cancels at GitHub comes back with access_denied.
	e.gh.SetOAuth(githubtest.OAuth{ClientID: "Iv1.client", ClientSecret: "client-secret", User: "alice", Deny: true})
	state = start()
	authorize := e.gh.URL + "/login/oauth/authorize?client_id=Iv1.client&redirect_uri=" + url.QueryEscape(e.url+"/oauth/callback") + "&state=" + url.QueryEscape(state)
	resp, err := c.Get(authorize)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if status, body := get(t, c, resp.Header.Get("Location")); status != http.StatusForbidden || !strings.Contains(body, "access_denied") {
		t.Errorf("callback after a denial: %d %s", status, body)
	}
	for _, ck := range c.Jar.Cookies(mustURL(e.url)) {
		if ck.Name == "debatebot_session" {
			t.Error("a failed sign-in left a session")
		}
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// A session cookie changed by its holder (another login put in it) is not a session.
func TestTamperedCookieIsRefused(t *testing.T) {
	e := newEnv(t)
	c := e.signIn("mallory")
	u := mustURL(e.url)
	var value string
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "debatebot_session" {
			value = ck.Value
		}
	}
	payload, sig, _ := strings.Cut(value, ".")
	data, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(data), `"l":"mallory"`, `"l":"alice"`, 1)
	if forged == string(data) {
		t.Fatalf("the session does not name its login as expected: %s", data)
	}
	for name, v := range map[string]string{
		"login changed":   base64.RawURLEncoding.EncodeToString([]byte(forged)) + "." + sig,
		"signature cut":   payload,
		"signature other": payload + "." + base64.RawURLEncoding.EncodeToString([]byte("not the signature at all, 32 b")),
	} {
		anon := e.client()
		anon.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		anon.Jar.SetCookies(u, []*http.Cookie{{Name: "debatebot_session", Value: v, Path: "/"}})
		resp, err := anon.Get(e.url + "/debates/private-debate")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
			t.Errorf("%s: answered %d", name, resp.StatusCode)
		}
	}
}

// The events of a debate carry its page body when the store shows it moved, and end once it is
// decided.
func TestEventsFollowTheStore(t *testing.T) {
	e := newEnv(t)
	c := e.signIn("alice")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url+"/debates/private-debate/events?phases=2&status=paused@1", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("events answered %d %s", resp.StatusCode, ct)
	}
	// The store moves: the debate, answered, runs a second round and is decided.
	go func() {
		time.Sleep(100 * time.Millisecond)
		tr := transcript("private-debate", "Rotate the signing keys", 2)
		if _, err := e.st.Unpause(ctx, "private-debate", 1, nil); err != nil {
			t.Error(err)
		}
		cp, _ := json.Marshal(tr)
		d := &store.Debate{ID: "private-debate", Repository: "acme/private", PRNumber: 3, Phases: len(tr.Timeline), Checkpoint: cp, StartedAt: tr.StartedAt}
		if err := e.st.SaveCheckpoint(ctx, d); err != nil {
			t.Error(err)
		}
		time.Sleep(100 * time.Millisecond)
		tr.Record = voting.Record{Decision: voting.Approve, ConsensusLevel: voting.LevelStrong}
		cp, _ = json.Marshal(tr)
		d.Checkpoint, d.Decision, d.EndedAt = cp, "approve", tr.StartedAt.Add(5*time.Second)
		if err := e.st.FinishDebate(ctx, d); err != nil {
			t.Error(err)
		}
	}()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("the stream did not end: %v (%s)", err, body)
	}
	s := string(body)
	if !strings.Contains(s, "event: update\ndata: ") || !strings.Contains(s, "Round 2: the token is a test fixture.") || !strings.Contains(s, "event: end") {
		t.Errorf("events: %s", s)
	}
	if !strings.Contains(s, `id="record"`) || !strings.Contains(s, `id="verdict">Approved<`) {
		t.Errorf("the last update lacks the decision: %s", s)
	}
}

// What a user may read is asked of GitHub once per repository while it is remembered, whether
// GitHub said yes (acme/shop) or no (acme/private for mallory), however many pages ask.
func TestAccessIsAskedOnce(t *testing.T) {
	e := newEnv(t)
	for _, login := range []string{"alice", "mallory"} {
		c := e.signIn(login)
		for _, p := range []string{"/", "/debates/shop-debate", "/debates/private-debate", "/metrics-overview", "/"} {
			get(t, c, e.url+p)
		}
	}
	asked := map[string]int{}
	for _, call := range e.gh.Calls() {
		if call.Method == http.MethodGet && strings.HasPrefix(call.Path, "/repos/") {
			asked[call.Path]++
		}
	}
	// Each of the two users asks about each of the two repositories once.
	if asked["/repos/acme/shop"] != 2 || asked["/repos/acme/private"] != 2 || len(asked) != 2 {
		t.Errorf("GitHub was asked %v, want each repository once per user", asked)
	}
}
