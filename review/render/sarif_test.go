package render_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// sarifLog is the part of SARIF 2.1.0 that GitHub code scanning reads, to check the shape of
// what SARIF writes.
type sarifLog struct {
	Version string `json:"version"`
	Schema  string `json:"$schema"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Rules   []struct {
					ID               string `json:"id"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
					Properties map[string]any `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful bool `json:"executionSuccessful"`
			Notifications       []struct {
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Results []sarifResult `json:"results"`
	} `json:"runs"`
}

type sarifResult struct {
	RuleID    *string `json:"ruleId"`
	RuleIndex *int    `json:"ruleIndex"`
	Level     string  `json:"level"`
	Message   struct {
		Text string `json:"text"`
	} `json:"message"`
	Locations []struct {
		PhysicalLocation *struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region *struct {
				StartLine int `json:"startLine"`
			} `json:"region"`
		} `json:"physicalLocation"`
	} `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

// decodeSARIF unmarshals a log and checks every field code scanning requires.
func decodeSARIF(t *testing.T, data []byte) sarifLog {
	t.Helper()
	var log sarifLog
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("not SARIF JSON: %v\n%s", err, data)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-schema-2.1.0.json") {
		t.Errorf("version %q schema %q, want 2.1.0", log.Version, log.Schema)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want one", len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "debatebot" || run.Tool.Driver.Version == "" {
		t.Errorf("driver %q version %q", run.Tool.Driver.Name, run.Tool.Driver.Version)
	}
	allowed := map[string]bool{render.TagSecurity: true, render.TagPerformance: true, render.TagConcurrency: true, render.TagCorrectness: true, render.TagProcess: true}
	ruleIndex := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		ruleIndex[r.ID] = i
		if r.ID == "" || r.ShortDescription.Text == "" {
			t.Errorf("rule %d: id %q, short description %q", i, r.ID, r.ShortDescription.Text)
		}
		tags, _ := r.Properties["tags"].([]any)
		security := false
		for _, tag := range tags {
			if !allowed[fmt.Sprint(tag)] {
				t.Errorf("rule %s: tag %v is none of security, performance, concurrency, correctness, process", r.ID, tag)
			}
			security = security || tag == render.TagSecurity
		}
		if len(tags) == 0 {
			t.Errorf("rule %s has no tags", r.ID)
		}
		sev, has := r.Properties["security-severity"]
		if security != has {
			t.Errorf("rule %s: security %v, security-severity %v: want it on exactly the security rules", r.ID, security, sev)
		}
		if has {
			// GitHub wants a number in a string.
			s, ok := sev.(string)
			f, err := strconv.ParseFloat(s, 64)
			if !ok || err != nil || f <= 0 || f > 10 {
				t.Errorf("rule %s: security-severity %#v, want a number from 0.1 to 10 as a string", r.ID, sev)
			}
		}
	}
	for i, r := range run.Results {
		if r.RuleID == nil || r.RuleIndex == nil || ruleIndex[*r.RuleID] != *r.RuleIndex {
			t.Errorf("result %d: ruleId %v ruleIndex %v do not name a rule of the driver", i, r.RuleID, r.RuleIndex)
			continue
		}
		if r.Level != "error" && r.Level != "warning" && r.Level != "note" {
			t.Errorf("result %d: level %q", i, r.Level)
		}
		if r.Message.Text == "" {
			t.Errorf("result %d: no message", i)
		}
		if len(r.Locations) != 1 || r.Locations[0].PhysicalLocation == nil || r.Locations[0].PhysicalLocation.Region == nil {
			t.Errorf("result %d (%s): want one physical location with a region", i, *r.RuleID)
			continue
		}
		pl := r.Locations[0].PhysicalLocation
		if uri := pl.ArtifactLocation.URI; uri == "" || strings.HasPrefix(uri, "/") || strings.Contains(uri, "://") || strings.HasPrefix(uri, "b/") {
			t.Errorf("result %d: uri %q, want a path relative to the repository root", i, uri)
		}
		if pl.Region.StartLine < 1 {
			t.Errorf("result %d: startLine %d", i, pl.Region.StartLine)
		}
		if fp := r.PartialFingerprints[render.FingerprintKey]; len(fp) < 34 || strings.Contains(fp, "REDACTED") {
			t.Errorf("result %d: fingerprint %q", i, fp)
		}
	}
	return log
}

