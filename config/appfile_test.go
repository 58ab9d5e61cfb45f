package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const testPEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"

// The credentials the setup page stored configure serve when nothing else sets them; the
// environment and DEBATEBOT_CONFIG still win, setting by setting.
func TestLoadServerReadsTheStoredApp(t *testing.T) {
	file := filepath.Join(t.TempDir(), "app", "github-app.yml")
	if err := SaveApp(file, &AppCredentials{ID: 42, Slug: "my-debatebot", HTMLURL: "https://github.com/apps/my-debatebot", WebhookSecret: "whsec", PrivateKey: testPEM, ClientID: "Iv1.abc", ClientSecret: "cs"}); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Dir(file)); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the directory made for the credentials: %v %v", info, err)
	}
	env := map[string]string{"DEBATEBOT_APP_FILE": file}
	s, err := LoadServer(func(k string) string { return env[k] }, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	if s.GitHub.App.IntegrationID != 42 || s.GitHub.App.WebhookSecret != "whsec" || s.GitHub.App.PrivateKey != testPEM || s.OAuthClientID != "Iv1.abc" || s.OAuthClientSecret != "cs" || s.AppFile != file {
		t.Errorf("loaded %+v", s.GitHub.App)
	}
	env["GITHUB_APP_WEBHOOK_SECRET"] = "from-env"
	if s, err = LoadServer(func(k string) string { return env[k] }, os.ReadFile); err != nil || s.GitHub.App.WebhookSecret != "from-env" || s.GitHub.App.IntegrationID != 42 {
		t.Errorf("the environment does not win: %v %+v", err, s)
	}
	// Registered: no setup.
	if _, err := LoadSetup(func(k string) string { return env[k] }, os.ReadFile); err == nil || !strings.Contains(err.Error(), "configured already") {
		t.Errorf("LoadSetup with a registered App: %v", err)
	}
}

// A stored file with something else in it is an error naming the file, not ignored.
func TestLoadServerRefusesABrokenStoredApp(t *testing.T) {
	file := filepath.Join(t.TempDir(), "github-app.yml")
	if err := os.WriteFile(file, []byte("OPENAI_API_KEY: sk-x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DEBATEBOT_APP_FILE": file}
	if _, err := LoadServer(func(k string) string { return env[k] }, os.ReadFile); err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), `unknown key "OPENAI_API_KEY"`) {
		t.Errorf("err = %v", err)
	}
}

// Unregistered: LoadServer says so, LoadSetup reads the rest and wants the public URL.
func TestLoadSetup(t *testing.T) {
	env := map[string]string{"DEBATEBOT_APP_FILE": filepath.Join(t.TempDir(), "none.yml"), "DEBATEBOT_WORKERS": "3"}
	get := func(k string) string { return env[k] }
	_, err := LoadServer(get, os.ReadFile)
	e, ok := err.(*Error)
	if !ok || !e.Unregistered {
		t.Fatalf("LoadServer: %v", err)
	}
	if _, err := LoadSetup(get, os.ReadFile); err == nil || !strings.Contains(err.Error(), "DEBATEBOT_PUBLIC_URL: not set") || strings.Contains(err.Error(), "INTEGRATION_ID") {
		t.Errorf("LoadSetup without a public URL: %v", err)
	}
	env["DEBATEBOT_PUBLIC_URL"] = "https://debatebot.example.com/"
	s, err := LoadSetup(get, os.ReadFile)
	if err != nil || s.PublicURL != "https://debatebot.example.com" || s.Workers != 3 {
		t.Fatalf("LoadSetup: %v %+v", err, s)
	}
	// Half an App is a mistake to fix, not a setup to run.
	env["GITHUB_APP_INTEGRATION_ID"] = "5"
	if _, err := LoadServer(get, os.ReadFile); err == nil || err.(*Error).Unregistered {
		t.Errorf("half an App counts as unregistered: %v", err)
	}
}

// The data directory follows the XDG rules: an absolute XDG_DATA_HOME, else the home's.
func TestDataDir(t *testing.T) {
	home := "/home/u/.local/share/debatebot"
	if runtime.GOOS == "darwin" {
		home = "/home/u/Library/Application Support/debatebot"
	}
	for _, tc := range []struct {
		env     map[string]string
		want    string
		wantErr bool
	}{
		{map[string]string{"XDG_DATA_HOME": "/x/data", "HOME": "/home/u"}, "/x/data/debatebot", false},
		{map[string]string{"XDG_DATA_HOME": "rel", "HOME": "/home/u"}, home, false},
		{map[string]string{"HOME": "/home/u"}, home, false},
		{map[string]string{}, "", true},
	} {
		got, err := DataDir(func(k string) string { return tc.env[k] })
		if (err != nil) != tc.wantErr || got != filepath.FromSlash(tc.want) {
			t.Errorf("DataDir(%v) = %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
}
