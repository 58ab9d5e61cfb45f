package external

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// Tool is an analyzer of another language run as a program (bandit, pyflakes, pylint,
// ESLint, ShellCheck, Cppcheck): the runner gives it the changed files of its language in a tree, runs it there and
// reads its machine-readable report. Tools only read the files; none of them executes the
// repository's code or reads its configuration (see each tool's Command).
type Tool interface {
	// Name names the tool in findings (Source) and notes ("bandit").
	Name() string
	// Language names the files it analyses, for notes ("Python").
	Language() string
	// Handles reports whether the tool analyses the file at path (by its extension).
	Handles(path string) bool
	// Command returns the program and arguments that analyse files (slash-separated paths
	// relative to the working directory, each starting with "./" so that none reads as an
	// option), or an error wrapping ErrNotInstalled when the tool cannot be found.
	Command(files []string) (program string, args []string, err error)
	// Parse reads the tool's report into findings and problems (a file the tool could not
	// analyse, with why), their paths as the tool printed them: the runner makes them relative to
	// the tree, keeps those of the files it gave and fills in Func. An error says the output is not
	// the report the tool should print.
	Parse(out *ToolOutput) (found []scan.Finding, problems []Problem, err error)
}

// Problem is a file, or a place in it, that a tool could not analyse, and why.
type Problem struct {
	Path   string
	Line   int
	Reason string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Reason)
	}
	return p.Path + ": " + p.Reason
}

// ErrNotInstalled says that an external tool is not installed.
var ErrNotInstalled = errors.New("not installed")

// ToolOutput is what a tool printed and how it ended.
type ToolOutput struct {
	Stdout, Stderr []byte
	ExitCode       int
	// CPU is the processor time (user and system) the tool used.
	CPU time.Duration
}

// DefaultTools returns the external tools debatebot runs when they are installed.
func DefaultTools() []Tool {
	return []Tool{Bandit{}, Pyflakes{}, Pylint{}, ESLint{Dir: ESLintDir()}, ShellCheck{}, Cppcheck{}}
}

// Limits of one tool run.
const (
	// DefaultToolTimeout bounds one run of a tool over one tree.
	DefaultToolTimeout = 2 * time.Minute
	// maxToolOutput bounds what is read of a tool's standard output and of its standard error;
	// a tool that prints more is stopped and its report is not read.
	maxToolOutput = 16 << 20
	// maxToolFiles bounds the files one tool is given; the rest are left out with a note.
	maxToolFiles = 500
	// maxScopeBytes bounds the part of a file read to name the scope of a finding.
	maxScopeBytes = 4 << 20
)

// ChangedFile is a file of the change: its path in head and, when it was renamed, in base.
type ChangedFile struct {
	Path    string
	OldPath string
}

// Options of Run.
type Options struct {
	// BaseDir and HeadDir are the trees of the change. With BaseDir empty only the head is
	// analysed and every finding counts as new (the caller keeps those on added lines).
	BaseDir, HeadDir string
	// Files are the changed files, slash-separated and relative to the trees' roots.
	Files []ChangedFile
	// Tools are the tools to run (DefaultTools when nil).
	Tools []Tool
	// Timeout bounds each run of a tool over one tree (DefaultToolTimeout when 0).
	Timeout time.Duration
}

// ToolResult is what one external tool found in the change.
type ToolResult struct {
	Tool     string
	Language string
	// Files counts the head files given to the tool; LeftOut those left out beyond maxToolFiles.
	Files, LeftOut int
	// Missing, when set, says the tool is not installed (and why, e.g. no node on PATH); it did
	// not run.
	Missing string
	// Failed, when set, says why the tool's run or its report failed; nothing was found then.
	Failed string
	// Problems are files the tool could not analyse, with why (a syntax error).
	Problems []string
	// New are head findings absent from the base; Preexisting counts those the base has.
	New         []scan.Finding
	Preexisting int
	// Elapsed is the wall time of the runs over base and head.
	Elapsed time.Duration
}

