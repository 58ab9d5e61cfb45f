package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/gittest"
)

// The offline debate of a git range argues from the type-checked findings new in head: a lost
// cancel on a changed line, and a nil dereference on a line the change did not touch (its guard
// was removed two lines above), while the nil dereference the base already had is left out.
func TestDebateGitRangeTypeCheckedFindings(t *testing.T) {
	dir := gittest.FromTrees(t, "../../review/evidence/testdata/basic/base", "../../review/evidence/testdata/basic/head")
	code, out, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rec struct {
		Decision struct {
			Decision string   `json:"decision"`
			Required []string `json:"required_changes"`
		} `json:"decision"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	t.Logf("record: %+v", rec.Decision)
	if rec.Decision.Decision != "request_changes" {
		t.Errorf("decision %q, want request_changes", rec.Decision.Decision)
	}
	for _, want := range []string{"app/app.go:64:", "app/app.go:39:"} {
		found := false
		for _, r := range rec.Decision.Required {
			found = found || strings.HasPrefix(r, want)
		}
		if !found {
			t.Errorf("no required change at %s: %q", want, rec.Decision.Required)
		}
	}
	for _, r := range rec.Decision.Required {
		if strings.HasPrefix(r, "app/app.go:72:") {
			t.Errorf("the pre-existing nil dereference in Old is required: %q", r)
		}
	}

	code, md, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"type-checked Go analysis (go vet passes, staticcheck, gosec) of 2 package(s) in base and head: example.com/basic/app, example.com/basic/broken",
		"1 pre-existing finding(s) left out",
		"degraded: example.com/basic/broken (type information incomplete",
		"| `app/app.go:64` | nilness |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", md)
	}
}

// gosec's taint rules find what the change lets request values reach: the offline security
// stakeholder cites them at their lines in the decision record, and Server.Old's command
// injection, which the base already had, is left out.
func TestDebateGitRangeGosecFindings(t *testing.T) {
	dir := gittest.FromTrees(t, "../../review/evidence/testdata/gosec/base", "../../review/evidence/testdata/gosec/head")
	code, out, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rec struct {
		Decision struct {
			Decision string   `json:"decision"`
			Required []string `json:"required_changes"`
		} `json:"decision"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	// The command injection is critical in gosec's taint rules: unrebutted, it escalates.
	if rec.Decision.Decision != "escalate" {
		t.Errorf("decision %q, want escalate", rec.Decision.Decision)
	}
	for _, want := range []string{
		"web/web.go:30: use a parameterised query: placeholders in the SQL, request values as arguments", // G701
		"web/web.go:68: run a fixed program with request values as checked arguments",                    // G702
		"web/web.go:76: resolve the request's path inside a fixed root",                                  // G703
		"web/web.go:87: fetch only URLs whose host is on an allowlist",                                   // G704
	} {
		found := false
		for _, r := range rec.Decision.Required {
			found = found || strings.HasPrefix(r, want)
		}
		if !found {
			t.Errorf("no required change %q: %q", want, rec.Decision.Required)
		}
	}
	for _, r := range rec.Decision.Required {
		if strings.HasPrefix(r, "web/web.go:16:") || strings.HasPrefix(r, "web/web.go:21:") {
			t.Errorf("a finding of Server.Old, which the base had, is required: %q", r)
		}
	}

	code, md, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"type-checked Go analysis (go vet passes, staticcheck, gosec) of 1 package(s) in base and head: example.com/gosecdemo/web; 8 new finding(s), 3 pre-existing finding(s) left out",
		"| critical | `web/web.go:68` | gosec:G702 | security | Command injection via taint analysis: os/exec.Command (in Server.Convert) |",
		"| high | `web/web.go:30` | gosec:G701 | security | SQL injection via taint analysis: (*database/sql.DB).Query (in Server.Names) |",
		"| high | `web/web.go:87` | gosec:G704 | security | SSRF via taint analysis: net/http.Get (in Server.Proxy) |",
		"**Backing:** gosec G702, CWE-78: https://cwe.mitre.org/data/definitions/78.html",
		"**Escalated (critical_finding_unrebutted):** Command injection via taint analysis: os/exec.Command (in Server.Convert) at web/web.go:68",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", md)
	}
}
