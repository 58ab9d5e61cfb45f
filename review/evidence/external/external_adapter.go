package external

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// IsExternal reports whether analyzer is one of the external tools (review/evidence's
// Tool: bandit, pyflakes, pylint, eslint, shellcheck, cppcheck), whose findings are stamped with the tool's
// name.
func IsExternal(analyzer string) bool {
	switch analyzer {
	case SourceBandit, SourcePyflakes, SourcePylint, SourceESLint, SourceShellCheck, SourceCppcheck:
		return true
	}
	return false
}

// externalWarrants say why a finding of an external tool matters, by its topic.
var externalWarrants = map[string]struct{ stakeholder, warrant, rebuttal, tradeOff string }{
	rules.TopicSecurity: {rules.Security, "A maintained security linter for the language reports a weakness an attacker can use on code the change adds",
		"unless the value cannot come from an attacker, or is checked before it is used", "little: the safe form is usually as short"},
	rules.TopicCorrectness: {rules.Maintainability, "A maintained linter for the language reports code that does not do what it says; it is a bug, not a matter of style",
		"unless the path cannot be taken at run time", "none: the fix is local"},
	rules.TopicResource: {rules.Performance, "The analyzer shows memory or a handle that is never released; repeated, the leak exhausts the process",
		"unless the process exits right after", "none: releasing the resource costs nothing"},
}

// The external tools' rules join the rule catalog under their own names ("bandit:B602",
// "eslint:no-eval", "shellcheck:SC2115", "cppcheck:nullPointer", and a catch-all per tool).
func init() {
	for _, c := range Checks() {
		if _, taken := rules.Rules[c.Rule]; taken {
			panic(fmt.Sprintf("review: external rule %s collides with another rule", c.Rule))
		}
		w, ok := externalWarrants[c.Topic]
		if !ok {
			w = externalWarrants[rules.TopicCorrectness]
		}
		id := strings.TrimPrefix(c.Rule, c.Source+":")
		rules.Rules[c.Rule] = rules.Rule{
			ID: c.Rule, Stakeholder: w.stakeholder, Severity: c.Severity,
			Title: c.Title, Warrant: w.warrant, Reference: c.Source + " " + id + ": " + c.URL,
			Fix: c.Fix, Rebuttal: w.rebuttal, TradeOff: w.tradeOff,
		}
	}
}

// Analyzer runs the external tools (bandit, pyflakes, pylint, ESLint, ShellCheck, Cppcheck) that handle the
// change's files. With whole trees (a git range, a diff applied to --dir) it runs them over the
// changed files in base and head and reports the findings new in head. Without them it runs them
// over the head content the change knows (files a diff adds whole, files read from a pull request)
// and reports only findings on added lines. A tool that is not installed or fails is named in a
// note and changes nothing else.
type Analyzer struct {
	// Tools are the tools to run; nil means DefaultTools().
	Tools []Tool
}

func (Analyzer) Name() string { return "external" }

func (a Analyzer) Analyze(s *scan.Scan) {
	tools := a.Tools
	if tools == nil {
		tools = DefaultTools()
	}
	c := s.Change
	var files []ChangedFile
	for _, f := range c.Files {
		if f.Status == change.StatusDeleted || f.Binary || f.IsGenerated() || !handled(tools, f.Path) {
			continue
		}
		cf := ChangedFile{Path: f.Path}
		if f.Status == change.StatusRenamed {
			cf.OldPath = f.OldPath
		}
		files = append(files, cf)
	}
	if len(files) == 0 {
		return
	}
	if c.Trees != nil {
		a.onTrees(s, tools, files)
		return
	}
	a.onContent(s, tools, files)
}

// Handled reports whether one of tools analyses the file at p.
func Handled(tools []Tool, p string) bool { return handled(tools, p) }

func handled(tools []Tool, p string) bool {
	for _, t := range tools {
		if t.Handles(p) {
			return true
		}
	}
	return false
}

