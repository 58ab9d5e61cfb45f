package workflow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/pipeline"
)

// The event's payload says which pull request is debated, or why nothing is.
func TestReadActionEvent(t *testing.T) {
	for _, c := range []struct {
		name, event, payload string
		number               int
		trigger, requester   string
		skip                 string
	}{
		{"opened", "pull_request", `{"action":"opened","pull_request":{"number":7,"head":{"sha":"abc"}},"sender":{"login":"ann","type":"User"}}`, 7, "pull_request.opened", "", ""},
		{"closed", "pull_request", `{"action":"closed","pull_request":{"number":7}}`, 0, "", "", "pull_request.closed is not debated"},
		{"other label", "pull_request_target", `{"action":"labeled","label":{"name":"bug"},"pull_request":{"number":7}}`, 0, "", "", `with the label "bug"`},
		{"debate command", "issue_comment", `{"action":"created","issue":{"number":9,"pull_request":{"url":"x"}},"comment":{"id":3,"body":"/debate fast-track"},"sender":{"login":"bob","type":"User"}}`, 9, "issue_comment.created", "bob", ""},
		{"command on an issue", "issue_comment", `{"action":"created","issue":{"number":9},"comment":{"id":3,"body":"/debate"}}`, 0, "", "", "design debates on issues are the App's"},
		{"human review", "issue_comment", `{"action":"created","issue":{"number":9,"pull_request":{}},"comment":{"id":3,"body":"/human-review"}}`, 0, "", "", "needs the App's durable state"},
		{"push", "push", `{}`, 0, "", "", "the push event is not handled"},
	} {
		path := filepath.Join(t.TempDir(), "event.json")
		if err := os.WriteFile(path, []byte(c.payload), 0o644); err != nil {
			t.Fatal(err)
		}
		ev, skip, err := readActionEvent(c.event, path)
		switch {
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.skip != "":
			if ev != nil || !strings.Contains(skip, c.skip) {
				t.Errorf("%s: event %+v, skip %q; want skipped with %q", c.name, ev, skip, c.skip)
			}
		case ev == nil || ev.number != c.number || ev.trigger != c.trigger || ev.requester != c.requester:
			t.Errorf("%s: event %+v (skip %q), want #%d %s by %q", c.name, ev, skip, c.number, c.trigger, c.requester)
		}
	}
}

// A payload the action cannot read is bad input (exit 2), naming the file.
func TestReadActionEventRefusesBadPayload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ue *pipeline.UsageError
	if _, _, err := readActionEvent("pull_request", path); !errors.As(err, &ue) || !strings.Contains(err.Error(), path) {
		t.Errorf("bad JSON: %v, want a usage error naming %s", err, path)
	}
	if _, _, err := readActionEvent("pull_request", filepath.Join(t.TempDir(), "missing.json")); !errors.As(err, &ue) || strings.Count(err.Error(), "missing.json") != 1 {
		t.Errorf("missing file: %v, want a usage error naming the file once", err)
	}
}
