package compare

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// This file finds a timer's clearing that the change removed from a function of JavaScript or
// TypeScript while head still arms that timer: the timer armed before the function ran keeps
// running and fires on state the function replaced (a closed socket, an entry whose age was
// reset). It reads the sources as text with jsScan, which knows strings, comments, templates and
// regular expressions, so TypeScript, which goja does not parse, is read too.

// TimerAnalyzer is the analysis described above. Hand-written: ESLint and typescript-eslint
// compare nothing between base and head.
type TimerAnalyzer struct{}

func (TimerAnalyzer) Name() string { return "timers" }

// timerLanguages are the languages whose timers the analysis reads.
var timerLanguages = map[string]bool{"javascript": true, "typescript": true}

var (
	// timerClear matches a call that clears a timer, with the timer's expression.
	timerClear = regexp.MustCompile(`\b(?:` + strings.Join(timerClears, "|") + `)\s*\(\s*([\w$#][\w$#.?\[\] ]*?)\s*\)`)
	// timerArm matches a call that arms one.
	timerArm = regexp.MustCompile(`\b(?:` + strings.Join(timerArms, "|") + `)\s*\(`)
	// timerIndex is the subscript of a timer kept in an array or map (timers[i]).
	timerIndex = regexp.MustCompile(`\[[^\]]*\]`)
)

// timerKey names the timer a clearing's argument holds: the last name of the member chain,
// without its subscript or private mark (this.#timers[i] and timers[i] are "timers"), so that the
// same timer is recognised through this, self or a local alias.
func timerKey(arg string) string {
	arg = strings.ReplaceAll(timerIndex.ReplaceAllString(arg, ""), "?.", ".")
	arg = strings.TrimSuffix(strings.TrimSpace(arg), "?")
	if i := strings.LastIndexByte(arg, '.'); i >= 0 {
		arg = arg[i+1:]
	}
	arg = strings.TrimPrefix(arg, "#")
	if arg == "" || strings.ContainsAny(arg, " []?") || arg == "undefined" || arg == "null" {
		return ""
	}
	return arg
}

// clearsTimer reports whether src clears the timer key.
func clearsTimer(src, key string) bool {
	for _, m := range timerClear.FindAllStringSubmatch(src, -1) {
		if timerKey(m[1]) == key {
			return true
		}
	}
	return false
}

// timerSource is one JavaScript or TypeScript file of the change at head.
type timerSource struct {
	f      *change.File
	src    string
	lines  []int // offsets of the line starts
	blocks []jsBlock
}

func newTimerSource(f *change.File) *timerSource {
	t := &timerSource{f: f, src: string(f.Content), lines: []int{0}}
	for i := 0; i < len(t.src); i++ {
		if t.src[i] == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	t.blocks = jsBlocks(f.Content)
	return t
}

// lineEnd is the offset of the end of line n (1-based), clamped to the file.
func (t *timerSource) lineEnd(n int) int {
	if n < 1 {
		return 0
	}
	if n >= len(t.lines) {
		return len(t.src)
	}
	return t.lines[n] - 1
}

func (t *timerSource) lineAt(off int) int {
	i, _ := slices.BinarySearch(t.lines, off+1)
	return i
}

// armedAt returns the line at which the file stores an armed timer into key (key = setTimeout(…),
// or key[i] = t a few lines after t = setTimeout(…)), 0 when it does not.
func (t *timerSource) armedAt(key string) int {
	store := regexp.MustCompile(`(?:^|[^\w$#])#?` + regexp.QuoteMeta(key) + `(?:\[[^\]]*\])?\s*=([^=>].*)$`)
	for i := 1; i <= len(t.lines); i++ {
		line := t.src[t.lines[i-1]:t.lineEnd(i)]
		m := store.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if timerArm.MatchString(m[1]) {
			return i
		}
		rhs := strings.TrimRight(strings.TrimSpace(m[1]), ";")
		if !jsIdentifier(rhs) || rhs == "undefined" || rhs == "null" {
			continue
		}
		from := t.lines[max(0, i-1-timerAliasLines)]
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(rhs) + `\s*=\s*` + timerArm.String()).MatchString(t.src[from:t.lines[i-1]]) {
			return i
		}
	}
	return 0
}

// timerAliasLines bounds how far before a store a timer's local variable may have been armed.
const timerAliasLines = 12

func jsIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !jsWordByte(s[i]) {
			return false
		}
	}
	return true
}

// function returns the innermost function body holding offset off (the whole file outside any).
func (t *timerSource) function(off int) jsBlock {
	best := jsBlock{Open: -1, Close: len(t.src), Func: true}
	for _, b := range t.blocks {
		if b.Func && b.Open < off && off <= b.Close && b.Open > best.Open {
			best = b
		}
	}
	return best
}

