package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const pemKey = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"

func TestLoadServer(t *testing.T) {
	env := map[string]string{
		"GITHUB_APP_INTEGRATION_ID": "12345", "GITHUB_APP_WEBHOOK_SECRET": "s", "GITHUB_APP_PRIVATE_KEY": pemKey,
		"DEBATEBOT_CONFIG": "server.yml", "DEBATEBOT_WORKERS": "4",
	}
	file := "DEBATEBOT_ADDR: \":9000\"\nDEBATEBOT_WORKERS: 8\nGITHUB_V3_API_URL: https://ghe.example.com/api/v3/\nDEBATEBOT_JOB_LEASE: 90s\n"
	read := func(p string) ([]byte, error) {
		if p != "server.yml" {
			return nil, errors.New("no such file")
		}
		return []byte(file), nil
	}
	s, err := LoadServer(func(k string) string { return env[k] }, read)
	if err != nil {
		t.Fatal(err)
	}
	if s.Addr != ":9000" || s.Workers != 4 || s.GitHub.V3APIURL != "https://ghe.example.com/api/v3/" || s.GitHub.App.IntegrationID != 12345 || s.DatabaseURL != DefaultDatabaseURL || s.JobLease != 90*time.Second {
		t.Errorf("server config = %+v (the environment wins over the file, the file over defaults)", s)
	}
}

