package external

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// SourcePyflakes names pyflakes (PyCQA's checker of Python's names and literals) as the source of
// findings.
const SourcePyflakes = "pyflakes"

// Pyflakes runs pyflakes (Debian's pyflakes3, 2.5 on bookworm) over Python files. It parses the
// files with Python's ast module and never imports them; it reads no configuration, and its
// program's own directory, not the tree, is on its sys.path.
type Pyflakes struct{}

// Name implements Tool.
func (Pyflakes) Name() string { return SourcePyflakes }

// Language implements Tool.
func (Pyflakes) Language() string { return "Python" }

// Handles implements Tool.
func (Pyflakes) Handles(p string) bool { return strings.EqualFold(path.Ext(p), ".py") }

// Command implements Tool: Debian names the program pyflakes3; pip's is pyflakes.
func (Pyflakes) Command(files []string) (string, []string, error) {
	p, err := lookPath("pyflakes3")
	if err != nil {
		if p, err = lookPath("pyflakes"); err != nil {
			return "", nil, fmt.Errorf("%w (no pyflakes3 or pyflakes on PATH)", ErrNotInstalled)
		}
	}
	return p, files, nil
}

// pyflakesMessages tell pyflakes' messages, which carry no code, apart: the first pattern that
// matches names the rule. A message none matches goes under pyflakes:other.
var pyflakesMessages = []struct {
	id string
	re *regexp.Regexp
}{
	{"undefined-name", regexp.MustCompile(`^undefined name `)},
	{"undefined-local", regexp.MustCompile(`^local variable .* referenced before assignment`)},
	{"star-import-name", regexp.MustCompile(` may be undefined, or defined from star imports`)},
	{"star-import", regexp.MustCompile(` used; unable to detect undefined names`)},
	{"unused-import", regexp.MustCompile(` imported but unused`)},
	{"unused-variable", regexp.MustCompile(`^local variable .* is assigned to but never used`)},
	{"redefined-while-unused", regexp.MustCompile(`^redefinition of unused `)},
	{"import-shadowed-by-loop-var", regexp.MustCompile(`^import .* shadowed by loop variable`)},
	{"repeated-key", regexp.MustCompile(`^dictionary key .* repeated with different values`)},
	{"format-mismatch", regexp.MustCompile(`^'\.\.\.'(?: % \.\.\.|\.format\(\.\.\.\)) `)},
	{"constant-test", regexp.MustCompile(`^(?:'if tuple literal'|assertion) is always true`)},
	{"is-literal", regexp.MustCompile(`^use ==/!= to compare constant literals`)},
	{"raise-not-implemented", regexp.MustCompile(`'raise NotImplemented' should be`)},
	{"fstring-missing-placeholders", regexp.MustCompile(`^f-string is missing placeholders`)},
}

// pyflakesRules is the catalog of pyflakes' messages, with the most serious severity each may
// have. Unused names and star imports are low: they are untidy, rarely wrong.
var pyflakesRules = map[string]externalRule{
	"undefined-name":               {title: "undefined name", severity: voting.SeverityMedium, fix: "define or import the name before it is used"},
	"undefined-local":              {title: "local variable used before assignment", severity: voting.SeverityMedium, fix: "assign the variable on every path before it is read"},
	"star-import-name":             {title: "name perhaps undefined (star import)", severity: voting.SeverityLow, fix: "import the name explicitly"},
	"star-import":                  {title: "star import hides undefined names", severity: voting.SeverityLow, fix: "import the names explicitly"},
	"unused-import":                {title: "unused import", severity: voting.SeverityLow, fix: "remove the import"},
	"unused-variable":              {title: "variable assigned but never used", severity: voting.SeverityLow, fix: "use the value or drop the assignment"},
	"redefined-while-unused":       {title: "name redefined before it was used", severity: voting.SeverityLow, fix: "remove the first definition or rename one of them"},
	"import-shadowed-by-loop-var":  {title: "import shadowed by a loop variable", severity: voting.SeverityMedium, fix: "rename the loop variable"},
	"repeated-key":                 {title: "dictionary key repeated with different values", severity: voting.SeverityMedium, fix: "keep one entry per key"},
	"format-mismatch":              {title: "format string and arguments do not match", severity: voting.SeverityMedium, fix: "give the format string exactly the arguments its placeholders take"},
	"constant-test":                {title: "test that is always true", severity: voting.SeverityMedium, fix: "remove the parentheses or the stray comma that make the test a tuple"},
	"is-literal":                   {title: "is used to compare with a literal", severity: voting.SeverityMedium, fix: "compare values with == or !=, not is"},
	"raise-not-implemented":        {title: "raise NotImplemented", severity: voting.SeverityMedium, fix: "raise NotImplementedError"},
	"fstring-missing-placeholders": {title: "f-string without placeholders", severity: voting.SeverityLow, fix: "drop the f prefix or add the placeholders"},
}

// pyflakesLine is one line of pyflakes' report: path:line:column: message (2.2 and later).
var pyflakesLine = regexp.MustCompile(`^(.+?):(\d+):(\d+):? (.+)$`)

// Parse implements Tool: pyflakes prints its findings on standard output, exits 1 when it
// found something and 0 otherwise; a file it cannot parse is reported on standard error (the
// line, then the source line and a caret).
func (Pyflakes) Parse(out *ToolOutput) ([]scan.Finding, []Problem, error) {
	if out.ExitCode > 1 {
		return nil, nil, reportError(SourcePyflakes, out, fmt.Errorf("exit status %d", out.ExitCode))
	}
	var found []scan.Finding
	sc := bufio.NewScanner(bytes.NewReader(out.Stdout))
	sc.Buffer(make([]byte, 0, 64<<10), maxToolOutput)
	for sc.Scan() {
		m := pyflakesLine.FindStringSubmatch(sc.Text())
		if m == nil {
			if strings.TrimSpace(sc.Text()) != "" {
				return nil, nil, reportError(SourcePyflakes, out, fmt.Errorf("a line is not path:line:column: message"))
			}
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		id := ""
		for _, p := range pyflakesMessages {
			if p.re.MatchString(m[4]) {
				id = p.id
				break
			}
		}
		found = append(found, externalFinding(SourcePyflakes, id, voting.SeverityMedium, m[1], line, col, m[4]))
	}
	var problems []Problem
	for _, l := range strings.Split(string(out.Stderr), "\n") {
		if m := pyflakesLine.FindStringSubmatch(l); m != nil {
			line, _ := strconv.Atoi(m[2])
			problems = append(problems, Problem{Path: m[1], Line: line, Reason: m[4]})
		}
	}
	return found, problems, nil
}

func registerPyflakes() {
	for id, r := range pyflakesRules {
		r.topic = rules.TopicCorrectness
		r.url = "https://github.com/PyCQA/pyflakes/blob/main/pyflakes/messages.py"
		pyflakesRules[id] = r
	}
	externalCatalogs[SourcePyflakes] = pyflakesRules
	otherURLs[SourcePyflakes] = "https://github.com/PyCQA/pyflakes/blob/main/pyflakes/messages.py"
	otherTopics[SourcePyflakes] = rules.TopicCorrectness
}