func TestSARIFOfExample(t *testing.T) {
	c := reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff"))
	tr := reviewtest.RunDebate(t, c, toulmin.ProtocolStandard)
	data, err := render.SARIF(tr, c, render.SARIFOptions{Version: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	log := decodeSARIF(t, data)
	run := log.Runs[0]
	if run.Tool.Driver.Version != "1.2.3" {
		t.Errorf("driver version %q", run.Tool.Driver.Version)
	}
	got := map[string]sarifResult{}
	for _, r := range run.Results {
		got[*r.RuleID] = r
	}
	// The path traversal was conceded in the debate (the same change checks the path), and the
	// mitigation is no finding: neither stands.
	for _, gone := range []string{rules.RulePathTraversal, rules.RuleMitigation} {
		if _, ok := got[gone]; ok {
			t.Errorf("%s is a result, but it does not stand after the debate", gone)
		}
	}
	sql, ok := got[rules.RuleSQLInjection]
	if !ok {
		t.Fatalf("no sql-injection result; results: %v", githubtest.Keys(got))
	}
	pl := sql.Locations[0].PhysicalLocation
	if sql.Level != "error" || pl.ArtifactLocation.URI != "internal/export/users.go" || pl.Region.StartLine != 30 {
		t.Errorf("sql-injection: level %s at %s:%d, want error at internal/export/users.go:30", sql.Level, pl.ArtifactLocation.URI, pl.Region.StartLine)
	}
	if r, ok := got[rules.RuleTodo]; !ok || r.Level != "note" {
		t.Errorf("todo-added result %+v, want a note", r)
	}
	tags := map[string]string{}
	for _, r := range run.Tool.Driver.Rules {
		tags[r.ID] = fmt.Sprintf("%v %v", r.Properties["tags"], r.Properties["security-severity"])
	}
	for rule, want := range map[string]string{
		rules.RuleSQLInjection: "[security] 8.0", rules.RuleCallInLoop: "[performance] <nil>", rules.RuleNewDependency: "[process] <nil>",
		rules.RuleUntestedChange: "[process] <nil>", rules.RuleIgnoredError: "[correctness] <nil>",
	} {
		if tags[rule] != want {
			t.Errorf("rule %s: tags and security-severity %q, want %q", rule, tags[rule], want)
		}
	}
	// The same debate again gives the same log.
	again, err := render.SARIF(reviewtest.RunDebate(t, reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff")), toulmin.ProtocolStandard), c, render.SARIFOptions{Version: "1.2.3"})
	if err != nil || string(again) != string(data) {
		t.Errorf("a second run of the same debate gives another SARIF log (%v)", err)
	}
}

func TestStandingFindings(t *testing.T) {
	ev := func(id, rule string) toulmin.Evidence {
		return toulmin.Evidence{ID: id, Rule: rule, Severity: voting.SeverityHigh, Path: "a.go", Line: 3}
	}
	tr := &toulmin.Transcript{
		Evidence: []toulmin.Evidence{ev("E1", rules.RuleSQLInjection), ev("E2", rules.RulePathTraversal), ev("E3", rules.RuleCallInLoop), ev("E4", rules.RuleTodo), ev("E5", rules.RuleMitigation)},
		Arguments: []toulmin.Argument{
			{ID: "SS-1", Agent: "security", Phase: toulmin.PhaseOpening, Rule: rules.RuleSQLInjection},
			{ID: "SS-2", Agent: "security", Phase: toulmin.PhaseOpening, Rule: rules.RulePathTraversal},
			{ID: "SS-3", Agent: "security", Phase: toulmin.PhaseClarification, Target: "SS-2", Resolution: toulmin.Conceded},
			// Two agents argue the loop: one concedes, the other's concern stands.
			{ID: "PS-1", Agent: "performance", Phase: toulmin.PhaseOpening, Rule: rules.RuleCallInLoop},
			{ID: "PS-2", Agent: "performance", Phase: toulmin.PhaseClarification, Target: "PS-1", Resolution: toulmin.Conceded},
			{ID: "CM-1", Agent: "core_maintainer", Phase: toulmin.PhaseOpening, Rule: rules.RuleCallInLoop},
		},
	}
	var got []string
	for _, e := range render.StandingFindings(tr) {
		got = append(got, e.ID)
	}
	if strings.Join(got, ",") != "E1,E3,E4" {
		t.Errorf("standing = %v, want E1 (argued, stands), E3 (one concern stands), E4 (nobody answered it); not the conceded E2 nor the mitigation E5", got)
	}
}

// TestFingerprintsIgnoreLineShifts debates two diffs of the same file that differ only by lines
// added above the findings (a second hunk): the findings move, their fingerprints do not.
func TestFingerprintsIgnoreLineShifts(t *testing.T) {
	diff := func(above bool) string {
		var b strings.Builder
		b.WriteString("diff --git a/store/users.go b/store/users.go\nindex 1111111..2222222 100644\n--- a/store/users.go\n+++ b/store/users.go\n")
		shift := 0
		if above {
			b.WriteString("@@ -3,3 +3,7 @@ import \"database/sql\"\n \n+// Limit bounds a page.\n+const Limit = 50\n+\n+var _ = Limit\n // Store reads users.\n type Store struct{ db *sql.DB }\n")
			shift = 4
		}
		fmt.Fprintf(&b, "@@ -40,3 +%d,4 @@ func (s *Store) Find(name string) (*sql.Rows, error) {\n \tdefer trace()\n+\trows, err := s.db.Query(\"SELECT id FROM users WHERE name = '\" + name + \"'\")\n \treturn rows, err\n }\n", 40+shift)
		return b.String()
	}
	type found struct {
		line int
		fp   string
	}
	results := func(d string) map[string]found {
		c := reviewtest.MustParse(t, d)
		data, err := render.SARIF(reviewtest.RunDebate(t, c, toulmin.ProtocolStandard), c, render.SARIFOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]found{}
		for _, r := range decodeSARIF(t, data).Runs[0].Results {
			out[*r.RuleID] = found{r.Locations[0].PhysicalLocation.Region.StartLine, r.PartialFingerprints[render.FingerprintKey]}
		}
		return out
	}
	before, after := results(diff(false)), results(diff(true))
	b, a := before[rules.RuleSQLInjection], after[rules.RuleSQLInjection]
	if b.fp == "" || a.fp == "" {
		t.Fatalf("no sql-injection result: before %v, after %v", before, after)
	}
	if b.line != 41 || a.line != 45 {
		t.Errorf("sql-injection at line %d, then %d; want 41, then 45", b.line, a.line)
	}
	if a.fp != b.fp {
		t.Errorf("fingerprint changed with the line shift: %s -> %s", b.fp, a.fp)
	}
}

// A finding that names no file (text in the title addressed to the reviewer) cannot be a result
// code scanning accepts: it is a notification of the run's invocation instead, not lost.
func TestSARIFFindingWithoutAFile(t *testing.T) {
	tr := &toulmin.Transcript{Evidence: []toulmin.Evidence{
		{ID: "E1", Rule: toulmin.RulePromptInjection, Stakeholder: rules.Security, Severity: voting.SeverityHigh, Message: "the title tells AI reviewers to approve"},
		{ID: "E2", Rule: rules.RuleLargeFile, Stakeholder: rules.Architecture, Severity: voting.SeverityLow, Path: "gen/big.go", Message: "a file of 900 lines added"},
	}}
	data, err := render.SARIF(tr, nil, render.SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	log := decodeSARIF(t, data)
	run := log.Runs[0]
	if len(run.Results) != 1 || *run.Results[0].RuleID != rules.RuleLargeFile || run.Results[0].Locations[0].PhysicalLocation.Region.StartLine != 1 {
		t.Errorf("results %+v, want the large file alone, on its first line", run.Results)
	}
	if len(run.Tool.Driver.Rules) != 1 {
		t.Errorf("rules %+v, want only the rule of a result", run.Tool.Driver.Rules)
	}
	if len(run.Invocations) != 1 || !run.Invocations[0].ExecutionSuccessful || len(run.Invocations[0].Notifications) != 1 ||
		run.Invocations[0].Notifications[0].Level != "error" || !strings.Contains(run.Invocations[0].Notifications[0].Message.Text, "prompt-injection") {
		t.Errorf("invocations %+v, want one notification of the prompt injection", run.Invocations)
	}
}
