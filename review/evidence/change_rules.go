package evidence

import (
	"fmt"
	"go/scanner"
	"go/token"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// PromptInjectionAnalyzer finds text that addresses AI reviewers, in added lines of any text file,
// in the names of the changed files, in the change's title and body, and in its commit messages
// (a pull request's, or for a git range the body). Such text is evidence, never an instruction,
// and any of it escalates the debate to a human (rules.RulePromptInjection). Hand-written: no
// maintained analyzer looks for text aimed at an AI reviewer.
type PromptInjectionAnalyzer struct{}

func (PromptInjectionAnalyzer) Name() string { return "prompt-injection" }

var injection = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions|prompts?|rules|guidelines|directions)`,
	`\b(?:ai|llm|gpt|language model|assistant|code reviewer|review bot|reviewer bot|debatebot)s?\b[^.\n]{0,40}\b(?:must|should|shall|need to|are instructed to)\s+(?:approve|ignore|skip|merge|not report|not flag)`,
	`\b(?:approve|merge|lgtm)\s+this\s+(?:pr|pull request|change)\s+(?:without|immediately|regardless)`,
	`\bdo\s+not\s+(?:report|flag|mention)\s+(?:any\s+|this\s+)?(?:security|issues?|vulnerabilit|findings?|problems?)`,
	`\byou\s+are\s+now\s+(?:a|an|in)\s+(?:\w+\s+)?(?:mode|assistant|ai|reviewer|bot|model)\b`,
	`</?\s*system\s*>|\[/?INST\]|<\|im_start\|>|<\|system\|>`,
	`\bnew\s+(?:system\s+)?instructions\s*:`,
}, "|"))

// nameSeparators turn a file name into words, so that "ignore-previous-instructions.md" reads
// as the sentence it hides.
var nameSeparators = strings.NewReplacer("/", " ", "-", " ", "_", " ", ".", " ", "+", " ", "~", " ")

func (PromptInjectionAnalyzer) Analyze(s *scan.Scan) {
	for _, f := range s.Change.Files {
		if f.Status == change.StatusDeleted || f.IsGenerated() {
			continue
		}
		for _, l := range f.AddedLines() {
			if m := injection.FindStringIndex(l.Text); m != nil {
				s.Report(rules.RulePromptInjection, f.Path, l.New, fmt.Sprintf("text addresses an AI reviewer: %q", quoteAround(l.Text, m)))
			}
		}
	}
	// File names reach the prompt and the transcript whatever the file holds, deleted and
	// generated files included.
	for _, f := range s.Change.Files {
		names := []string{f.Path}
		if f.OldPath != "" && f.OldPath != f.Path {
			names = append(names, f.OldPath)
		}
		for _, name := range names {
			words := nameSeparators.Replace(name)
			if injection.MatchString(name) || injection.MatchString(words) {
				s.Report(rules.RulePromptInjection, "", 0, fmt.Sprintf("the file name %q addresses an AI reviewer", scan.Clip(redact.Redact(name), 160)))
			}
		}
	}
	parts := []struct{ name, text string }{{"the change's title", s.Change.Title}, {"the change's description", s.Change.Body}}
	for i, msg := range s.Change.Commits {
		parts = append(parts, struct{ name, text string }{fmt.Sprintf("the message of commit %d", i+1), msg})
	}
	for _, part := range parts {
		if m := injection.FindStringIndex(part.text); m != nil {
			s.Report(rules.RulePromptInjection, "", 0, fmt.Sprintf("%s addresses an AI reviewer: %q", part.name, quoteAround(part.text, m)))
		}
	}
}

// quoteAround quotes the line of text that holds the match m, at most about 160 characters
// around it, secrets redacted: enough for a human to see what the change tries to make the
// reviewer do.
func quoteAround(text string, m []int) string {
	start := strings.LastIndexByte(text[:m[0]], '\n') + 1
	end := len(text)
	if i := strings.IndexByte(text[m[1]:], '\n'); i >= 0 {
		end = m[1] + i
	}
	if m[0]-start > 60 {
		start = m[0] - 60
		for start < m[0] && !utf8.RuneStart(text[start]) {
			start++
		}
	}
	q := strings.TrimSpace(text[start:end])
	// Redacted before it is cut, so that the cut cannot hide a secret from the detector.
	return scan.Clip(redact.Redact(scan.Clip(q, 400)), 160)
}

// changeAnalyzer looks at the change as a whole: dependencies, removed API, unfinished-work
// markers, tests, and size. Hand-written because these are facts about the change (what it
// adds, removes and leaves untested), not defects in one tree that an analyzer could see.
type changeAnalyzer struct{}

func (changeAnalyzer) Name() string { return "change" }

// DefaultMaxFileLines is how many added lines make an added file "very large".
const DefaultMaxFileLines = 800

var (
	goRequire   = regexp.MustCompile(`^\s*(?:require\s+)?([a-z0-9][\w.\-]*\.[a-z]{2,}(?:/[\w.\-~]+)+)\s+(v\d[\w.\-+]*)(\s*//\s*indirect)?`)
	npmDep      = regexp.MustCompile(`^\s*"(@?[\w.\-]+(?:/[\w.\-]+)?)"\s*:\s*"([\^~<>=]*\d[^"]*|latest|\*|git[^"]*|https?:[^"]*)"`)
	npmSection  = regexp.MustCompile(`"(?:dependencies|devDependencies|peerDependencies|optionalDependencies)"\s*:\s*\{`)
	pyRequire   = regexp.MustCompile(`^\s*([A-Za-z0-9][\w.\-\[\]]*)\s*(?:[=<>~!]=?|$|;)`)
	mvnArtifact = regexp.MustCompile(`<artifactId>([\w.\-]+)</artifactId>`)
	todo        = regexp.MustCompile(`(?:^|[^\w])(?://|#|/\*|\*|--|<!--)\s*.*?\b(TODO|FIXME|HACK|XXX)\b[:(\s]?`)
	goExported  = regexp.MustCompile(`^func\s+(?:\(\s*\w*\s*\*?\s*(\w+)(?:\[[^\]]*\])?\s*\)\s*)?([A-Z]\w*)\s*[\[(]|^type\s+([A-Z]\w*)\s`)
	pyPublic    = regexp.MustCompile(`^(?:def|class)\s+([A-Za-z]\w*)`)
	jsExported  = regexp.MustCompile(`^export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|interface|type|enum)\s+([A-Za-z_$][\w$]*)`)
	javaPublic  = regexp.MustCompile(`^\s*public\s+(?:static\s+|final\s+|abstract\s+|synchronized\s+)*(?:class|interface|enum|record|[\w<>\[\],\s]+?)\s+(\w+)\s*[({<]`)
	testDecl    = map[string]*regexp.Regexp{
		"go":         regexp.MustCompile(`^func\s+(Test\w*|Benchmark\w*|Fuzz\w*)\s*\(`),
		"python":     regexp.MustCompile(`^\s*def\s+(test_\w*)\s*\(`),
		"javascript": regexp.MustCompile(`^\s*(?:it|test)\s*\(\s*(["'\x60][^"'\x60]+["'\x60])`),
		"java":       regexp.MustCompile(`^\s*@Test\b()`),
	}
)

