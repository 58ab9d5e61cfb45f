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
