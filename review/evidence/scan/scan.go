package scan

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"time"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/voting"
)

// Analyzer looks at a change and reports evidence through the scan (see registry.go for the
// built-in ones and how to add one).
type Analyzer interface {
	Name() string
	Analyze(s *Scan)
}

// Scan is one evidence-gathering pass over a change: analyzers share its parsed files and report
// into it.
type Scan struct {
	Change *change.Change
	// ctx is the gathering's context (analyzers that run tools honour it).
	ctx context.Context
	// notes say what analyzers did beyond their findings, for the transcript.
	notes []string
	// analyzer is the name of the analyzer running now, stamped on what it reports, and rank
	// its precedence (see Finding.rank).
	analyzer string
	rank     int
	// found are the findings in the order they were reported; the processors (chain.go)
	// make the evidence of them.
	found   []Finding
	goFiles map[string]*goFile
	// trees are the change's base and head trees, materialised once for every analyzer that
	// needs them (see Trees).
	trees *scanTrees
	// hidden are the host's directories (the trees', temporary ones) that nothing posted names:
	// notes and messages say tree-relative paths instead.
	hidden PathScrubber
	// shared are what several analyzers use and is made once per scan (see Shared).
	shared map[string]any
	// running are the names of the analyzers the gathering runs (nil: not known, every one).
	running map[string]bool
}

type scanTrees struct {
	base, head string
	cleanup    func()
	err        error
}

// Trees materialises the change's base and head trees on first use and returns their
// directories; every analyzer of the gathering shares them, and GatherWithNotes removes them when
// it ends. It fails when the change cannot materialise them (a bare diff).
func (s *Scan) Trees() (base, head string, err error) {
	if s.trees == nil {
		s.trees = &scanTrees{}
		if s.Change.Trees == nil {
			s.trees.err = errors.New("the change has no trees (a bare diff shows only hunks)")
		} else {
			start := time.Now()
			s.trees.base, s.trees.head, s.trees.cleanup, s.trees.err = s.Change.Trees(s.Context())
			TimingsOf(s.Context()).Since("trees (checkout)", start)
			if s.trees.err == nil {
				s.Hide(s.trees.base)
				s.Hide(s.trees.head)
			}
			for _, n := range s.Change.TreesNotes {
				s.Note(n) // how the trees were had, when not as asked (e.g. directories of a large repository)
			}
		}
	}
	return s.trees.base, s.trees.head, s.trees.err
}

// Shared returns what make built for key in this scan, building it on first use: what several
// analyzers need and is costly to make (the type-checked load and analysis of base and head,
// which each family of go/analysis passes reports from) is made once per gathering, by the first
// analyzer that asks, and shared by the others.
func (s *Scan) Shared(key string, make func() any) any {
	if v, ok := s.shared[key]; ok {
		return v
	}
	if s.shared == nil {
		s.shared = map[string]any{}
	}
	v := make()
	s.shared[key] = v
	return v
}

// Runs reports whether the gathering runs the analyzer named name, so that work shared by several
// analyzers is done only for those that run; a scan made outside Gather runs every analyzer.
func (s *Scan) Runs(name string) bool {
	return s.running == nil || s.running[name]
}

// closeTrees removes the trees Trees materialised.
func (s *Scan) closeTrees() {
	if s.trees != nil && s.trees.cleanup != nil {
		s.trees.cleanup()
	}
	s.trees = nil
}

type goFile struct {
	fset *token.FileSet
	file *ast.File
}

// New prepares a scan of c.
func New(c *change.Change) *Scan {
	return &Scan{Change: c, goFiles: map[string]*goFile{}}
}

// Report records a finding of rule at path:line. The same rule at the same place is reported once
// (see uniquePlace).
func (s *Scan) Report(rule, path string, line int, msg string) {
	s.report(rule, path, line, msg, "")
}

// ReportSeverity records a finding with a severity other than the rule's.
func (s *Scan) ReportSeverity(rule string, sev voting.Severity, path string, line int, msg string) {
	s.add(rule, sev, path, line, msg, "")
}