// Run runs each tool that handles some changed file over those files in the base and head
// trees and keeps the findings new in head (toolChain: the catalog's severity cap, then
// compareExternal). Tools run one after the other, each over base and head at once. A tool
// that is missing, fails or prints something other than its report is described in its
// result; it never fails the run. Only the context's end does, with an error.
func Run(ctx context.Context, opts Options) ([]ToolResult, error) {
	tools := opts.Tools
	if tools == nil {
		tools = DefaultTools()
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultToolTimeout
	}
	var out []ToolResult
	for _, tool := range tools {
		var head, base []string
		rename := map[string]string{} // base path -> head path
		leftOut := 0
		for _, f := range opts.Files {
			if !tool.Handles(f.Path) || !filepath.IsLocal(filepath.FromSlash(f.Path)) || !isFile(opts.HeadDir, f.Path) {
				continue
			}
			if len(head) == maxToolFiles {
				leftOut++ // with its base file: the two sides are compared file by file
				continue
			}
			head = append(head, f.Path)
			old := f.Path
			if f.OldPath != "" {
				old = f.OldPath
			}
			if opts.BaseDir != "" && filepath.IsLocal(filepath.FromSlash(old)) && isFile(opts.BaseDir, old) {
				base = append(base, old)
				rename[old] = f.Path
			}
		}
		if len(head) == 0 {
			continue // no file of its language: the tool is not mentioned at all
		}
		res := ToolResult{Tool: tool.Name(), Language: tool.Language(), Files: len(head), LeftOut: leftOut}
		if err := runOne(ctx, tool, opts.BaseDir, opts.HeadDir, base, head, rename, timeout, &res); err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

func isFile(root, p string) bool {
	st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
	return err == nil && st.Mode().IsRegular()
}

func runOne(ctx context.Context, tool Tool, baseDir, headDir string, base, head []string, rename map[string]string, timeout time.Duration, res *ToolResult) error {
	if _, _, err := tool.Command(head); err != nil {
		if !errors.Is(err, ErrNotInstalled) {
			res.Failed = scan.Clip(err.Error(), 300)
			return nil
		}
		res.Missing = err.Error()
		return nil
	}
	start := time.Now()
	var baseRep *toolReport
	var baseErr error
	var wg sync.WaitGroup
	if len(base) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			baseRep, baseErr = analyzeWith(ctx, tool, baseDir, base, timeout)
		}()
	}
	headRep, headErr := analyzeWith(ctx, tool, headDir, head, timeout)
	wg.Wait()
	res.Elapsed = time.Since(start)
	scan.TimingsOf(ctx).Add("tool "+tool.Name(), res.Elapsed, 0)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s stopped: %w", tool.Name(), err)
	}
	switch {
	case headErr != nil:
		res.Failed = scan.Clip(headErr.Error(), 400)
		return nil
	case baseErr != nil:
		// Without the base's findings every head finding would look new.
		res.Failed = "on the base tree: " + scan.Clip(baseErr.Error(), 400)
		return nil
	}
	for _, p := range headRep.problems {
		res.Problems = append(res.Problems, p.String())
	}
	if baseRep == nil {
		baseRep = &toolReport{}
	}
	for i := range baseRep.found {
		if p, ok := rename[baseRep.found[i].Path]; ok {
			baseRep.found[i].Path = p // a renamed file's findings are compared under its new name
		}
	}
	found := make([]scan.Finding, len(headRep.found))
	for i, l := range headRep.found {
		found[i] = l.Finding
	}
	cmp := &toolComparison{base: baseRep.found, headLines: headRep.lines}
	fresh, errs := scan.RunChain(toolChain(cmp), found)
	if err := errors.Join(errs...); err != nil {
		// Without the comparison every head finding would look new: report none.
		res.Failed = "comparing base and head: " + scan.Clip(err.Error(), 400)
		return nil
	}
	res.New, res.Preexisting = fresh, cmp.preexisting
	return nil
}

// located is a finding with the text of its line (whitespace collapsed), which picks the new
// ones among findings of the same key.
type located struct {
	scan.Finding
	text string
}

type toolReport struct {
	found    []located
	problems []Problem
	// lines are the lines of the files that hold findings, by path, as read for their text.
	lines map[string][]string
}