func (a Analyzer) onTrees(s *scan.Scan, tools []Tool, files []ChangedFile) {
	base, head, err := s.Trees()
	if err != nil {
		s.Note("external analyzers skipped: " + scan.Clip(err.Error(), 300))
		return
	}
	results, err := Run(s.Context(), Options{BaseDir: base, HeadDir: head, Files: files, Tools: tools})
	if err != nil {
		s.Note("external analyzers stopped: " + scan.Clip(err.Error(), 300))
	}
	c := s.Change
	for _, r := range results {
		for _, f := range r.New {
			msg := findingMessage(f)
			if !c.HasLine(f.Path, f.Line) {
				msg += "; new in head on a line the diff does not show: the change made it appear"
			}
			c.Reach(f.Path, f.Line)
			s.Record(recorded(f, msg))
		}
		s.Note(externalNote(r, fmt.Sprintf("%d file(s) in base and head: %d new finding(s), %d pre-existing finding(s) left out", r.Files, len(r.New), r.Preexisting)))
	}
}

// onContent runs the tools over the head content the change holds, written to a temporary
// directory; with no base to compare with, only findings on added lines count.
func (a Analyzer) onContent(s *scan.Scan, tools []Tool, files []ChangedFile) {
	c := s.Change
	dir, err := os.MkdirTemp("", "debatebot-content-")
	if err != nil {
		s.Note("external analyzers skipped: failed to make a directory for the files: " + scan.Clip(err.Error(), 200))
		return
	}
	defer os.RemoveAll(dir)
	s.Hide(dir)
	var written []ChangedFile
	for _, cf := range files {
		f := c.File(cf.Path)
		if f == nil || !f.HasContent || !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			continue
		}
		name := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
			s.Note("external analyzers skipped: " + scan.Clip(err.Error(), 200))
			return
		}
		if err := os.WriteFile(name, f.Content, 0o600); err != nil {
			s.Note("external analyzers skipped: " + scan.Clip(err.Error(), 200))
			return
		}
		written = append(written, ChangedFile{Path: f.Path})
	}
	if len(written) == 0 {
		return // no whole file is known: HunksOnlyNote already says what whole trees would give
	}
	results, err := Run(s.Context(), Options{HeadDir: dir, Files: written, Tools: tools})
	if err != nil {
		s.Note("external analyzers stopped: " + scan.Clip(err.Error(), 300))
	}
	for _, r := range results {
		kept := 0
		for _, f := range r.New {
			if cf := c.File(f.Path); cf == nil || !cf.IsAdded(f.Line) {
				continue
			}
			kept++
			s.Record(recorded(f, findingMessage(f)))
		}
		s.Note(externalNote(r, fmt.Sprintf("the head content of %d file(s), no base tree to compare with: %d finding(s) on added lines, %d on other lines left out", r.Files, kept, len(r.New)-kept)))
	}
}

func findingMessage(f scan.Finding) string {
	msg := f.Message
	if f.Func != "" {
		msg += " (in " + f.Func + ")"
	}
	return msg
}

// externalNote is the transcript's line about one tool: what it ran on and found, or why it did
// not run.
func externalNote(r ToolResult, ran string) string {
	switch {
	case r.Missing != "":
		why := strings.TrimSpace(strings.TrimPrefix(r.Missing, ErrNotInstalled.Error()))
		return fmt.Sprintf("%s not installed: %s files were not analysed by it %s", r.Tool, r.Language, why)
	case r.Failed != "":
		return fmt.Sprintf("%s failed: %s; %s files were not analysed by it", r.Tool, r.Failed, r.Language)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) on %s", r.Tool, r.Language, ran)
	if r.LeftOut > 0 {
		fmt.Fprintf(&b, "; %d more file(s) left out", r.LeftOut)
	}
	if len(r.Problems) > 0 {
		fmt.Fprintf(&b, "; could not analyse: %s", strings.Join(scan.LimitNames(scan.ClipAll(r.Problems, 160), 3), "; "))
	}
	return b.String()
}

// recorded is a tool's finding as the scan records it, with msg: its place, rule, severity and
// proposed edit (which Record checks against the head).
func recorded(f scan.Finding, msg string) scan.Finding {
	return scan.Finding{Source: f.Source, Rule: f.Rule, Severity: f.Severity, Path: f.Path, Line: f.Line, Message: msg, Fix: f.Fix}
}