// helpersClearing names the functions of the file whose bodies clear key.
func (t *timerSource) helpersClearing(key string) []string {
	var names []string
	for _, m := range timerClear.FindAllStringSubmatchIndex(t.src, -1) {
		if timerKey(t.src[m[2]:m[3]]) != key {
			continue
		}
		if fn := t.function(m[0]); fn.Name != "" {
			names = append(names, fn.Name)
		}
	}
	return names
}

func (TimerAnalyzer) Analyze(s *scan.Scan) {
	var sources []*timerSource
	moved := map[string]bool{} // timers the change clears on an added line
	for _, f := range s.Change.Files {
		if !timerLanguages[f.Language()] || f.IsTest() || f.IsGenerated() || f.Binary || !f.HasContent || f.Status == change.StatusDeleted {
			continue
		}
		sources = append(sources, newTimerSource(f))
		for _, l := range f.AddedLines() {
			for _, m := range timerClear.FindAllStringSubmatch(l.Text, -1) {
				moved[timerKey(m[1])] = true
			}
		}
	}
	for _, t := range sources {
		if t.f.Status == change.StatusAdded {
			continue
		}
		reported := map[string]bool{}
		for _, l := range t.f.DeletedLines() {
			for _, m := range timerClear.FindAllStringSubmatch(jsStripComments(l.Text), -1) {
				key := timerKey(m[1])
				if key == "" || moved[key] || reported[key] {
					continue
				}
				if msg, at := clearingRemoved(t, sources, l.Old, key, m[0]); msg != "" {
					reported[key] = true
					s.ReportSeverity(rules.RuleReleaseRemoved, voting.SeverityMedium, t.f.Path, at, msg)
				}
			}
		}
	}
}

// clearingRemoved describes the removal of the clearing call (of timer key, on base line old of
// t's file) when the head function it was removed from clears the timer neither itself nor
// through a function of its file, and some file of the change still arms the timer.
func clearingRemoved(t *timerSource, sources []*timerSource, old int, key, call string) (string, int) {
	at := lineMap{t.f}.head(old)
	fn := t.function(t.lineEnd(at - 1))
	body := t.src[max(fn.Open, 0):fn.Close]
	if clearsTimer(body, key) {
		return "", 0
	}
	for _, name := range t.helpersClearing(key) {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*\(`).MatchString(body) {
			return "", 0
		}
	}
	armed, armedIn := 0, t
	for _, o := range append([]*timerSource{t}, sources...) {
		if armed = o.armedAt(key); armed > 0 {
			armedIn = o
			break
		}
	}
	if armed == 0 {
		return "", 0
	}
	where := "this file"
	if armedIn != t {
		where = armedIn.f.Path
	}
	name := fn.Name
	if name == "" {
		name = "the function"
	}
	return fmt.Sprintf("the change removes `%s` from %s (line %d), and nothing left in it clears the timer, which %s still arms at line %d (`%s`): "+
		"a timer armed before keeps running and fires on the state this code replaced",
		scan.Clip(strings.TrimSpace(call), 100), name, t.lineAt(max(fn.Open, 0)), where, armed,
		scan.Clip(strings.TrimSpace(armedIn.src[armedIn.lines[armed-1]:armedIn.lineEnd(armed)]), 100)), at
}

// jsBlock is a brace block of a JavaScript or TypeScript source: its braces' offsets, whether it
// is a function's body, and the function's name when it has one.
type jsBlock struct {
	Open, Close int
	Func        bool
	Name        string
}

// jsBlocks lists the brace blocks of src; nil when src is beyond jsDepth's limits.
func jsBlocks(src []byte) []jsBlock {
	blocks := []jsBlock{}
	s := &jsScan{src: src, prev: ";", blocks: &blocks}
	for s.i < len(src) {
		if why := s.step(); why != "" {
			return nil
		}
	}
	return blocks
}

// jsControlWords are the words whose parenthesised head a statement's block follows.
var jsControlWords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "with": true, "await": true}

// functionBody reports whether the brace just read (at s.i-1; before is the token before it)
// opens a function's body: after => or after a parameter list, perhaps followed by a
// TypeScript return type; and the function's name, when the word before its parameters is one.
func (s *jsScan) functionBody(before string) (bool, string) {
	k := s.i - 2
	for k >= 0 && (s.src[k] == ' ' || s.src[k] == '\t' || s.src[k] == '\n' || s.src[k] == '\r') {
		k--
	}
	if before == ">" && k > 0 && s.src[k] == '>' && s.src[k-1] == '=' {
		return true, ""
	}
	if s.lastParen.end <= 0 || s.lastParen.end >= s.i-1 {
		return false, ""
	}
	gap := strings.TrimSpace(string(s.src[s.lastParen.end+1 : s.i-1]))
	if gap != "" && (gap[0] != ':' || strings.ContainsAny(gap, ";={}()")) {
		return false, ""
	}
	word := s.lastParen.word
	if jsControlWords[word] {
		return false, ""
	}
	if !jsWordToken(word) || word == "function" {
		word = ""
	}
	return true, word
}
