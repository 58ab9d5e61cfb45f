package scan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/voting"
)

func dump(found []Finding) string {
	var b strings.Builder
	for _, f := range found {
		fmt.Fprintf(&b, "  %s %s %s:%d: %s\n", f.Severity, f.Rule, f.Path, f.Line, f.Message)
	}
	return b.String()
}

func TestCorroborateKeepsTheMoreSevereAndApartFindings(t *testing.T) {
	found := []Finding{
		{Source: "go-ast", Rule: rules.RuleCommandInjection, Severity: voting.SeverityMedium, Path: "a.go", Line: 10, Message: "exec"},
		{Source: rules.AnalyzerGosec, Rule: "gosec:G204", Severity: voting.SeverityHigh, Path: "a.go", Line: 12, Message: "subprocess"},
		{Source: rules.AnalyzerGosec, Rule: "gosec:G204", Severity: voting.SeverityHigh, Path: "a.go", Line: 40, Message: "another"},
		{Source: "go-ast", Rule: rules.RuleSQLInjection, Severity: voting.SeverityHigh, Path: "a.go", Line: 11, Message: "sql"},
		{Source: "go-ast", Rule: rules.RuleCommandInjection, Severity: voting.SeverityHigh, Path: "b.go", Line: 12, Message: "other file"},
	}
	if rules.Rules["gosec:G204"].CWE != "CWE-78" {
		t.Fatalf("gosec G204 has CWE %q", rules.Rules["gosec:G204"].CWE)
	}
	got := corroborate(found)
	if len(got) != 4 {
		t.Fatalf("corroborate kept %d findings, want 4:\n%s", len(got), dump(got))
	}
	if got[0].Rule != "gosec:G204" || got[0].Line != 12 || got[0].Message != "subprocess; also found by go-ast (command-injection at line 10)" {
		t.Errorf("merged finding = %+v", got[0])
	}
	if got[1].Line != 40 || got[2].Rule != rules.RuleSQLInjection || got[3].Path != "b.go" {
		t.Errorf("findings of other places or weaknesses were merged:\n%s", dump(got))
	}
}

func TestSharedIsMadeOncePerScan(t *testing.T) {
	c := &change.Change{}
	made := 0
	mk := func() any { made++; return made }
	s := New(c)
	if a, b := s.Shared("load", mk), s.Shared("load", mk); a != 1 || b != 1 || made != 1 {
		t.Errorf("one scan: got %v and %v, made %d times", a, b, made)
	}
	if v := s.Shared("other", mk); v != 2 {
		t.Errorf("another key shares the first's value: %v", v)
	}
	if v := New(c).Shared("load", mk); v != 3 {
		t.Errorf("another scan shares the first's value: %v", v)
	}
}

// runsNamed is an analyzer that records whether the scan runs the analyzer named ask.
type runsNamed struct {
	name, ask string
	got       *bool
}

func (a runsNamed) Name() string    { return a.name }
func (a runsNamed) Analyze(s *Scan) { *a.got = s.Runs(a.ask) }

func TestRunsNamesTheGatheringsAnalyzers(t *testing.T) {
	var present, absent bool
	_, err := Gather(t.Context(), &change.Change{}, []Analyzer{
		runsNamed{name: "a", ask: "b", got: &present},
		runsNamed{name: "b", ask: "c", got: &absent},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !present || absent {
		t.Errorf("Runs(b) = %v, Runs(c) = %v in a gathering of a and b", present, absent)
	}
	if !New(&change.Change{}).Runs("anything") {
		t.Errorf("a scan outside a gathering does not run every analyzer")
	}
}

func TestTypedFamiliesShareOneRank(t *testing.T) {
	var as []Analyzer
	for _, n := range []string{"secrets", "go-ast", rules.AnalyzerGoVet, rules.AnalyzerStaticcheck, rules.AnalyzerGosec, "lines"} {
		as = append(as, runsNamed{name: n, got: new(bool)})
	}
	if got := fmt.Sprint(analyzerRanks(as)); got != "[0 1 2 2 2 5]" {
		t.Errorf("ranks = %s", got)
	}
}
