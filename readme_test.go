package debatebot_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestREADMEListsAppYML: the App setup's list of permissions and events in README.md is the
// one app.yml asks for (the manifest the setup page registers), permission by permission, with
// the same access, and event by event.
func TestREADMEListsAppYML(t *testing.T) {
	data, err := os.ReadFile("app.yml")
	if err != nil {
		t.Fatal(err)
	}
	var app struct {
		Permissions map[string]string `yaml:"default_permissions"`
		Events      []string          `yaml:"default_events"`
	}
	if err := yaml.Unmarshal(data, &app); err != nil {
		t.Fatalf("app.yml: %v", err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "<!-- app.yml:")
	end := strings.Index(text, "<!-- /app.yml -->")
	if start < 0 || end < start {
		t.Fatal("README.md has no list of the App's permissions and events between <!-- app.yml: ... --> and <!-- /app.yml -->")
	}
	section := text[start:end]
	perms := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\s*\\| `([a-z_]+)` \\| (read|write) \\|").FindAllStringSubmatch(section, -1) {
		if _, dup := perms[m[1]]; dup {
			t.Errorf("README.md lists permission %s twice", m[1])
		}
		perms[m[1]] = m[2]
	}
	for name, access := range app.Permissions {
		if perms[name] != access {
			t.Errorf("app.yml asks for %s: %s; README.md lists %q", name, access, perms[name])
		}
	}
	for name, access := range perms {
		if _, ok := app.Permissions[name]; !ok {
			t.Errorf("README.md lists %s: %s, which app.yml does not ask for", name, access)
		}
	}
	evIdx := strings.Index(section, "Events:")
	if evIdx < 0 {
		t.Fatal("README.md's list has no Events: line")
	}
	var events []string
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(section[evIdx:], -1) {
		events = append(events, m[1])
	}
	want := slices.Clone(app.Events)
	slices.Sort(want)
	slices.Sort(events)
	if !slices.Equal(events, want) {
		t.Errorf("README.md lists the events %v; app.yml subscribes to %v", events, want)
	}
}

// TestUserDocsNameNoProtocolDocument: what a user reads to install and use debatebot (the
// README, app.yml, action.yml, the example configuration) never names the internal protocol
// documents the product was specified from ("seed 004", "the seed's rules").
func TestUserDocsNameNoProtocolDocument(t *testing.T) {
	internal := regexp.MustCompile(`(?i)\bseeds?\b(\s+0\d\d|'s)`)
	for _, name := range []string{"README.md", "app.yml", "action.yml", ".github/debatebot.yml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := internal.FindString(line); m != "" {
				t.Errorf("%s:%d names an internal document (%q): %s", name, i+1, m, strings.TrimSpace(line))
			}
		}
	}
}
