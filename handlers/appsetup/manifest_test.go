package appsetup

import (
	"strings"
	"testing"
)

// A broken app.yml, or a public URL that is not one, is a clear error before any page is shown.
func TestParseManifestErrors(t *testing.T) {
	good := "name: debatebot\nurl: https://github.com/debatebot/debatebot\nhook_attributes:\n  url: https://YOUR-HOST/api/github/hook\ndefault_permissions:\n  checks: write\ndefault_events:\n  - check_run\n"
	if m, err := ParseManifest([]byte(good), "https://bot.example.com/"); err != nil || m.HookAttributes.URL != "https://bot.example.com/api/github/hook" || !m.HookAttributes.Active || m.RedirectURL != "https://bot.example.com/setup/callback" {
		t.Fatalf("good manifest: %+v, %v", m, err)
	}
	for name, tc := range map[string]struct{ yml, public, want string }{
		"unknown key":     {good + "permissions: {}\n", "https://bot.example.com", "field permissions not found"},
		"bad access":      {strings.Replace(good, "checks: write", "checks: admin", 1), "https://bot.example.com", `default_permissions.checks is "admin"`},
		"no events":       {strings.Replace(good, "default_events:\n  - check_run\n", "", 1), "https://bot.example.com", "default_events must be set"},
		"bad public URL":  {good, "bot.example.com", `public URL "bot.example.com" is not an http(s) URL`},
		"not YAML at all": {"name: [", "https://bot.example.com", "app.yml"},
	} {
		if _, err := ParseManifest([]byte(tc.yml), tc.public); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}
