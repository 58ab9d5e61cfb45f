package review_test

import (
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// The findings become evidence in their order, numbered from E1, with every field the scan
// filled (the cited line, its fix, what a mitigation weakens) and the stakeholder of the rule.
func TestEvidenceNumbersInOrderAndCarriesTheScansFields(t *testing.T) {
	ev := review.Evidence([]scan.Finding{
		{Severity: voting.SeverityHigh, Rule: rules.RuleSQLInjection, Source: "go-ast", Path: "a.go", Line: 3, Message: "query", Snippet: "db.Query(q)", Replacement: "db.Query(q, a)"},
		{Severity: voting.SeverityLow, Rule: rules.RuleMitigation, Source: "go-ast", Path: "a.go", Line: 2, Message: "check", Mitigates: rules.RulePathTraversal},
		{Severity: voting.SeverityMedium, Rule: "tool:unknown", Source: "tool", Path: "b.py", Message: "no line"},
	})
	if len(ev) != 3 || ev[0].ID != "E1" || ev[1].ID != "E2" || ev[2].ID != "E3" {
		t.Fatalf("evidence = %+v", ev)
	}
	e := ev[0]
	if e.Analyzer != "go-ast" || e.Rule != rules.RuleSQLInjection || e.Stakeholder != rules.Security || e.Severity != voting.SeverityHigh ||
		e.Message != "query" || e.Snippet != "db.Query(q)" || e.Replacement != "db.Query(q, a)" || e.Location() != "a.go:3" {
		t.Errorf("evidence = %+v", e)
	}
	if ev[1].Mitigates != rules.RulePathTraversal || ev[1].Stakeholder != rules.Rules[rules.RuleMitigation].Stakeholder || ev[1].Severity != voting.SeverityLow {
		t.Errorf("mitigation = %+v", ev[1])
	}
	if ev[2].Stakeholder != "" || ev[2].Location() != "b.py" {
		t.Errorf("finding of a rule outside the catalog = %+v", ev[2])
	}
	if got := review.Evidence(nil); got == nil || len(got) != 0 {
		t.Errorf("no findings = %#v, want empty evidence", got)
	}
}

// The rule catalog and the debate name text addressed to an AI reviewer with one id each, so
// that neither imports the other; the debate escalates a change on that id, so they must agree.
func TestPromptInjectionRuleIsTheDebatesEscalationRule(t *testing.T) {
	if rules.RulePromptInjection != toulmin.RulePromptInjection {
		t.Fatalf("the catalog's prompt-injection rule is %q, the debate escalates on %q", rules.RulePromptInjection, toulmin.RulePromptInjection)
	}
	if r := rules.Rules[rules.RulePromptInjection]; r.ID != toulmin.RulePromptInjection || r.Severity != voting.SeverityHigh {
		t.Errorf("catalog entry = %+v", r)
	}
}