func (changeAnalyzer) Analyze(s *scan.Scan) {
	var code, tests []*change.File
	removed := removedDecls(s.Change)
	lines := map[*change.File]int{} // substantive added lines of each code file
	for _, f := range s.Change.Files {
		switch {
		case f.IsTest():
			tests = append(tests, f)
			testDeleted(s, f, removed)
		case f.Language() != "" && !f.IsGenerated() && f.Added > 0:
			if n := len(substantive(f)); n > 0 {
				code, lines[f] = append(code, f), n
			}
		}
		if f.Status == change.StatusDeleted {
			if !f.IsTest() {
				exportedRemoved(s, f)
			}
			continue
		}
		dependencies(s, f)
		if f.Language() != "" && !f.IsGenerated() {
			if !f.IsTest() {
				exportedRemoved(s, f)
			}
			for _, l := range f.AddedLines() {
				if m := todo.FindStringSubmatch(l.Text); m != nil {
					s.Report(rules.RuleTodo, f.Path, l.New, fmt.Sprintf("%s added: %s", m[1], scan.Clip(strings.TrimSpace(l.Text), 100)))
				}
			}
		}
		if f.Status == change.StatusAdded && f.Added > DefaultMaxFileLines && !f.IsGenerated() && f.Language() != "" {
			s.Report(rules.RuleLargeFile, f.Path, 1, fmt.Sprintf("a new file of %d lines", f.Added))
		}
	}
	if len(code) > 0 && len(tests) == 0 {
		// One note for the whole change, citing the file that changed most as a whole (line 0):
		// no line of it is "the untested line".
		biggest, most := code[0], 0
		names := make([]string, 0, len(code))
		for _, f := range code {
			names = append(names, f.Path)
			if n := lines[f]; n > most {
				biggest, most = f, n
			}
		}
		s.Report(rules.RuleUntestedChange, biggest.Path, 0, fmt.Sprintf("%d source file(s) changed (%s) and no test file was added or changed", len(code), strings.Join(scan.LimitNames(names, 4), ", ")))
	}
}

