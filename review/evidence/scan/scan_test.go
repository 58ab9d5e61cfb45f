package scan

import (
	"fmt"
	"strings"
	"testing"

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
