package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// StandingFindings returns the findings a debate leaves standing, in the evidence's order (most
// serious first): every evidence item but mitigations, less those whose rule was argued only by
// concerns their authors conceded. An item nobody argued stands: the analyzer found it and
// nothing answered it.
func StandingFindings(t *toulmin.Transcript) []toulmin.Evidence {
	argued, standing := map[string]bool{}, map[string]bool{}
	for i := range t.Arguments {
		a := &t.Arguments[i]
		if a.Rule == "" || (a.Phase != toulmin.PhaseOpening && a.Phase != toulmin.PhaseFinal) {
			continue
		}
		argued[a.Rule] = true
		if t.Standing(a) {
			standing[a.Rule] = true
		}
	}
	var out []toulmin.Evidence
	for _, e := range t.Evidence {
		if e.Rule == rules.RuleMitigation || (argued[e.Rule] && !standing[e.Rule]) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Finding tags, as code scanning shows and filters them.
const (
	TagSecurity    = "security"
	TagPerformance = "performance"
	TagConcurrency = "concurrency"
	TagCorrectness = "correctness"
	TagProcess     = "process"
)

// processRules are notes about how a change was made rather than defects in it.
var processRules = map[string]bool{
	rules.RuleNewDependency: true, rules.RuleLargeFunction: true, rules.RuleLargeFile: true, rules.RuleExportedRemoved: true,
	rules.RuleTodo: true, rules.RuleUntestedChange: true, rules.RuleTestDeleted: true,
}

// topicTags map the topics of the type-checked checks to tags.
var topicTags = map[string][]string{
	rules.TopicCorrectness: {TagCorrectness},
	rules.TopicConcurrency: {TagConcurrency, TagCorrectness},
	rules.TopicResource:    {TagCorrectness, TagPerformance},
	rules.TopicPerformance: {TagPerformance},
}

var checksByRule = func() map[string]rules.Check {
	out := map[string]rules.Check{}
	for _, c := range evidence.Checks() {
		out[c.Rule] = c
	}
	return out
}()

// RuleTags says what kind of finding a rule reports: from the type-checked check's topic, the
// process notes by name, and otherwise from the stakeholder who raises it.
func RuleTags(rule, stakeholder string) []string {
	if c, ok := checksByRule[rule]; ok {
		if tags, ok := topicTags[c.Topic]; ok {
			return tags
		}
	}
	if processRules[rule] {
		return []string{TagProcess}
	}
	switch rule {
	case rules.RuleUnboundedGo:
		return []string{TagPerformance, TagConcurrency}
	case rules.RuleIgnoredError, rules.RulePanicInLibrary:
		return []string{TagCorrectness}
	}
	if stakeholder == "" {
		stakeholder = rules.Rules[rule].Stakeholder
	}
	switch stakeholder {
	case rules.Security:
		return []string{TagSecurity}
	case rules.Performance:
		return []string{TagPerformance}
	}
	return []string{TagCorrectness}
}

// SecuritySeverity is the CVSS-like score GitHub code scanning reads from a security rule's
// "security-severity" property: over 9.0 is critical, 7.0 to 8.9 high, 4.0 to 6.9 medium, 0.1 to
// 3.9 low.
func SecuritySeverity(s voting.Severity) string {
	switch s {
	case voting.SeverityCritical:
		return "9.5"
	case voting.SeverityHigh:
		return "8.0"
	case voting.SeverityMedium:
		return "5.5"
	case voting.SeverityLow:
		return "3.0"
	}
	return "0.0"
}

// AnnotationLevel maps a severity to a check-run annotation level.
func AnnotationLevel(s voting.Severity) string {
	switch {
	case s.Rank() >= voting.SeverityHigh.Rank():
		return "failure"
	case s.Rank() >= voting.SeverityMedium.Rank():
		return "warning"
	}
	return "notice"
}

// sarifLevel maps a severity to a SARIF result level.
func sarifLevel(s voting.Severity) string {
	switch {
	case s.Rank() >= voting.SeverityHigh.Rank():
		return "error"
	case s.Rank() >= voting.SeverityMedium.Rank():
		return "warning"
	}
	return "note"
}

// fingerprinter computes line-independent fingerprints of findings: a hash of the rule, the
// file, the enclosing function (Go files whose content is known) and the finding's line text with
// its whitespace collapsed and secrets redacted; without the line text, the message with line
// numbers taken out. The same finding keeps its fingerprint when lines are added above it, or
// when it is found again in another run; identical findings are told apart by their order, as
// GitHub's own primaryLocationLineHash does (":1", ":2", ...).
type fingerprinter struct {
	c     *change.Change
	funcs map[string][]goFunc
	seen  map[string]int
}

type goFunc struct {
	name       string
	start, end int
}

func newFingerprinter(c *change.Change) *fingerprinter {
	return &fingerprinter{c: c, funcs: map[string][]goFunc{}, seen: map[string]int{}}
}

var (
	spaceRe   = regexp.MustCompile(`\s+`)
	lineNumRe = regexp.MustCompile(`(?i)(:\d+(:\d+)?\b|\blines? \d+)`)
)

// wholeFileRules report on a file or the change as a whole, at a line that only shows where:
// the line is left out of their fingerprints.
var wholeFileRules = map[string]bool{rules.RuleUntestedChange: true, rules.RuleLargeFile: true}

func (fp *fingerprinter) fingerprint(e toulmin.Evidence) string {
	text, fn := "", ""
	if wholeFileRules[e.Rule] {
		text = "file"
	} else if fp.c != nil {
		if f := fp.c.File(e.Path); f != nil && e.Line > 0 {
			if l, ok := f.Line(e.Line); ok {
				text = strings.TrimSpace(spaceRe.ReplaceAllString(redact.Redact(l), " "))
			}
			fn = fp.function(f, e.Line)
		}
	}
	if text == "" {
		text = "message:" + lineNumRe.ReplaceAllString(e.Message, "")
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", e.Rule, e.Path, fn, text)
	sum := hex.EncodeToString(h.Sum(nil))[:32]
	fp.seen[sum]++
	return fmt.Sprintf("%s:%d", sum, fp.seen[sum])
}

// function names the Go function or method around line n of f, or "".
func (fp *fingerprinter) function(f *change.File, n int) string {
	if f.Language() != "go" || !f.HasContent {
		return ""
	}
	funcs, ok := fp.funcs[f.Path]
	if !ok {
		fset := token.NewFileSet()
		// A file that does not parse fully still names the functions it could read.
		file, _ := parser.ParseFile(fset, f.Path, f.Content, parser.SkipObjectResolution)
		if file != nil {
			for _, d := range file.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				funcs = append(funcs, goFunc{name: evidence.FuncName(fd), start: fset.Position(fd.Pos()).Line, end: fset.Position(fd.End()).Line})
			}
		}
		fp.funcs[f.Path] = funcs
	}
	for _, g := range funcs {
		if n >= g.start && n <= g.end {
			return g.name
		}
	}
	return ""
}
