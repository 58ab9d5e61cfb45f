package evidence

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// secretsAnalyzer finds credentials in added lines with gitleaks' detector and its default rules,
// plus short literal signing keys and passwords, which gitleaks' entropy thresholds let through.
type secretsAnalyzer struct{}

func (secretsAnalyzer) Name() string { return "secrets" }

func (secretsAnalyzer) Analyze(s *scan.Scan) {
	d, err := redact.SecretDetector()
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
		if err == nil {
			redact.DetectorMu.Lock()
			// The path lets gitleaks apply its path allowlists (lock files, vendored code).
			//lint:ignore SA1019 gitleaks v8 takes a file path only through this Fragment; v9 replaces it.
			findings := d.Detect(detect.Fragment{Raw: b.String(), FilePath: f.Path})
			redact.DetectorMu.Unlock()
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
			for _, re := range []*regexp.Regexp{redact.LiteralKey, redact.LiteralPwd} {
				m := re.FindStringSubmatch(l.Text)
				if m == nil || redact.IsPlaceholder(m[1]) {
					continue
				}
				s.Report(rules.RuleSecret, f.Path, l.New, fmt.Sprintf("%s: a literal credential assigned in code", redact.Mask(m[1])))
				break
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
