package review

import (
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/toulmin"
)

func TestResumedDebateKeepsWholeTreeFindingsInScope(t *testing.T) {
	c := &change.Change{}
	scopeEvidence(c, []toulmin.Evidence{
		{Analyzer: rules.AnalyzerStaticcheck, Rule: "SA5007", Path: "a/a.go", Line: 9},
		{Analyzer: "go-ast", Rule: rules.RuleSQLInjection, Path: "b/b.go", Line: 3},
	})
	if !c.HasPath("a/a.go") || !c.HasLine("a/a.go", 9) || c.HasLine("a/a.go", 10) {
		t.Errorf("a staticcheck finding's line is not in scope alone")
	}
	if c.HasPath("b/b.go") {
		t.Errorf("a hand-written analyzer's finding brought its file into scope")
	}
}