func TestLoadServerErrors(t *testing.T) {
	tests := map[string]struct {
		env  map[string]string
		file string
		want []string
	}{
		"nothing set": {map[string]string{}, "", []string{"GITHUB_APP_INTEGRATION_ID: not set", "GITHUB_APP_WEBHOOK_SECRET: not set", "GITHUB_APP_PRIVATE_KEY: not a PEM private key"}},
		"bad values": {map[string]string{"GITHUB_APP_INTEGRATION_ID": "abc", "GITHUB_APP_WEBHOOK_SECRET": "s", "GITHUB_APP_PRIVATE_KEY": pemKey, "DEBATEBOT_WORKERS": "0"},
			"", []string{`GITHUB_APP_INTEGRATION_ID: "abc" is not an App ID`, `DEBATEBOT_WORKERS: "0" is not a positive whole number`}},
		"bad repository limit": {map[string]string{"GITHUB_APP_INTEGRATION_ID": "1", "GITHUB_APP_WEBHOOK_SECRET": "s", "GITHUB_APP_PRIVATE_KEY": pemKey, "DEBATEBOT_MAX_REPO_MB": "1.5GB"},
			"", []string{`DEBATEBOT_MAX_REPO_MB: "1.5GB" is not a whole number of megabytes`}},
		"zero tree budget": {map[string]string{"GITHUB_APP_INTEGRATION_ID": "1", "GITHUB_APP_WEBHOOK_SECRET": "s", "GITHUB_APP_PRIVATE_KEY": pemKey, "DEBATEBOT_MAX_TREE_MB": "0", "DEBATEBOT_MAX_TREE_FILES": "many"},
			"", []string{`DEBATEBOT_MAX_TREE_MB: "0" is not a whole number of megabytes (at least 1)`, `DEBATEBOT_MAX_TREE_FILES: "many" is not a whole number of files (at least 1)`}},
		"negative repository limit": {map[string]string{"GITHUB_APP_INTEGRATION_ID": "1", "GITHUB_APP_WEBHOOK_SECRET": "s", "GITHUB_APP_PRIVATE_KEY": pemKey, "DEBATEBOT_MAX_REPO_MB": "-1"},
			"", []string{`DEBATEBOT_MAX_REPO_MB: "-1" is not a whole number of megabytes`}},
		"bad budget": {map[string]string{"GITHUB_APP_INTEGRATION_ID": "1", "GITHUB_APP_WEBHOOK_SECRET": "s", "GITHUB_APP_PRIVATE_KEY": pemKey, "DEBATEBOT_REPO_DEBATES_PER_HOUR": "-2", "DEBATEBOT_REPO_TOKENS_PER_DAY": "2M"},
			"", []string{`DEBATEBOT_REPO_DEBATES_PER_HOUR: "-2" is not a whole number of debates (0: no limit)`, `DEBATEBOT_REPO_TOKENS_PER_DAY: "2M" is not a whole number of tokens`}},
		"unknown key in the file": {map[string]string{"DEBATEBOT_CONFIG": "s.yml"}, "DEBATEBOT_PORT: 80\n", []string{`s.yml: unknown key "DEBATEBOT_PORT"`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := LoadServer(func(k string) string { return tc.env[k] }, func(string) ([]byte, error) { return []byte(tc.file), nil })
			if err == nil {
				t.Fatal("LoadServer succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// The whole-tree settings: the cache directory and the repository limit, from the environment or
// the file, with their defaults; the web (git) URL follows the API URL unless set.
func TestLoadServerTrees(t *testing.T) {
	base := map[string]string{"GITHUB_APP_INTEGRATION_ID": "1", "GITHUB_APP_WEBHOOK_SECRET": "s", "GITHUB_APP_PRIVATE_KEY": pemKey}
	load := func(extra map[string]string) *Server {
		t.Helper()
		env := map[string]string{}
		for k, v := range base {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		s, err := LoadServer(func(k string) string { return env[k] }, func(string) ([]byte, error) { return []byte("DEBATEBOT_MAX_REPO_MB: 0\n"), nil })
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := load(nil)
	if s.MaxRepoMB != DefaultMaxRepoMB || !strings.HasSuffix(s.CacheDir, "debatebot/repos") || s.GitHub.WebURL != "https://github.com" {
		t.Errorf("defaults: max %d MB, cache %q, web %q", s.MaxRepoMB, s.CacheDir, s.GitHub.WebURL)
	}
	s = load(map[string]string{"DEBATEBOT_CONFIG": "s.yml", "DEBATEBOT_CACHE_DIR": "/var/cache/debatebot"})
	if s.MaxRepoMB != 0 || s.CacheDir != "/var/cache/debatebot" {
		t.Errorf("set: max %d MB (0 from the file), cache %q", s.MaxRepoMB, s.CacheDir)
	}
	if s.MaxTreeMB != DefaultMaxTreeMB || s.MaxTreeFiles != DefaultMaxTreeFiles {
		t.Errorf("tree budget defaults: %d MB, %d files", s.MaxTreeMB, s.MaxTreeFiles)
	}
	s = load(map[string]string{"DEBATEBOT_MAX_TREE_MB": "64", "DEBATEBOT_MAX_TREE_FILES": "5000"})
	if s.MaxTreeMB != 64 || s.MaxTreeFiles != 5000 {
		t.Errorf("tree budget set: %d MB, %d files; want 64, 5000", s.MaxTreeMB, s.MaxTreeFiles)
	}
	for api, web := range map[string]string{
		"https://api.github.com":                  "https://github.com",
		"https://api.github.com/":                 "https://github.com",
		"https://api.acme.ghe.com/":               "https://acme.ghe.com",
		"https://ghe.example.com/api/v3/":         "https://ghe.example.com",
		"http://127.0.0.1:8081/":                  "http://127.0.0.1:8081",
		"https://proxy.example.com/github/api/v3": "https://proxy.example.com/github",
	} {
		if got := load(map[string]string{"GITHUB_V3_API_URL": api}).GitHub.WebURL; got != web {
			t.Errorf("API %s: web URL %q, want %q", api, got, web)
		}
	}
	if got := load(map[string]string{"GITHUB_V3_API_URL": "https://ghe.example.com/api/v3/", "GITHUB_WEB_URL": "https://git.example.com"}).GitHub.WebURL; got != "https://git.example.com" {
		t.Errorf("a set GITHUB_WEB_URL was replaced: %q", got)
	}
}

// The dashboard's settings: the public URL, the OAuth client (both or neither), and the session
// key, DEBATEBOT_SESSION_KEY or, without it, derived from the webhook secret (not the secret
// itself).
func TestLoadServerDashboard(t *testing.T) {
	base := map[string]string{"GITHUB_APP_INTEGRATION_ID": "1", "GITHUB_APP_WEBHOOK_SECRET": "hook-secret", "GITHUB_APP_PRIVATE_KEY": pemKey}
	load := func(extra map[string]string) (*Server, error) {
		env := map[string]string{}
		for k, v := range base {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		return LoadServer(func(k string) string { return env[k] }, func(string) ([]byte, error) { return nil, errors.New("no file") })
	}
	s, err := load(map[string]string{"DEBATEBOT_PUBLIC_URL": "https://debatebot.example.com/", "GITHUB_OAUTH_CLIENT_ID": "Iv1.abc", "GITHUB_OAUTH_CLIENT_SECRET": "shh"})
	if err != nil {
		t.Fatal(err)
	}
	if s.PublicURL != "https://debatebot.example.com" || s.OAuthClientID != "Iv1.abc" || s.OAuthClientSecret != "shh" {
		t.Errorf("dashboard settings = %q %q %q", s.PublicURL, s.OAuthClientID, s.OAuthClientSecret)
	}
	if len(s.SessionKey) != 32 || string(s.SessionKey) == "hook-secret" || string(s.SessionKey) != string(SessionKeyFrom("hook-secret")) {
		t.Errorf("derived session key %x", s.SessionKey)
	}
	other, _ := load(map[string]string{"GITHUB_APP_WEBHOOK_SECRET": "another"})
	if string(other.SessionKey) == string(s.SessionKey) {
		t.Error("two webhook secrets derive one session key")
	}
	own, err := load(map[string]string{"DEBATEBOT_SESSION_KEY": strings.Repeat("k", 40)})
	if err != nil || string(own.SessionKey) != strings.Repeat("k", 40) {
		t.Errorf("DEBATEBOT_SESSION_KEY not used: %q (%v)", own.SessionKey, err)
	}
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"short session key":     {map[string]string{"DEBATEBOT_SESSION_KEY": "short"}, "DEBATEBOT_SESSION_KEY: shorter than 32"},
		"client without secret": {map[string]string{"GITHUB_OAUTH_CLIENT_ID": "Iv1.abc"}, "set both"},
		"public URL not a URL":  {map[string]string{"DEBATEBOT_PUBLIC_URL": "debatebot.example.com"}, "DEBATEBOT_PUBLIC_URL"},
	} {
		if _, err := load(tc.env); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// Each repository's default budget: the defaults, or the environment's, 0 for no limit.
func TestLoadServerBudget(t *testing.T) {
	env := map[string]string{"GITHUB_APP_INTEGRATION_ID": "1", "GITHUB_APP_WEBHOOK_SECRET": "s", "GITHUB_APP_PRIVATE_KEY": pemKey}
	s, err := LoadServer(func(k string) string { return env[k] }, func(string) ([]byte, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if s.RepoDebatesPerHour != DefaultRepoDebatesPerHour || s.RepoTokensPerDay != DefaultRepoTokensPerDay {
		t.Errorf("budget = %d debates, %d tokens; want the defaults", s.RepoDebatesPerHour, s.RepoTokensPerDay)
	}
	env["DEBATEBOT_REPO_DEBATES_PER_HOUR"], env["DEBATEBOT_REPO_TOKENS_PER_DAY"] = "0", "5000000000"
	if s, err = LoadServer(func(k string) string { return env[k] }, func(string) ([]byte, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if s.RepoDebatesPerHour != 0 || s.RepoTokensPerDay != 5_000_000_000 {
		t.Errorf("budget = %d debates, %d tokens; want 0 and 5000000000", s.RepoDebatesPerHour, s.RepoTokensPerDay)
	}
}
