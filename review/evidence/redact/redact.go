package redact

import (
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"
)

var (
	detectorOnce sync.Once
	detector     *detect.Detector
	detectorErr  error
	detectorMu   sync.Mutex
)

// Detect runs gitleaks' detector, with its default rules, over text: lines of the file at path,
// which lets gitleaks apply its path allowlists (lock files, vendored code). The detector is
// built once and shared; its runs are serialised.
func Detect(path, text string) ([]report.Finding, error) {
	d, err := secretDetector()
	if err != nil {
		return nil, err
	}
	detectorMu.Lock()
	defer detectorMu.Unlock()
	//lint:ignore SA1019 gitleaks v8 takes a file path only through this Fragment; v9 replaces it.
	return d.Detect(detect.Fragment{Raw: text, FilePath: path}), nil
}

// LiteralCredential returns the signing key or password that line assigns as a literal (short
// ones, which gitleaks' entropy thresholds let through), unless the value is a placeholder.
func LiteralCredential(line string) (string, bool) {
	for _, re := range []*regexp.Regexp{literalKey, literalPwd} {
		m := re.FindStringSubmatch(line)
		if m == nil || isPlaceholder(m[1]) {
			continue
		}
		return m[1], true
	}
	return "", false
}

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
	// Values that name a secret rather than hold one: an environment variable's name (upper case
	// with an underscore, matched case-sensitively: `sk_live_abc123` or `hunter2hunter2` are
	// values, not names), a template or shell reference, and the usual stand-ins.
	placeholder = regexp.MustCompile(`^(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*|(?i:\$\{.*\}|\$[a-z_][a-z0-9_]*|<.*>|\{\{.*\}\}|\{\w*\}|:[a-z_]\w*|%\(.*\)s|x{3,}|\*+|\.{3,}|change[-_]?me.*|replace[-_]?me.*|example.*|.*[-_.]example|sample|your[-_].*|.*[-_]here|dummy|fake|placeholder|redacted|test|testing|password|secret|token|none|null|nil|undefined|todo|fixme|%s|%v))$`)
)

// isPlaceholder reports whether a literal value stands in for a secret rather than holds one.
func isPlaceholder(v string) bool {
	if v == "" {
		return true
	}
	if placeholder.MatchString(v) {
		return true
	}
	// One character repeated ("aaaaaa", "000000", "------").
	return strings.Count(v, v[:1]) == len(v)
}

// Mask masks a secret for display: the first four characters of a long one (enough to
// recognise the kind of credential, never enough to use it) and stars, never longer than the
// secret. Quotes and backslashes are
// not kept, so that a masked secret cannot break the JSON or Markdown it sits in.
func Mask(secret string) string {
	if len(secret) < 16 {
		// Never longer than the secret, so that a redacted comment stays within GitHub's limit.
		return strings.Repeat("*", min(len(secret), 8))
	}
	prefix := secret[:4]
	if strings.ContainsAny(prefix, "\\\"'`<>") || !utf8.ValidString(prefix) {
		prefix = ""
	}
	return prefix + strings.Repeat("*", 8)
}

// Redact masks every secret in s that the secrets analyzer would report: gitleaks' default rules
// and the project's literal key and password rules. It is applied to every text before it leaves
// the process (comments, check runs, logs), whoever wrote it: the change, an analyzer or a model.
// Text with no secret is returned as is, without copying.
func Redact(s string) string {
	found := secretsIn(s)
	if len(found) == 0 {
		return s
	}
	// Longest first, so that a secret containing another is masked whole.
	sort.Slice(found, func(i, j int) bool { return len(found[i]) > len(found[j]) })
	pairs := make([]string, 0, 2*len(found))
	seen := map[string]bool{}
	for _, f := range found {
		if seen[f] {
			continue
		}
		seen[f] = true
		pairs = append(pairs, f, Mask(f))
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// minSecret is the shortest text that can hold a secret the rules find (`pwd="abcd"`).
const minSecret = 10

// secretsIn returns the secrets found in s.
func secretsIn(s string) []string {
	if len(s) < minSecret {
		return nil
	}
	var out []string
	if d, err := secretDetector(); err == nil && mayHoldKeyword(d, s) {
		for _, fd := range d.DetectString(s) {
			if sec := strings.TrimSpace(fd.Secret); len(sec) >= 4 {
				out = append(out, sec)
			}
		}
	}
	if mayHoldLiteral(s) {
		for _, re := range []*regexp.Regexp{literalKey, literalPwd} {
			for _, m := range re.FindAllStringSubmatch(s, -1) {
				if !isPlaceholder(m[1]) {
					out = append(out, m[1])
				}
			}
		}
	}
	return out
}

var (
	keywordsOnce sync.Once
	// keywords finds any of the detector's rule keywords; complete says every rule with a pattern
	// has keywords, so that text without any keyword cannot hold a finding.
	keywords *ahocorasick.Trie
	complete bool
	lowered  = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}
)

// mayHoldKeyword is gitleaks' own prefilter, run first and without its per-call costs: gitleaks
// runs a rule only when the lowercased text holds one of the rule's keywords (rules without
// keywords always run; with any such rule this test always answers true). Most log lines hold
// none, and are then known clean after one pass over their bytes.
func mayHoldKeyword(d *detect.Detector, s string) bool {
	keywordsOnce.Do(func() {
		complete = true
		for _, r := range d.Config.Rules {
			if len(r.Keywords) == 0 && r.Regex != nil {
				complete = false
			}
		}
		words := make([]string, 0, len(d.Config.Keywords))
		for k := range d.Config.Keywords {
			words = append(words, strings.ToLower(k))
		}
		keywords = ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	})
	if !complete {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			// gitleaks lowercases with Unicode's rules (the Kelvin sign becomes a k): do the same.
			return keywords.MatchFirstString(strings.ToLower(s)) != nil
		}
	}
	bp := lowered.Get().(*[]byte)
	b := (*bp)[:0]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	found := keywords.MatchFirst(b) != nil
	if cap(b) <= 1<<20 {
		*bp = b
		lowered.Put(bp)
	}
	return found
}

// mayHoldLiteral is a cheap test for the words the literal rules need, so that their regular
// expressions run only on text that names a key, secret, token or password.
func mayHoldLiteral(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		switch s[i] | 0x20 {
		case 'k', 's', 't', 'p':
		default:
			continue
		}
		rest := s[i:]
		for _, w := range [...]string{"key", "secret", "token", "passw", "pwd"} {
			if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
				return true
			}
		}
	}
	return false
}

// RedactingWriter wraps w so that every write is redacted first: the writer for zerolog, whose
// every event is one write of one line. It reports the length of what it was given, as io.Writer
// requires, whatever the redaction changed.
func RedactingWriter(w io.Writer) io.Writer { return redactingWriter{w} }

type redactingWriter struct{ w io.Writer }

func (r redactingWriter) Write(p []byte) (int, error) {
	s := string(p)
	if red := Redact(s); red != s {
		if _, err := io.WriteString(r.w, red); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if _, err := r.w.Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}