// analyzeWith runs tool over files in dir and reads its report; findings are made relative to
// dir, limited to the files given, and given the scope that holds them.
func analyzeWith(ctx context.Context, tool Tool, dir string, files []string, timeout time.Duration) (*toolReport, error) {
	args := make([]string, len(files))
	for i, f := range files {
		args[i] = "./" + f
	}
	program, argv, err := tool.Command(args)
	if err != nil {
		return nil, err
	}
	out, err := runTool(ctx, dir, timeout, program, argv...)
	if err != nil {
		return nil, err
	}
	scan.TimingsOf(ctx).Add("tool "+tool.Name(), 0, out.CPU)
	found, problems, err := tool.Parse(out)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("failed to resolve tree %s: %w", dir, err)
	}
	given := map[string]bool{}
	for _, f := range files {
		given[f] = true
	}
	rep := &toolReport{lines: map[string][]string{}}
	for _, p := range problems {
		p.Path = treePath(abs, p.Path)
		if given[p.Path] {
			// Only the files given: a header Cppcheck read can be anywhere (an #include of an
			// absolute path), and what it says about it is not for the transcript.
			rep.problems = append(rep.problems, p)
		}
	}
	for _, f := range found {
		f.Path = treePath(abs, f.Path)
		if !given[f.Path] {
			continue // a header Cppcheck followed, or a path outside the tree
		}
		lines, ok := rep.lines[f.Path]
		if !ok {
			lines = readLines(filepath.Join(abs, filepath.FromSlash(f.Path)))
			rep.lines[f.Path] = lines
		}
		l := located{Finding: f, text: lineText(lines, f.Line)}
		if f.Line >= 1 && f.Line <= len(lines) && l.Func == "" {
			l.Func = enclosingScope(f.Path, lines, f.Line)
		}
		rep.found = append(rep.found, l)
	}
	sortLocated(rep.found)
	return rep, nil
}

// treePath turns a path a tool printed (absolute, or relative to the tree, perhaps with "./")
// into the slash-separated path relative to the tree.
func treePath(root, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		if rel, err := filepath.Rel(root, p); err == nil {
			p = rel
		}
	}
	return path.Clean(filepath.ToSlash(p))
}

// lineText is line (1-based) of lines with its whitespace collapsed, or "" when there is no
// such line.
func lineText(lines []string, line int) string {
	if line < 1 || line > len(lines) {
		return ""
	}
	return strings.Join(strings.Fields(lines[line-1]), " ")
}

func readLines(name string) []string {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, maxScopeBytes)) // what was read names scopes; the rest has none
	return strings.Split(string(data), "\n")
}

func sortLocated(fs []located) {
	slices.SortStableFunc(fs, func(a, b located) int {
		switch {
		case a.Path != b.Path:
			return strings.Compare(a.Path, b.Path)
		case a.Line != b.Line:
			return a.Line - b.Line
		case a.Column != b.Column:
			return a.Column - b.Column
		}
		return strings.Compare(a.Rule, b.Rule)
	})
}

// compareExternal keeps the head findings that are new, by Finding.Key (rule, file, scope and
// normalised message, as Compare). When a key has more occurrences in head than in base, the
// occurrences beyond the base's count are new; which ones is told by their lines' text: a head
// occurrence whose line reads as a base occurrence's line is the same one moved, and the others
// are new (the last ones in head's order when the text does not tell).
func compareExternal(base, head []located) (fresh []scan.Finding, preexisting int) {
	baseTexts := map[string]map[string]int{}
	baseCount := map[string]int{}
	for _, f := range base {
		k := f.Key()
		baseCount[k]++
		if baseTexts[k] == nil {
			baseTexts[k] = map[string]int{}
		}
		baseTexts[k][f.text]++
	}
	byKey := map[string][]int{}
	var order []string
	for i, f := range head {
		k := f.Key()
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	isNew := make([]bool, len(head))
	for _, k := range order {
		idx := byKey[k]
		budget := baseCount[k]
		texts := baseTexts[k]
		var unmatched []int
		for _, i := range idx {
			if budget > 0 && texts[head[i].text] > 0 {
				texts[head[i].text]--
				budget--
				preexisting++
				continue
			}
			unmatched = append(unmatched, i)
		}
		// The base occurrences left are taken to be edited lines of head, the first ones first.
		for j, i := range unmatched {
			if j < budget {
				preexisting++
				continue
			}
			isNew[i] = true
		}
	}
	for i, f := range head {
		if isNew[i] {
			fresh = append(fresh, f.Finding)
		}
	}
	return fresh, preexisting
}

// Scopes: the line that opens a function or class, by language, and the group holding its name.
var (
	pythonScope = regexp.MustCompile(`^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)`)
	shellScope  = regexp.MustCompile(`^\s*(?:function\s+([\w.:-]+)|([\w.:-]+)\s*\(\s*\))`)
	jsScope     = regexp.MustCompile(`(?:^|[\s(=:,])(?:function\s*\*?\s*([\w$]+)\s*\(|class\s+([\w$]+))|^\s*(?:(?:export|default|public|private|protected|static|async|get|set|readonly|override)\s+)*([\w$]+)\s*(?:<[^>]*>)?\([^;]*\)\s*(?::[^{;=]*)?\{\s*$|([\w$]+)\s*[:=]\s*(?:async\s*)?(?:function\b|\([^()]*\)\s*(?::[^=]*)?=>|[\w$]+\s*=>)`)
	cScope      = regexp.MustCompile(`^(?:[A-Za-z_][\w\s\*&:<>,~]*?[\s\*&])?([A-Za-z_~][\w:~]*)\s*\([^;]*$`)
	notAName    = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true, "sizeof": true, "else": true, "do": true, "function": true}
)