// Note adds a line to what the transcript says about evidence gathering.
func (s *Scan) Note(msg string) { s.notes = append(s.notes, s.hidden.Clean(msg)) }

// Hide makes dir, a directory of the host that holds a tree (or files written for a tool), read
// as the tree's root in every note and message from now on.
func (s *Scan) Hide(dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		s.hidden.Add(abs, "")
	}
}

// Context is the context of the gathering.
func (s *Scan) Context() context.Context {
	if s.ctx == nil {
		return context.Background()
	}
	return s.ctx
}

// Mitigation records that the check at path:line weakens findings of rule.
func (s *Scan) Mitigation(rule, path string, line int, msg string) {
	s.report(rules.RuleMitigation, path, line, msg, rule)
}

func (s *Scan) report(rule, path string, line int, msg, mitigates string) {
	r, ok := rules.Rules[rule]
	if !ok {
		panic(fmt.Sprintf("review: analyzer %s reported unknown rule %q", s.analyzer, rule))
	}
	s.add(rule, r.Severity, path, line, msg, mitigates)
}

func (s *Scan) add(rule string, sev voting.Severity, path string, line int, msg, mitigates string) {
	s.AddFrom(s.analyzer, rule, sev, path, line, msg, mitigates)
}

// AddFrom records a finding of an analyzer other than the running one (a tool the running
// analyzer drives, e.g. staticcheck under the type-checked Go analysis).
func (s *Scan) AddFrom(analyzer, rule string, sev voting.Severity, path string, line int, msg, mitigates string) {
	s.Record(Finding{Source: analyzer, Rule: rule, Severity: sev, Path: path, Line: line, Message: msg, Mitigates: mitigates})
}

// Record keeps f as found, its message read with tree-relative paths and its cited line of head
// (snippet, replacement) filled in. Nothing is dropped or merged here: the processors do that.
func (s *Scan) Record(f Finding) {
	f.Message = s.hidden.Clean(f.Message)
	if cf := s.Change.File(f.Path); cf != nil && f.Line > 0 {
		if text, ok := cf.Line(f.Line); ok {
			f.Snippet = strings.ReplaceAll(Clip(redact.Redact(Clip(strings.TrimSpace(text), 400)), 160), "`", "'")
			if f.Rule == rules.RuleSecret {
				f.Snippet = ""
			}
			f.Replacement = lineFix(f.Rule, cf.Language(), text)
		}
	}
	if f.Fix = s.keepFix(f); f.Fix.IsZero() {
		f.Replacement = "" // the rule's fixed line does not apply as a suggestion either
	}
	f.rank = s.rank
	s.found = append(s.found, f)
}

// Go returns the parsed Go file at head, when its content is known and parses.
func (s *Scan) Go(f *change.File) (*token.FileSet, *ast.File, bool) {
	if f.Language() != "go" || !f.HasContent {
		return nil, nil, false
	}
	if g, ok := s.goFiles[f.Path]; ok {
		return g.fset, g.file, g.file != nil
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f.Path, f.Content, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		file = nil
	}
	s.goFiles[f.Path] = &goFile{fset: fset, file: file}
	return fset, file, file != nil
}

// Clip cuts s to at most n bytes, at a character boundary, marking the cut with an ellipsis.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// CodeFiles are the files analyzers look at: text files of a known language that the change adds
// lines to, neither generated nor vendored.
func (s *Scan) CodeFiles() []*change.File {
	var out []*change.File
	for _, f := range s.Change.Files {
		if f.Status == change.StatusDeleted || f.Language() == "" || f.IsGenerated() {
			continue
		}
		out = append(out, f)
	}
	return out
}

func LimitNames(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("%d more", len(s)-n))
}

// ClipAll clips each of ss to n bytes (see Clip).
func ClipAll(ss []string, n int) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Clip(s, n)
	}
	return out
}