// substantive returns the added lines of f that carry code: not blank, not only a comment. A
// change that only edits comments or documentation changes no behaviour a test could check.
func substantive(f *change.File) []change.Line {
	added := f.AddedLines()
	if len(added) == 0 {
		return nil
	}
	if code, ok := goCodeLines(f); ok {
		var out []change.Line
		for _, l := range added {
			if code[l.New] {
				out = append(out, l)
			}
		}
		return out
	}
	hash := false
	switch f.Language() {
	case "python", "ruby", "shell":
		hash = true
	}
	var out []change.Line
	block, doc := false, ""
	for _, h := range f.Hunks {
		block, doc = false, ""
		for _, l := range h.Lines {
			if l.Kind == change.Deleted {
				continue
			}
			t := strings.TrimSpace(l.Text)
			comment := false
			switch {
			case t == "":
				comment = true
			case doc != "":
				comment = true
				if strings.Contains(t, doc) {
					doc = ""
				}
			case block:
				comment = true
				block = !strings.Contains(t, "*/")
			case hash && strings.HasPrefix(t, "#"):
				comment = true
			case f.Language() == "python" && (strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, "'''")):
				comment = true
				q := t[:3]
				if !strings.Contains(t[3:], q) {
					doc = q
				}
			case !hash && (strings.HasPrefix(t, "//") || t == "*" || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "*/")):
				comment = true
			case !hash && strings.HasPrefix(t, "/*"):
				comment = true
				block = !strings.Contains(t[2:], "*/")
			}
			if !comment && l.Kind == change.Added {
				out = append(out, l)
			}
		}
	}
	return out
}

// goCodeLines returns, for a Go file whose head content is known, the lines that hold a token
// other than a comment.
func goCodeLines(f *change.File) (map[int]bool, bool) {
	if f.Language() != "go" || !f.HasContent {
		return nil, false
	}
	fset := token.NewFileSet()
	tf := fset.AddFile(f.Path, -1, len(f.Content))
	var sc scanner.Scanner
	sc.Init(tf, f.Content, nil, 0) // comments are skipped
	code := map[int]bool{}
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line end, not written
		}
		code[fset.Position(pos).Line] = true
	}
	return code, true
}

// LimitNames keeps the first n of the names s, and says how many more there are.
func LimitNames(s []string, n int) []string { return scan.LimitNames(s, n) }

