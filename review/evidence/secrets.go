package evidence

import (
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// secretsAnalyzer finds credentials in added lines with gitleaks' detector and its default rules,
// plus short literal signing keys and passwords, which gitleaks' entropy thresholds let through.
type secretsAnalyzer struct{}

func (secretsAnalyzer) Name() string { return "secrets" }

func (secretsAnalyzer) Analyze(s *scan.Scan) {
	for _, f := range s.Change.Files {
		if f.Status == change.StatusDeleted {
			continue
		}
		added := f.AddedLines()
		if len(added) == 0 {
			continue
		}
		var b strings.Builder
		for _, l := range added {
			b.WriteString(l.Text)
			b.WriteByte('\n')
		}
		found := map[int]bool{}
		if findings, err := redact.Detect(f.Path, b.String()); err == nil {
			for _, fd := range findings {
				if fd.StartLine < 0 || fd.StartLine >= len(added) {
					continue
				}
				line := added[fd.StartLine].New
				found[line] = true
				s.Report(rules.RuleSecret, f.Path, line, fmt.Sprintf("%s (gitleaks rule %s): %s", redact.Mask(fd.Secret), fd.RuleID, firstSentence(fd.Description)))
			}
		}
		for _, l := range added {
			if found[l.New] {
				continue
			}
			if v, ok := redact.LiteralCredential(l.Text); ok {
				s.Report(rules.RuleSecret, f.Path, l.New, fmt.Sprintf("%s: a literal credential assigned in code", redact.Mask(v)))
			}
		}
	}
}

func firstSentence(s string) string {
	if i := strings.Index(s, ","); i > 0 {
		return s[:i]
	}
	return s
}
