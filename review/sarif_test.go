package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/toulmin"
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
	allowed := map[string]bool{TagSecurity: true, TagPerformance: true, TagConcurrency: true, TagCorrectness: true, TagProcess: true}
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
			security = security || tag == TagSecurity
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
		if fp := r.PartialFingerprints[FingerprintKey]; len(fp) < 34 || strings.Contains(fp, "REDACTED") {
			t.Errorf("result %d: fingerprint %q", i, fp)
		}
	}
	return log
}

func TestSARIFOfExample(t *testing.T) {
	c := readChange(t, filepath.Join("..", "examples", "admin-export.diff"))
	tr := runDebate(t, c, toulmin.ProtocolStandard)
	data, err := SARIF(tr, c, SARIFOptions{Version: "1.2.3"})
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
	again, err := SARIF(runDebate(t, readChange(t, filepath.Join("..", "examples", "admin-export.diff")), toulmin.ProtocolStandard), c, SARIFOptions{Version: "1.2.3"})
	if err != nil || string(again) != string(data) {
		t.Errorf("a second run of the same debate gives another SARIF log (%v)", err)
	}
}

func TestStandingFindings(t *testing.T) {
	ev := func(id, rule string) toulmin.Evidence {
		return toulmin.Evidence{ID: id, Rule: rule, Severity: toulmin.SeverityHigh, Path: "a.go", Line: 3}
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
	for _, e := range StandingFindings(tr) {
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
		c := mustParse(t, d)
		data, err := SARIF(runDebate(t, c, toulmin.ProtocolStandard), c, SARIFOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]found{}
		for _, r := range decodeSARIF(t, data).Runs[0].Results {
			out[*r.RuleID] = found{r.Locations[0].PhysicalLocation.Region.StartLine, r.PartialFingerprints[FingerprintKey]}
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

func TestFingerprintsOfGoFunctions(t *testing.T) {
	// The same line in two functions is two findings with two fingerprints; the same line twice
	// in one function is told apart by its order.
	c := changeOf(t, map[string]string{"a.go": "package a\n\nfunc One() {\n\tx()\n\tx()\n}\n\nfunc (s *S[T]) Two() {\n\tx()\n}\n"})
	fp := newFingerprinter(c)
	e := func(line int) string {
		return fp.fingerprint(toulmin.Evidence{Rule: rules.RuleIgnoredError, Path: "a.go", Line: line, Message: "m"})
	}
	one1, one2, two := e(4), e(5), e(9)
	if one1[:32] != one2[:32] || one1 == one2 || !strings.HasSuffix(one2, ":2") {
		t.Errorf("the same line twice in One: %s and %s, want one hash with :1 and :2", one1, one2)
	}
	if two[:32] == one1[:32] {
		t.Errorf("the same line in One and S.Two has one fingerprint %s", two)
	}
	if got := fp.function(c.File("a.go"), 9); got != "S.Two" {
		t.Errorf("function around line 9 = %q, want S.Two", got)
	}
}

func TestAnnotationsBatchedByFifty(t *testing.T) {
	srv := githubtest.New(t)
	ctx := context.Background()
	gh := ghClient(t, srv)
	var ev []toulmin.Evidence
	sevs := []toulmin.Severity{toulmin.SeverityCritical, toulmin.SeverityMedium, toulmin.SeverityLow}
	for i := 0; i < 123; i++ {
		ev = append(ev, toulmin.Evidence{ID: fmt.Sprintf("E%d", i+1), Rule: rules.RuleTodo, Severity: sevs[i%3], Path: fmt.Sprintf("f%03d.go", i), Line: i % 7, Message: fmt.Sprintf("finding %d", i)})
	}
	ev = append(ev, toulmin.Evidence{ID: "E124", Rule: toulmin.RulePromptInjection, Severity: toulmin.SeverityHigh, Message: "the title addresses the reviewer"})
	tr := &toulmin.Transcript{DebateID: "deb-1", Evidence: ev}
	tr.Record.HeadSHA, tr.Record.Decision = "abc123", "approve_with_changes"
	p := NewPublisher(gh, examplePR)
	if err := p.StartCheck(ctx, "abc123"); err != nil {
		t.Fatal(err)
	}
	// The third request fails: the retry goes on with the rest, concluding once and repeating
	// nothing.
	n := 0
	srv.FailIf(func(c githubtest.Call) bool {
		if c.Method == "PATCH" {
			n++
			return n == 3
		}
		return false
	}, 502, 1)
	if err := p.FinishCheck(ctx, tr); err == nil || !strings.Contains(err.Error(), "100 of 123 annotations sent") {
		t.Fatalf("FinishCheck = %v, want the failure of the third request", err)
	}
	if err := p.FinishCheck(ctx, tr); err != nil {
		t.Fatal(err)
	}
	runs := srv.Checks("acme/shop")
	if len(runs) != 1 || runs[0].Conclusion != "neutral" || runs[0].Conclusions != 1 {
		t.Fatalf("check runs %+v, want one concluded once", runs)
	}
	anns := runs[0].Annotations
	if len(anns) != 123 {
		t.Fatalf("%d annotations, want 123 (each finding with a file once)", len(anns))
	}
	for i, a := range anns {
		want := map[toulmin.Severity]string{toulmin.SeverityCritical: "failure", toulmin.SeverityMedium: "warning", toulmin.SeverityLow: "notice"}[sevs[i%3]]
		if a.Path != fmt.Sprintf("f%03d.go", i) || a.StartLine != max(i%7, 1) || a.EndLine != a.StartLine || a.Level != want ||
			!strings.HasPrefix(a.Message, fmt.Sprintf("finding %d", i)) || !strings.Contains(a.Title, "todo-added") {
			t.Errorf("annotation %d = %+v", i, a)
		}
	}
	for _, c := range srv.Calls() {
		if c.Method != "PATCH" {
			continue
		}
		var in github.UpdateCheckRunOptions
		if err := json.Unmarshal([]byte(c.Body), &in); err != nil {
			t.Fatalf("update body: %v", err)
		}
		if in.Output != nil && len(in.Output.Annotations) > githubtest.MaxAnnotations {
			t.Errorf("a request carried %d annotations", len(in.Output.Annotations))
		}
	}
}

func TestFakeGitHubRefusesMoreThanFiftyAnnotations(t *testing.T) {
	srv := githubtest.New(t)
	gh := ghClient(t, srv)
	ctx := context.Background()
	run, _, err := gh.Checks.CreateCheckRun(ctx, "acme", "shop", github.CreateCheckRunOptions{Name: "x", HeadSHA: "abc123"})
	if err != nil {
		t.Fatal(err)
	}
	var anns []*github.CheckRunAnnotation
	for i := 0; i < 51; i++ {
		anns = append(anns, &github.CheckRunAnnotation{Path: github.String("a.go"), StartLine: github.Int(1), EndLine: github.Int(1), AnnotationLevel: github.String("notice"), Message: github.String("m")})
	}
	_, _, err = gh.Checks.UpdateCheckRun(ctx, "acme", "shop", run.GetID(), github.UpdateCheckRunOptions{Name: "x", Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String("s"), Annotations: anns}})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || er.Message != "Invalid request.\n\nNo more than 50 items are allowed; 51 were supplied." {
		t.Errorf("51 annotations: %v, want GitHub's 422", err)
	}
	if got := srv.Checks("acme/shop")[0].Annotations; len(got) != 0 {
		t.Errorf("a refused request kept %d annotations", len(got))
	}
}

// A finding that names no file (text in the title addressed to the reviewer) cannot be a result
// code scanning accepts: it is a notification of the run's invocation instead, not lost.
func TestSARIFFindingWithoutAFile(t *testing.T) {
	tr := &toulmin.Transcript{Evidence: []toulmin.Evidence{
		{ID: "E1", Rule: toulmin.RulePromptInjection, Stakeholder: rules.Security, Severity: toulmin.SeverityHigh, Message: "the title tells AI reviewers to approve"},
		{ID: "E2", Rule: rules.RuleLargeFile, Stakeholder: rules.Architecture, Severity: toulmin.SeverityLow, Path: "gen/big.go", Message: "a file of 900 lines added"},
	}}
	data, err := SARIF(tr, nil, SARIFOptions{})
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
