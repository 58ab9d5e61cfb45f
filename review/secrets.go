package review

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// secretsAnalyzer finds credentials in added lines with gitleaks' detector and its default rules,
// plus short literal signing keys and passwords, which gitleaks' entropy thresholds let through.
type secretsAnalyzer struct{}

func (secretsAnalyzer) Name() string { return "secrets" }

var (
	detectorOnce sync.Once
	detector     *detect.Detector
	detectorErr  error
	detectorMu   sync.Mutex
)

func secretDetector() (*detect.Detector, error) {
	detectorOnce.Do(func() {
		// gitleaks logs to stderr through its own global logger; findings come back to us instead.
		logging.Logger = logging.Logger.Level(zerolog.ErrorLevel)
		detector, detectorErr = detect.NewDetectorDefaultConfig()
	})
	return detector, detectorErr
}

var (
	literalKey = regexp.MustCompile(`(?i)\b\w*(?:jwt|signing|hmac|session|cookie|api|client|app)[_\-]?(?:key|secret|token)\w*["']?\s*(?::=|=|:)\s*(?:\[\]byte\()?["']([^"'\s]{6,})["']`)
	literalPwd = regexp.MustCompile(`(?i)\b\w*(?:password|passwd|pwd)\w*["']?\s*(?::=|=|:)\s*["']([^"'\s]{4,})["']`)
	// Values that name a secret rather than hold one.
	placeholder = regexp.MustCompile(`(?i)^(?:[A-Z0-9_]+|\$\{.*\}|<.*>|\{\{.*\}\}|x{3,}|\*+|changeme|example.*|your[-_].*|dummy|placeholder|redacted|test|password|secret|%s|%v)$`)
)

func (secretsAnalyzer) Analyze(s *Scan) {
	d, err := secretDetector()
	for _, f := range s.Change.Files {
		if f.Status == StatusDeleted {
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
			detectorMu.Lock()
			// The path lets gitleaks apply its path allowlists (lock files, vendored code).
			//lint:ignore SA1019 gitleaks v8 takes a file path only through this Fragment; v9 replaces it.
			findings := d.Detect(detect.Fragment{Raw: b.String(), FilePath: f.Path})
			detectorMu.Unlock()
			for _, fd := range findings {
				if fd.StartLine < 0 || fd.StartLine >= len(added) {
					continue
				}
				line := added[fd.StartLine].New
				found[line] = true
				s.Report(RuleSecret, f.Path, line, fmt.Sprintf("%s (gitleaks rule %s): %s", redact(fd.Secret), fd.RuleID, firstSentence(fd.Description)))
			}
		}
		for _, l := range added {
			if found[l.New] {
				continue
			}
			for _, re := range []*regexp.Regexp{literalKey, literalPwd} {
				m := re.FindStringSubmatch(l.Text)
				if m == nil || placeholder.MatchString(m[1]) {
					continue
				}
				s.Report(RuleSecret, f.Path, l.New, fmt.Sprintf("%s: a literal credential assigned in code", redact(m[1])))
				break
			}
		}
	}
}

func redact(secret string) string {
	if len(secret) <= 4 {
		return "****"
	}
	return secret[:4] + strings.Repeat("*", min(len(secret)-4, 8))
}

func firstSentence(s string) string {
	if i := strings.Index(s, ","); i > 0 {
		return s[:i]
	}
	return s
}
