package scan

import (
	"regexp"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/voting"
)

// Finding is the one record of what an analyzer found: a diagnostic of a type-checked check or
// of an external tool in one tree, and what an analyzer reports into a Scan (Report,
// ReportSeverity, Mitigation). The scan's processors (chain.go) work on Findings, and the
// processed Findings are what evidence gathering returns (Gather); the package that runs the
// debate turns them into the debate's evidence.
type Finding struct {
	Rule string `json:"rule"`
	// Source is the analyzer that found it: a check's source ("go vet", "gosec"), a tool's name
	// ("bandit"), or the name of the scan's analyzer that reported it ("go-ast").
	Source   string          `json:"source"`
	Severity voting.Severity `json:"severity"`
	Topic    string          `json:"topic"`
	// Path is slash-separated and relative to the tree's root (the repository's root).
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Func is the enclosing function ("Recv.Name" for methods), empty at package level.
	Func    string `json:"func,omitempty"`
	Message string `json:"message"`
	// Mitigates, on a finding of RuleMitigation, names the rule whose findings the check at the
	// finding's place weakens.
	Mitigates string `json:"mitigates,omitempty"`
	// Conds are the conditions under which the line runs in its function (see pathConds).
	Conds string `json:"-"`
	// MoreReachable marks a finding Compare made new because head runs it on more paths.
	MoreReachable bool `json:"-"`
	// CWE is the weakness of this finding when it is not its rule's (a removed check is a path
	// traversal at a file call, an SSRF at a fetch): findings of that weakness by other
	// analyzers at the same place are the same defect (see absorbWeakness).
	CWE string `json:"-"`
	// Fix is the edit the analyzer proposes (a go/analysis SuggestedFix, an ESLint fix), as the
	// whole lines of the tree's file it replaces. Record keeps it only when it applies to the
	// head's lines inside one hunk of the diff and covers the finding's line (see keepFix).
	Fix change.LineFix `json:"-"`
	// Snippet is the cited line of head as posted (redacted, clipped), and Replacement the
	// line's fix when the rule has a mechanical one; the scan fills both when it records the
	// finding (Record), so an analyzer leaves them empty.
	Snippet     string `json:"-"`
	Replacement string `json:"-"`
	// Fingerprint identifies the finding on its code for dismissals (see Fingerprint); the
	// gathering fills it.
	Fingerprint string `json:"-"`
	// rank is the precedence of the analyzer that reported it: its place in the gathering's list
	// (the type-checked families share the first one's), which orders findings before the
	// processors (placeOrder). The scan fills it.
	rank int
}

// lineFixes are the findings whose fix the analyzers know exactly: the line with one constant
// turned back (verification switched off by a literal is switched on again by the opposite
// literal, and nothing else on the line changes).
var lineFixes = []struct {
	rule, langs string
	re          *regexp.Regexp
	repl        string
}{
	{rules.RuleTLSVerifyOff, "go", regexp.MustCompile(`\b(InsecureSkipVerify\s*[:=]\s*)true\b`), "${1}false"},
	{rules.RuleTLSVerifyOff, "python", regexp.MustCompile(`\b(verify\s*=\s*)False\b`), "${1}True"},
	{rules.RuleTLSVerifyOff, "javascript typescript", regexp.MustCompile(`\b(rejectUnauthorized\s*:\s*)false\b`), "${1}true"},
}

// lineFix returns the line of a finding of rule as it reads fixed, or "" when no fix is known: a
// line that holds the pattern more than once (or not at all) is left to a human.
func lineFix(rule, lang, line string) string {
	for _, f := range lineFixes {
		if f.rule != rule || !strings.Contains(" "+f.langs+" ", " "+lang+" ") {
			continue
		}
		if len(f.re.FindAllStringIndex(line, -1)) != 1 {
			return ""
		}
		return f.re.ReplaceAllString(line, f.repl)
	}
	return ""
}

// Key identifies a finding independently of line numbers, as golangci-lint's new-from-rev
// matches issues: the rule, the file, the enclosing function and the message with quoted text
// and numbers normalised (a renamed variable or a shifted line does not make a finding new).
func (f Finding) Key() string {
	return strings.Join([]string{f.Rule, f.Path, f.Func, normalise(f.Message)}, "\x00")
}

var (
	quoted  = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`|'(?:[^'\\\\]|\\\\.)*'")
	numbers = regexp.MustCompile(`\b(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?)\b`)
	// positions such as "at line 12" or "file.go:12:3" that some analyzers put in messages.
	positions = regexp.MustCompile(`[\w./-]+\.go:\d+(?::\d+)?`)
)

func normalise(msg string) string {
	msg = positions.ReplaceAllString(msg, "POS")
	msg = quoted.ReplaceAllString(msg, "Q")
	return numbers.ReplaceAllString(msg, "N")
}
