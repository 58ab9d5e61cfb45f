package compare

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// This file finds a test for undefined or null (x === undefined, typeof x !== 'undefined',
// x == null) that the change dropped from a JavaScript or TypeScript condition while the line
// that replaces it still dereferences the value or computes with it: an absent header, option or
// argument now throws a TypeError or turns into NaN. Like the timers' analysis it reads the
// sources as text (jsScan for the functions), so TypeScript is read too. Hand-written: without
// types (JavaScript) no maintained analyzer knows a value may be undefined, and none compares
// base with head.
//
// On a bare diff (hunks only) a file has no content: what comes before the rewritten line in its
// function is then the hunk's head side above it, and the finding says it saw the hunks only.

// NullishAnalyzer is the analysis described above.
type NullishAnalyzer struct{}

func (NullishAnalyzer) Name() string { return "nullish-check" }

var (
	// jsName is a name or member chain (req.headers.upgrade, this.#limit).
	jsName = `[A-Za-z_$#][\w$#]*(?:\.[A-Za-z_$#][\w$#]*)*`
	// nullishTest matches a test of a name against undefined or null, in either order.
	nullishTest = regexp.MustCompile(`typeof\s+(` + jsName + `)\s*[!=]==?\s*['"]undefined['"]` +
		`|(` + jsName + `)\s*[!=]==?\s*(?:undefined|null|void 0)\b` +
		`|\b(?:undefined|null)\s*[!=]==?\s*(` + jsName + `)`)
	// jsDeclaration matches a declaration with its value.
	jsDeclaration = regexp.MustCompile(`^\s*(?:const|let|var)\s+([\w$]+)\s*=\s*(` + jsName + `)\s*;?\s*$`)
	jsWord        = regexp.MustCompile(`[\w$#]+`)
)

// nullishKeywords are not names a test can be about.
var nullishKeywords = map[string]bool{"undefined": true, "null": true, "this": true, "arguments": true}

// jsNamePattern matches name where it is not part of a longer name or member chain.
func jsNamePattern(name, after string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\w$#.])` + regexp.QuoteMeta(name) + after)
}

// testsValue reports whether text tests name for undefined, null or truthiness, reads it through
// ?. or ??, or assigns it a default (name = x ?? y, name = x || y).
func testsValue(text, name string) bool {
	q := regexp.QuoteMeta(name)
	return regexp.MustCompile(`typeof\s+`+q+`\b`).MatchString(text) ||
		regexp.MustCompile(`\b(?:undefined|null)\s*[!=]==?\s*`+q+`\b`).MatchString(text) ||
		jsNamePattern(name, `\s*(?:[!=]==?\s*(?:undefined|null|void 0)\b|\?\.|\?\?|&&|\|\||\)\s*\{|\?[^.?]|=[^=>][^;\n]*(?:\?\?|\|\|))`).MatchString(text) ||
		regexp.MustCompile(`!\s*`+q+`(?:$|[^\w$#.\[(])`).MatchString(text)
}

// usesValue reports whether text dereferences name (name.x, name[i], name()) or computes with it.
func usesValue(text, name string) bool {
	return jsNamePattern(name, `\s*(?:\.[A-Za-z_$#]|\[|\(|[-+*/%]\s*[\w(])`).MatchString(text)
}

func (NullishAnalyzer) Analyze(s *scan.Scan) {
	for _, f := range s.Change.Files {
		if !timerLanguages[f.Language()] || f.IsTest() || f.IsGenerated() || f.Binary || f.Status != change.StatusModified && f.Status != change.StatusRenamed {
			continue
		}
		var t *timerSource
		note := ""
		if !f.HasContent {
			note = FragmentNote
		}
		reported := map[string]bool{}
		aliases := map[string]string{} // a deleted declaration's name -> its value
		for _, l := range f.DeletedLines() {
			if m := jsDeclaration.FindStringSubmatch(l.Text); m != nil {
				aliases[m[1]] = m[2]
			}
		}
		for _, h := range f.Hunks {
			for _, d := range h.Lines {
				if d.Kind != change.Deleted {
					continue
				}
				text := jsStripComments(d.Text)
				for _, m := range nullishTest.FindAllStringSubmatch(text, -1) {
					name := m[1] + m[2] + m[3]
					if nullishKeywords[name] || reported[name] {
						continue
					}
					if t == nil && f.HasContent {
						t = newTimerSource(f)
					}
					if msg, at := nullishDropped(t, h, d, text, m[0], name, aliases[name]); msg != "" {
						reported[name] = true
						s.ReportSeverity(rules.RuleCheckRemoved, voting.SeverityMedium, f.Path, at, msg+note)
					}
				}
			}
		}
	}
}

// nullishDropped describes the test (of name, or of alias, the value name was declared with)
// that the deleted line d of hunk h held, when an added line of the hunk that is made of d's
// words still uses the value with no test of it there or earlier in its function (t, the head
// file; nil on a bare diff, where earlier is what the hunk shows).
func nullishDropped(t *timerSource, h change.Hunk, d change.Line, text, test, name, alias string) (string, int) {
	names := []string{name}
	if alias != "" {
		names = append(names, alias)
	}
	words := map[string]bool{}
	for _, w := range jsWord.FindAllString(text+" "+alias, -1) {
		words[w] = true
	}
	for _, a := range h.Lines {
		if a.Kind != change.Added {
			continue
		}
		added := jsStripComments(a.Text)
		if !madeOf(added, words) {
			continue
		}
		before := textBefore(t, h, a)
		for _, n := range names {
			if usesValue(added, n) && !testsValue(before, n) {
				return fmt.Sprintf("the change drops the test `%s` (base line %d), and the line that replaces it uses %s with nothing testing it first (`%s`): "+
					"when it is undefined or null this throws a TypeError or computes NaN", scan.Clip(test, 80), d.Old, n, scan.Clip(strings.TrimSpace(added), 120)), a.New
			}
		}
	}
	return "", 0
}

// textBefore is the head text of added line a's function up to a's end: from the file when t
// holds it, else (hunks only) the head side of hunk h up to a, what the diff shows of it.
func textBefore(t *timerSource, h change.Hunk, a change.Line) string {
	if t != nil {
		fn := t.function(t.lineEnd(a.New - 1))
		return t.src[max(fn.Open, 0):min(t.lineEnd(a.New), len(t.src))]
	}
	var b strings.Builder
	for _, l := range h.Lines {
		if l.Kind == change.Deleted {
			continue
		}
		b.WriteString(jsStripComments(l.Text) + "\n")
		if l.New == a.New {
			break
		}
	}
	return b.String()
}

// madeOf reports whether the words of line are nearly all among words: the line is the deleted
// one rewritten, not new code.
func madeOf(line string, words map[string]bool) bool {
	ws := jsWord.FindAllString(line, -1)
	if len(ws) == 0 {
		return false
	}
	known := 0
	for _, w := range ws {
		if words[w] {
			known++
		}
	}
	return known*10 >= len(ws)*8
}