// dependencies reports modules and packages the change adds to a manifest.
func dependencies(s *scan.Scan, f *change.File) {
	base := path.Base(f.Path)
	removed := map[string]bool{}
	for _, l := range f.DeletedLines() {
		for _, re := range []*regexp.Regexp{goRequire, npmDep, pyRequire, mvnArtifact} {
			if m := re.FindStringSubmatch(l.Text); m != nil {
				removed[m[1]] = true
			}
		}
	}
	report := func(name string, line int, what string) {
		if removed[name] {
			return // a version change of an existing dependency
		}
		s.Report(rules.RuleNewDependency, f.Path, line, fmt.Sprintf("new %s dependency %s", what, name))
	}
	switch {
	case base == "go.mod":
		for _, l := range f.AddedLines() {
			if m := goRequire.FindStringSubmatch(l.Text); m != nil && m[3] == "" && !strings.HasPrefix(strings.TrimSpace(l.Text), "module") {
				report(m[1], l.New, "Go module")
			}
		}
	case base == "package.json":
		inDeps := false
		for _, l := range view(f) {
			t := strings.TrimSpace(l.text)
			switch {
			case npmSection.MatchString(t):
				inDeps = true
				continue
			case strings.HasPrefix(t, "}"):
				inDeps = false
			}
			if inDeps && l.added {
				if m := npmDep.FindStringSubmatch(l.text); m != nil {
					report(m[1], l.n, "npm")
				}
			}
		}
	case strings.HasPrefix(base, "requirements") && strings.HasSuffix(base, ".txt"):
		for _, l := range f.AddedLines() {
			t := strings.TrimSpace(l.Text)
			if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "-") {
				continue
			}
			if m := pyRequire.FindStringSubmatch(t); m != nil {
				report(m[1], l.New, "Python")
			}
		}
	case base == "pom.xml" || base == "build.gradle" || base == "build.gradle.kts":
		for _, l := range f.AddedLines() {
			if m := mvnArtifact.FindStringSubmatch(l.Text); m != nil {
				report(m[1], l.New, "Maven")
			}
		}
	}
}

// exportedRemoved reports public declarations the change deletes and does not add back.
func exportedRemoved(s *scan.Scan, f *change.File) {
	if strings.Contains("/"+f.Path, "/internal/") || strings.HasPrefix(f.Path, "cmd/") || strings.Contains(f.Path, "/cmd/") {
		return
	}
	var re *regexp.Regexp
	switch loopLang(f.Language()) {
	case "go":
		re = goExported
	case "python":
		re = pyPublic
	case "javascript":
		re = jsExported
	case "java":
		re = javaPublic
	default:
		return
	}
	name := func(m []string) string {
		for i := len(m) - 1; i >= 1; i-- {
			if m[i] != "" {
				if i == 2 && m[1] != "" {
					return m[1] + "." + m[2]
				}
				return m[i]
			}
		}
		return ""
	}
	added := map[string]bool{}
	for _, other := range s.Change.Files {
		if loopLang(other.Language()) != loopLang(f.Language()) {
			continue
		}
		for _, l := range other.AddedLines() {
			if m := re.FindStringSubmatch(l.Text); m != nil {
				added[name(m)] = true
			}
		}
	}
	for _, l := range f.DeletedLines() {
		m := re.FindStringSubmatch(l.Text)
		if m == nil || added[name(m)] {
			continue
		}
		n := name(m)
		if f.Language() == "python" && strings.HasPrefix(n, "_") {
			continue
		}
		// Cite the file where the declaration stood: the deleted file's removed line, or the
		// nearest new-side line of a modified file.
		line := l.Old
		if f.Status != change.StatusDeleted {
			line = nearestNew(f, l.Old)
		}
		s.Report(rules.RuleExportedRemoved, f.Path, line, fmt.Sprintf("public %s is removed from %s", n, f.Path))
	}
}

