package evidence

import (
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// RuleSecurityAlert is a code scanning or Dependabot alert GitHub raised on the change (or on the
// default branch): evidence the security stakeholder must answer.
const RuleSecurityAlert = "security-alert"

func init() {
	rules.Rules[RuleSecurityAlert] = rules.Rule{ID: RuleSecurityAlert, Stakeholder: rules.Security, Severity: voting.SeverityHigh, Title: "Security alert raised by GitHub",
		Warrant:   "A code scanning or Dependabot alert on the code under review is a known weakness that ships with it unless it is fixed or dismissed with a reason",
		Reference: "GitHub code scanning and Dependabot alerts", Fix: "fix what the alert names (or upgrade the dependency to its first patched version), or dismiss the alert with a reason",
		Rebuttal: "unless the alert is a false positive, dismissed with a reason", TradeOff: "the fix or the upgrade and its testing"}
}

// Alert is a security alert as the debate sees it.
type Alert struct {
	// Kind is "code_scanning" or "dependabot".
	Kind   string `json:"kind"`
	Number int    `json:"number"`
	Tool   string `json:"tool,omitempty"`
	Rule   string `json:"rule,omitempty"`
	// Severity is GitHub's: critical, high, medium, low, warning, note, error.
	Severity string `json:"severity,omitempty"`
	Message  string `json:"message"`
	Path     string `json:"path,omitempty"`
	Line     int    `json:"line,omitempty"`
	URL      string `json:"url,omitempty"`
}

// severity maps GitHub's alert severities onto the debate's.
func (a Alert) severity() voting.Severity {
	switch strings.ToLower(a.Severity) {
	case "critical":
		return voting.SeverityCritical
	case "high", "error":
		return voting.SeverityHigh
	case "medium", "moderate", "warning":
		return voting.SeverityMedium
	}
	return voting.SeverityLow
}

// Summary is the alert in one line (untrusted text: the caller fences or escapes it).
func (a Alert) Summary() string {
	what := a.Tool
	if what == "" {
		what = map[string]string{"dependabot": "Dependabot", "code_scanning": "code scanning"}[a.Kind]
	}
	s := fmt.Sprintf("%s alert #%d", what, a.Number)
	if a.Rule != "" {
		s += " (" + a.Rule + ")"
	}
	return s + ": " + strings.Join(strings.Fields(a.Message), " ")
}

// AlertAnalyzer turns alerts into evidence.
type AlertAnalyzer struct{ Alerts []Alert }

// Name implements Analyzer.
func (AlertAnalyzer) Name() string { return "github-alerts" }

// Analyze implements Analyzer.
func (a AlertAnalyzer) Analyze(s *scan.Scan) {
	for _, al := range a.Alerts {
		s.ReportSeverity(RuleSecurityAlert, al.severity(), al.Path, al.Line, scan.Clip(al.Summary(), 400))
	}
}