// enclosingScope names the functions and classes that hold line (1-based) of a file, outer first
// ("Class.method"), from their headers and indentation: a header holds the lines after it that
// are indented more. It is a heuristic for languages the runner does not parse; "" when it finds
// no header (top level, or a layout it does not follow).
func enclosingScope(p string, lines []string, line int) string {
	var header *regexp.Regexp
	switch strings.ToLower(path.Ext(p)) {
	case ".py":
		header = pythonScope
	case ".sh", ".bash":
		header = shellScope
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx":
		header = jsScope
	case ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx":
		header = cScope
	default:
		return ""
	}
	bound := indentOf(lines[line-1])
	if bound == 0 {
		return ""
	}
	var names []string
	for i := line - 2; i >= 0 && bound > 0; i-- {
		l := lines[i]
		t := strings.TrimSpace(l)
		if t == "" || strings.Trim(t, "{}();,") == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") {
			continue // blank, a lone brace, a comment or a preprocessor line: they open nothing
		}
		ind := indentOf(l)
		if ind >= bound {
			continue
		}
		bound = ind
		if m := header.FindStringSubmatch(l); m != nil {
			for _, g := range m[1:] {
				if g != "" && !notAName[g] {
					names = append(names, g)
					break
				}
			}
		}
	}
	slices.Reverse(names)
	return strings.Join(names, ".")
}

// indentOf is a line's indentation in columns (a tab counts as 8).
func indentOf(l string) int {
	n := 0
	for _, r := range l {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return len(l) + 1 // a blank line holds nothing
}

// runTool runs program in dir with a timeout under ctx, an environment without the caller's
// variables (see toolEnv) and bounded output. A tool's non-zero exit is not an error here: most
// tools exit 1 when they found something, and Parse judges the exit code with the report.
func runTool(ctx context.Context, dir string, timeout time.Duration, program string, args ...string) (*ToolOutput, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	scratch, err := os.MkdirTemp("", "debatebot-tool-")
	if err != nil {
		return nil, fmt.Errorf("failed to make a scratch directory for %s: %w", filepath.Base(program), err)
	}
	defer os.RemoveAll(scratch)
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = dir
	cmd.Env = toolEnv(scratch)
	cmd.WaitDelay = 5 * time.Second // a child that keeps the pipes open does not hold the run
	stdout := &capped{max: maxToolOutput, over: cancel}
	stderr := &capped{max: maxToolOutput, over: cancel}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	out := &ToolOutput{Stdout: stdout.buf.Bytes(), Stderr: stderr.buf.Bytes()}
	if ps := cmd.ProcessState; ps != nil {
		out.CPU = ps.UserTime() + ps.SystemTime()
	}
	name := filepath.Base(program)
	switch {
	case stdout.full || stderr.full:
		return nil, fmt.Errorf("%s printed more than %d MiB; its report was not read", name, maxToolOutput>>20)
	case parent.Err() != nil:
		return nil, fmt.Errorf("%s stopped: %w", name, parent.Err())
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s did not finish within %s", name, timeout)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if !exit.Exited() {
			return nil, fmt.Errorf("%s was killed (%s): %s", name, exit.ProcessState, scan.Clip(strings.TrimSpace(string(out.Stderr)), 300))
		}
		out.ExitCode = exit.ExitCode()
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to run %s: %w", name, err)
	}
	return out, nil
}

