package evidence_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/voting"
)

// defectRules says which finding each defect case must be flagged for.
var defectRules = map[string]string{
	"defect-express-path-traversal":  rules.RulePathTraversal,
	"defect-go-defer-in-loop":        rules.RuleDeferInLoop,
	"defect-go-exported-api-removed": rules.RuleExportedRemoved,
	"defect-go-ignored-errors":       rules.RuleIgnoredError,
	"defect-go-sql-injection":        rules.RuleSQLInjection,
	"defect-go-tls-disabled":         rules.RuleTLSVerifyOff,
	"defect-go-unbounded-goroutines": rules.RuleUnboundedGo,
	"defect-java-sql-injection":      rules.RuleSQLInjection,
	"defect-node-command-injection":  rules.RuleCommandInjection,
	"defect-prompt-injection-docs":   rules.RulePromptInjection,
	"defect-python-aws-key":          rules.RuleSecret,
	"defect-python-md5-password":     rules.RuleWeakPasswordHash,
	"defect-python-n-plus-one":       rules.RuleCallInLoop,
	"defect-python-tests-deleted":    rules.RuleTestDeleted,
}

// TestWrittenCases debates every hand-written diff under testdata/cases offline, from its hunks
// only (no base tree): they are not real commits and are not part of the regression cases'
// tally (TestWrittenRegressionCases), but they pin rules no real-commit case exercises yet (prompt injection, secrets,
// Java, process notes) and the hunks-only path. Each defect must end with the
// change held back (a required change for the expected rule), or for a process note (removed
// API, deleted tests) approved with the note as a follow-up; each safe change must be approved
// outright. Each case's decision is logged (-v), then the hit rate and the false alarms.
func TestWrittenCases(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "cases", "*.diff"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	var defects, flagged, safe, falseAlarms int
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".diff")
		t.Run(name, func(t *testing.T) {
			r := reviewtest.RunDebate(t, reviewtest.ReadChange(t, p), config.Default().Protocol).Record // the standard protocol
			t.Logf("%s: %s, required %v, follow-up %v", name, r.Decision, r.RequiredChanges, r.FollowUp)
			switch {
			case strings.HasPrefix(name, "defect-"):
				defects++
				rule, ok := defectRules[name]
				if !ok {
					t.Fatalf("no expected rule for %s", name)
				}
				fix := rules.Rules[rule].Fix
				held := r.Decision != voting.Approve && len(r.RequiredChanges) > 0
				actions := r.RequiredChanges
				if rules.IsProcess(rule) {
					// A process note never decides: the change is approved with the note as a
					// follow-up, never held back by it.
					held = r.Decision == voting.ApproveWithChanges
					actions = r.FollowUp
				}
				var tied bool
				for _, c := range actions {
					tied = tied || strings.Contains(c, fix)
				}
				if held && tied {
					flagged++
				} else {
					t.Errorf("defect not flagged: decision %s, required %v; want a required change for %s", r.Decision, r.RequiredChanges, rule)
				}
			case strings.HasPrefix(name, "safe-"):
				safe++
				if r.Decision != voting.Approve || len(r.RequiredChanges) > 0 {
					falseAlarms++
					t.Errorf("false alarm: decision %s, required %v", r.Decision, r.RequiredChanges)
				}
			default:
				t.Fatalf("case %s is neither defect- nor safe-", name)
			}
		})
	}
	t.Logf("written defect cases flagged: %d of %d; false alarms on safe changes: %d of %d", flagged, defects, falseAlarms, safe)
}
