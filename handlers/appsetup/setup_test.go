package appsetup_test

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"gopkg.in/yaml.v3"

	"github.com/debatebot/debatebot"
	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/handlers/appsetup"
	"github.com/debatebot/debatebot/review/githubtest"
)

// fixture is a setup served on loopback against the fake GitHub.
type fixture struct {
	gh    *githubtest.Server
	srv   *httptest.Server
	setup *appsetup.Setup
	file  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{gh: githubtest.New(t), file: filepath.Join(t.TempDir(), "data", "github-app.yml")}
	// The server's address is known before it starts: the setup is built for it, then served.
	f.srv = httptest.NewUnstartedServer(nil)
	public := "http://" + f.srv.Listener.Addr().String()
	s, err := appsetup.New(appsetup.Options{AppYML: debatebot.AppManifest, PublicURL: public + "/", WebURL: f.gh.URL,
		APIURL: f.gh.URL + "/api/v3", AppFile: f.file, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	f.setup = s
	f.srv.Config.Handler = s.Handler()
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var (
	reAction   = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	reManifest = regexp.MustCompile(`<input type="hidden" name="manifest" value="([^"]+)">`)
)

// click posts the setup page's form to GitHub as the browser does and follows GitHub back to the
// callback; it returns the callback's answer.
func (f *fixture) click(t *testing.T, page string) (int, string) {
	t.Helper()
	action, manifest := reAction.FindStringSubmatch(page), reManifest.FindStringSubmatch(page)
	if action == nil || manifest == nil {
		t.Fatalf("the setup page has no form posting the manifest:\n%s", page)
	}
	resp, err := http.PostForm(html.UnescapeString(action[1]), url.Values{"manifest": {html.UnescapeString(manifest[1])}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.Request.URL.Host != strings.TrimPrefix(f.srv.URL, "http://") {
		t.Fatalf("GitHub did not send the browser back to serve (ended at %s): %d %s", resp.Request.URL, resp.StatusCode, b)
	}
	return resp.StatusCode, string(b)
}

// The whole flow: the page (with its one-time link) posts app.yml's manifest to GitHub's
// new-App page; GitHub sends the browser back with a code; the code is exchanged for the App's
// credentials, stored 0600; serve's configuration then reads them with no environment; the page
// and the callback are closed afterwards.
func TestManifestFlowRegistersAndStoresTheApp(t *testing.T) {
	f := newFixture(t)
	code, page := get(t, f.setup.URL())
	if code != http.StatusOK {
		t.Fatalf("setup page: %d\n%s", code, page)
	}
	code, body := f.click(t, page)
	if code != http.StatusOK || !strings.Contains(body, "is registered") || !strings.Contains(body, "/installations/new") {
		t.Fatalf("callback: %d\n%s", code, body)
	}
	select {
	case <-f.setup.Done():
	default:
		t.Fatal("Done is not closed after the registration")
	}

	apps := f.gh.ManifestApps()
	if len(apps) != 1 || apps[0].Owner != "" {
		t.Fatalf("GitHub registered %d apps", len(apps))
	}
	m := apps[0].Manifest
	var want struct {
		Name        string            `yaml:"name"`
		Permissions map[string]string `yaml:"default_permissions"`
		Events      []string          `yaml:"default_events"`
		Public      bool              `yaml:"public"`
	}
	if err := yaml.Unmarshal(debatebot.AppManifest, &want); err != nil {
		t.Fatal(err)
	}
	gotPerms := map[string]string{}
	for k, v := range m["default_permissions"].(map[string]any) {
		gotPerms[k] = v.(string)
	}
	var gotEvents []string
	for _, e := range m["default_events"].([]any) {
		gotEvents = append(gotEvents, e.(string))
	}
	if m["name"] != want.Name || m["public"] != want.Public || !mapsEqual(gotPerms, want.Permissions) || !slices.Equal(gotEvents, want.Events) {
		t.Errorf("the manifest is not app.yml's: %v", m)
	}
	if hook := m["hook_attributes"].(map[string]any); hook["url"] != f.srv.URL+"/api/github/hook" || hook["active"] != true {
		t.Errorf("hook_attributes = %v", hook)
	}
	if m["redirect_url"] != f.srv.URL+"/setup/callback" || !slices.Equal(m["callback_urls"].([]any), []any{f.srv.URL + "/oauth/callback"}) {
		t.Errorf("redirect_url %v, callback_urls %v", m["redirect_url"], m["callback_urls"])
	}

	// Stored for the owner alone, and read by serve's configuration without any App setting.
	info, err := os.Stat(f.file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("credentials file mode %v, want 0600", info.Mode().Perm())
	}
	env := map[string]string{"DEBATEBOT_APP_FILE": f.file}
	cfg, err := config.LoadServer(func(k string) string { return env[k] }, os.ReadFile)
	if err != nil {
		t.Fatalf("serve's configuration with the stored App: %v", err)
	}
	conv := apps[0].Conversion
	if cfg.GitHub.App.IntegrationID != conv["id"].(int64) || cfg.GitHub.App.WebhookSecret != conv["webhook_secret"] ||
		cfg.GitHub.App.PrivateKey != conv["pem"] || cfg.OAuthClientID != conv["client_id"] || cfg.OAuthClientSecret != conv["client_secret"] {
		t.Errorf("the configuration does not hold the registered App: id %d", cfg.GitHub.App.IntegrationID)
	}
	if reg := f.setup.Registered(); reg == nil || reg.Slug != conv["slug"] {
		t.Errorf("Registered() = %+v", reg)
	}

	// Closed: the page, a replay of the callback, and another registration.
	if code, _ := get(t, f.setup.URL()); code != http.StatusGone {
		t.Errorf("the setup page after the registration answered %d, want 410", code)
	}
	if code, _ := get(t, f.srv.URL+"/setup/callback?code=x&state=y"); code != http.StatusGone {
		t.Errorf("the callback after the registration answered %d, want 410", code)
	}
	if n := conversions(f.gh); n != 1 {
		t.Errorf("%d conversions, want 1", n)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func conversions(gh *githubtest.Server) int {
	n := 0
	for _, c := range gh.Calls() {
		if c.Operation == "apps/create-from-manifest" {
			n++
		}
	}
	return n
}

// The page opens only with the one-time token; a callback without it is refused before GitHub
// is asked anything; a code GitHub does not convert stores nothing and leaves the setup open.
func TestManifestFlowRefusesWhatItDidNotStart(t *testing.T) {
	f := newFixture(t)
	u, _ := url.Parse(f.setup.URL())
	token := u.Query().Get("token")
	for _, bad := range []string{f.srv.URL + "/setup", f.srv.URL + "/setup?token=" + strings.Repeat("0", len(token))} {
		if code, body := get(t, bad); code != http.StatusForbidden || strings.Contains(body, token) {
			t.Errorf("GET %s: %d (or the token leaked)", bad, code)
		}
	}
	if code, _ := get(t, f.srv.URL+"/setup/callback?code=abc&state=forged"); code != http.StatusForbidden {
		t.Errorf("forged state: %d, want 403", code)
	}
	if code, _ := get(t, f.srv.URL+"/setup/callback?code=../../x&state="+token); code != http.StatusBadRequest {
		t.Errorf("malformed code: %d, want 400", code)
	}
	if n := conversions(f.gh); n != 0 {
		t.Fatalf("%d conversions asked for refused callbacks", n)
	}
	if code, body := get(t, f.srv.URL+"/setup/callback?code=unknown&state="+token); code != http.StatusBadGateway || !strings.Contains(body, "Start again from the setup link") {
		t.Errorf("unknown code: %d\n%s", code, body)
	}
	if _, err := os.Stat(f.file); !os.IsNotExist(err) {
		t.Errorf("a failed conversion stored something: %v", err)
	}
	// Webhooks wait for the setup: 503, so that GitHub's delivery log shows them failed.
	resp, err := http.Post(f.srv.URL+"/api/github/hook", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("webhook during setup: %d, want 503", resp.StatusCode)
	}

	// The setup is still open: an organisation's App, under another name.
	code, page := get(t, f.setup.URL()+"&org=acme&name=acme-debatebot")
	if code != http.StatusOK || !strings.Contains(page, f.gh.URL+"/organizations/acme/settings/apps/new?state=") {
		t.Fatalf("organisation page: %d\n%s", code, page)
	}
	if code, body := f.click(t, page); code != http.StatusOK {
		t.Fatalf("callback: %d\n%s", code, body)
	}
	apps := f.gh.ManifestApps()
	if len(apps) != 1 || apps[0].Owner != "acme" || apps[0].Manifest["name"] != "acme-debatebot" {
		t.Fatalf("registered %+v", apps)
	}
	if code, _ := get(t, f.setup.URL()+"&org=-bad/org"); code != http.StatusGone {
		t.Errorf("after the registration: %d", code)
	}
}

func TestManifestFlowRefusesABadOrganisation(t *testing.T) {
	f := newFixture(t)
	if code, body := get(t, f.setup.URL()+"&org="+url.QueryEscape("acme/../x")); code != http.StatusBadRequest || strings.Contains(body, "<form method=\"post\"") {
		t.Errorf("bad organisation: %d\n%s", code, body)
	}
}

// SaveApp never replaces stored credentials.
func TestSaveAppNeverOverwrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "github-app.yml")
	c := &config.AppCredentials{ID: 7, Slug: "x", WebhookSecret: "w", PrivateKey: "-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----\n"}
	if err := config.SaveApp(path, c); err != nil {
		t.Fatal(err)
	}
	c2 := *c
	c2.ID = 8
	if err := config.SaveApp(path, &c2); err == nil || !strings.Contains(err.Error(), "stored already") {
		t.Fatalf("second SaveApp: %v", err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "GITHUB_APP_INTEGRATION_ID: \"7\"") && !strings.Contains(string(data), "GITHUB_APP_INTEGRATION_ID: 7") {
		t.Errorf("the first credentials were replaced:\n%s", data)
	}
}