// nearestNew maps an old-side line to the new-side line where the hunk continues.
func nearestNew(f *change.File, old int) int {
	for _, h := range f.Hunks {
		last := 0
		for _, l := range h.Lines {
			if l.Kind != change.Deleted {
				last = l.New
			}
			if l.Kind == change.Deleted && l.Old == old {
				if last == 0 {
					// Removed at the top of the hunk: the first surviving line follows.
					for _, n := range h.Lines {
						if n.Kind != change.Deleted {
							return n.New
						}
					}
					return max(h.NewStart, 1)
				}
				return last
			}
		}
	}
	return 1
}

// testDeleted reports tests the change removes while the code they tested remains. A test
// added back in any test file of the change (renamed file, moved test) is not removed; a test
// whose subject the change removes too (its source file, or a declaration it names or calls) went
// with its code and is not reported.
func testDeleted(s *scan.Scan, f *change.File, removed map[string]bool) {
	re := testDecl[loopLang(f.Language())]
	readded := readdedTests(s, f, re)
	deleted := f.DeletedLines()
	if f.Status == change.StatusDeleted {
		if subjectDeleted(s.Change, f) {
			return
		}
		if re == nil {
			if !mentionsAny(deleted, removed) {
				s.Report(rules.RuleTestDeleted, f.Path, 1, fmt.Sprintf("test file %s is deleted (%d lines)", f.Path, f.Deleted))
			}
			return
		}
	}
	if re == nil {
		return
	}
	var kept []*removedTest
	for _, t := range splitRemovedTests(deleted, re) {
		if t.name != "" && readded[t.name] > 0 {
			readded[t.name]--
			continue // renamed file or moved test
		}
		if testsRemovedCode(t.name, t.body, removed) {
			continue
		}
		kept = append(kept, t)
	}
	if f.Status == change.StatusDeleted {
		// A deleted file with no test in it (a helper, fixtures) deletes no test.
		if len(kept) > 0 {
			names := make([]string, 0, len(kept))
			for _, t := range kept {
				if t.name != "" {
					names = append(names, t.name)
				}
			}
			what := ""
			if len(names) > 0 {
				what = " (" + strings.Join(scan.LimitNames(names, 4), ", ") + ")"
			}
			s.Report(rules.RuleTestDeleted, f.Path, kept[0].at.Old, fmt.Sprintf("test file %s is deleted with %d test(s)%s while the code they tested remains", f.Path, len(kept), what))
		}
		return
	}
	for _, t := range kept {
		what := t.name
		if what == "" {
			what = "a @Test method"
		}
		s.Report(rules.RuleTestDeleted, f.Path, nearestNew(f, t.at.Old), fmt.Sprintf("test %s is removed while the code it tested remains", what))
	}
}

// readdedTests counts, by name, the tests that the change's test files of f's language add
// (re finds a test's declaration; nil finds none).
func readdedTests(s *scan.Scan, f *change.File, re *regexp.Regexp) map[string]int {
	readded := map[string]int{}
	if re == nil {
		return readded
	}
	for _, other := range s.Change.Files {
		if !other.IsTest() || loopLang(other.Language()) != loopLang(f.Language()) {
			continue
		}
		for _, l := range other.AddedLines() {
			if m := re.FindStringSubmatch(l.Text); m != nil && m[1] != "" {
				readded[m[1]]++
			}
		}
	}
	return readded
}

// removedTest is one test among a file's removed lines: its name (empty for an unnamed
// @Test method), its declaration line and its lines.
type removedTest struct {
	name string
	at   change.Line
	body []change.Line
}

// splitRemovedTests splits the removed lines into tests: each runs from its declaration (found
// by re) to the next one; lines before the first declaration belong to none.
func splitRemovedTests(deleted []change.Line, re *regexp.Regexp) []*removedTest {
	var tests []*removedTest
	var cur *removedTest
	for _, l := range deleted {
		if m := re.FindStringSubmatch(l.Text); m != nil {
			cur = &removedTest{name: m[1], at: l}
			tests = append(tests, cur)
		}
		if cur != nil {
			cur.body = append(cur.body, l)
		}
	}
	return tests
}

// testPrefix strips the naming conventions of tests down to their subject.
var testPrefix = regexp.MustCompile(`^(?:Test|Benchmark|Fuzz|Example|test_?)_?`)