// toolEnv is the environment of a tool: the few variables it needs from the process (PATH and
// locale), with HOME and TMPDIR in a scratch directory. Everything else, among it GITHUB_*,
// DEBATEBOT_*, OPENAI_* and whatever else holds a secret, is left out: the tools read code a pull
// request's author wrote, and nothing they run with should be worth stealing.
func toolEnv(scratch string) []string {
	env := []string{"HOME=" + scratch, "TMPDIR=" + scratch, "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1", "NO_COLOR=1"}
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// capped keeps the first max bytes written to it and drains the rest, calling over once when it
// fills up (the caller stops the tool then).
type capped struct {
	buf  bytes.Buffer
	max  int
	full bool
	over func()
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if len(p) <= room {
		c.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	if !c.full {
		c.full = true
		c.over()
	}
	return len(p), nil
}

// lookPath finds a program on PATH; its absence is ErrNotInstalled.
func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w (no %s on PATH)", ErrNotInstalled, name)
	}
	return p, nil
}

// reportError says that a tool's output is not its report, quoting what it printed.
func reportError(tool string, out *ToolOutput, err error) error {
	said := strings.TrimSpace(string(out.Stderr))
	if said == "" {
		said = strings.TrimSpace(string(out.Stdout))
	}
	if said == "" {
		said = "nothing"
	}
	return fmt.Errorf("%s exited with status %d and its output is not its report (%v); it printed: %s", tool, out.ExitCode, err, scan.Clip(said, 300))
}

// externalRule is what the catalog says about one rule of an external tool: its title, the most
// serious severity its findings may have, its topic, what to do and where it is documented.
type externalRule struct {
	title, topic, fix, url string
	severity               voting.Severity
}

// externalCatalogs are the catalogs of the tools, by tool name.
var externalCatalogs = map[string]map[string]externalRule{}

// The catalogs are filled when the package's variables are initialised, before any
// init function runs (the rule catalog's registration in external_adapter.go reads them).
var _ = func() bool {
	registerBandit()
	registerPyflakes()
	registerPylint()
	registerESLint()
	registerShellCheck()
	registerCppcheck()
	return true
}()

// Checks lists the rules the external tools may report, ordered by rule: for each tool the
// rules of its catalog ("bandit:B602", "eslint:no-eval", "shellcheck:SC2115",
// "cppcheck:nullPointer"), and its catch-all rule ("bandit:other") under which a finding of a
// rule the catalog does not know is reported with the tool's rule id in its message.
func Checks() []rules.Check {
	var out []rules.Check
	for tool, cat := range externalCatalogs {
		for id, r := range cat {
			out = append(out, rules.Check{Rule: tool + ":" + id, Source: tool, Title: r.title, URL: r.url, Severity: r.severity, Topic: r.topic, Fix: r.fix})
		}
		out = append(out, rules.Check{Rule: OtherRule(tool), Source: tool, Title: "Other " + tool + " finding",
			URL: otherURLs[tool], Severity: voting.SeverityMedium, Topic: otherTopics[tool], Fix: "fix what " + tool + " reports"})
	}
	slices.SortFunc(out, func(a, b rules.Check) int { return strings.Compare(a.Rule, b.Rule) })
	return out
}

// OtherRule is the catch-all rule of a tool.
func OtherRule(tool string) string { return tool + ":other" }

var (
	otherURLs   = map[string]string{}
	otherTopics = map[string]string{}
)

// externalFinding builds a finding of tool for its rule id: a rule of the catalog keeps its id
// (and the tool's severity, which the catalog's cap lowers later: see toolChain); another goes
// under the tool's catch-all rule with the id in front of its message.
func externalFinding(tool, id string, sev voting.Severity, p string, line, col int, msg string) scan.Finding {
	f := scan.Finding{Source: tool, Severity: sev, Topic: otherTopics[tool], Path: p, Line: line, Column: col, Message: msg}
	if r, ok := externalCatalogs[tool][id]; ok {
		f.Rule, f.Topic = tool+":"+id, r.topic
		return f
	}
	f.Rule = OtherRule(tool)
	if id != "" {
		f.Message = id + ": " + msg
	}
	return f
}