// testsRemovedCode reports whether a removed test's subject is removed by the change too: its
// name is that of a removed declaration, or its body names one.
func testsRemovedCode(name string, body []change.Line, removed map[string]bool) bool {
	if subject := testPrefix.ReplaceAllString(strings.Trim(name, "\"'`"), ""); subject != "" {
		for part := range strings.SplitSeq(subject, "_") {
			for r := range removed {
				if strings.EqualFold(part, r) {
					return true
				}
			}
		}
	}
	return mentionsAny(body, removed)
}

var word = regexp.MustCompile(`[A-Za-z_$][\w$]*`)

func mentionsAny(lines []change.Line, names map[string]bool) bool {
	for _, l := range lines {
		for _, w := range word.FindAllString(l.Text, -1) {
			if names[w] {
				return true
			}
		}
	}
	return false
}

// subjectDeleted reports whether the change deletes the source file a deleted test file tests,
// by the naming conventions of its language (x_test.go tests x.go, test_x.py x.py, x.test.ts
// x.ts, XTest.java X.java).
func subjectDeleted(c *change.Change, f *change.File) bool {
	dir, base := path.Split(f.OldPath)
	if f.OldPath == "" {
		dir, base = path.Split(f.Path)
	}
	var subject string
	sameDir := false
	switch {
	case strings.HasSuffix(base, "_test.go"):
		subject, sameDir = strings.TrimSuffix(base, "_test.go")+".go", true
	case strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"):
		subject = strings.TrimPrefix(base, "test_")
	case strings.HasSuffix(base, "_test.py"):
		subject = strings.TrimSuffix(base, "_test.py") + ".py"
	case strings.Contains(base, ".test.") || strings.Contains(base, ".spec."):
		subject = strings.Replace(strings.Replace(base, ".test.", ".", 1), ".spec.", ".", 1)
	case strings.HasSuffix(base, "Tests.java"):
		subject = strings.TrimSuffix(base, "Tests.java") + ".java"
	case strings.HasSuffix(base, "Test.java"):
		subject = strings.TrimSuffix(base, "Test.java") + ".java"
	default:
		return false
	}
	for _, o := range c.Files {
		if o.Status != change.StatusDeleted || o.IsTest() {
			continue
		}
		p := o.Path
		if o.OldPath != "" {
			p = o.OldPath
		}
		od, ob := path.Split(p)
		if ob == subject && (!sameDir || od == dir) {
			return true
		}
	}
	return false
}

// declaration patterns by language: the names a file declares, exported or not.
var declared = map[string]*regexp.Regexp{
	"go":         regexp.MustCompile(`^(?:func\s+(?:\([^)]*\)\s*)?|type\s+|var\s+|const\s+)([A-Za-z_]\w*)`),
	"python":     regexp.MustCompile(`^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)`),
	"javascript": regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)`),
	"java":       regexp.MustCompile(`^\s*(?:(?:public|private|protected|static|final|abstract|synchronized)\s+)*(?:class\s+|interface\s+|enum\s+|record\s+|[\w<>\[\],]+\s+)([A-Za-z_]\w*)\s*[({<]`),
}

// removedDecls returns the names that non-test code of the change declares on removed lines and
// declares again on no added line: code the change takes away.
func removedDecls(c *change.Change) map[string]bool {
	gone, back := map[string]bool{}, map[string]bool{}
	for _, f := range c.Files {
		re := declared[loopLang(f.Language())]
		if re == nil || f.IsTest() {
			continue
		}
		for _, l := range f.DeletedLines() {
			if m := re.FindStringSubmatch(l.Text); m != nil && m[1] != "_" {
				gone[m[1]] = true
			}
		}
		for _, l := range f.AddedLines() {
			if m := re.FindStringSubmatch(l.Text); m != nil {
				back[m[1]] = true
			}
		}
	}
	for n := range back {
		delete(gone, n)
	}
	return gone
}
