package evidence

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/debatebot/debatebot/toulmin"
)

// Analyzer looks at a change and reports evidence through the scan.
type Analyzer interface {
	Name() string
	Analyze(s *Scan)
}

// Scan is one evidence-gathering pass over a change: analyzers share its parsed files and report
// into it.
type Scan struct {
	Change *Change
	// ctx is the gathering's context (analyzers that run tools honour it).
	ctx context.Context
	// notes say what analyzers did beyond their findings, for the transcript.
	notes []string
	// analyzer is the name of the analyzer running now, stamped on what it reports.
	analyzer string
	found    []toulmin.Evidence
	seen     map[string]bool
	goFiles  map[string]*goFile
	// trees are the change's base and head trees, materialised once for every analyzer that
	// needs them (see Trees).
	trees *scanTrees
	// hidden are the host's directories (the trees', temporary ones) that nothing posted names:
	// notes and messages say tree-relative paths instead.
	hidden pathScrubber
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
			timingsOf(s.Context()).since("trees (checkout)", start)
			if s.trees.err == nil {
				s.hide(s.trees.base)
				s.hide(s.trees.head)
			}
			for _, n := range s.Change.TreesNotes {
				s.Note(n) // how the trees were had, when not as asked (e.g. directories of a large repository)
			}
		}
	}
	return s.trees.base, s.trees.head, s.trees.err
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

// NewScan prepares a scan of c.
func NewScan(c *Change) *Scan {
	return &Scan{Change: c, seen: map[string]bool{}, goFiles: map[string]*goFile{}}
}

// Report records a finding of rule at path:line. The same rule at the same place is reported once.
func (s *Scan) Report(rule, path string, line int, msg string) {
	s.report(rule, path, line, msg, "")
}

// ReportSeverity records a finding with a severity other than the rule's.
func (s *Scan) ReportSeverity(rule string, sev toulmin.Severity, path string, line int, msg string) {
	s.add(rule, sev, path, line, msg, "")
}

// Note adds a line to what the transcript says about evidence gathering.
func (s *Scan) Note(msg string) { s.notes = append(s.notes, s.hidden.clean(msg)) }

// hide makes dir, a directory of the host that holds a tree (or files written for a tool), read
// as the tree's root in every note and message from now on.
func (s *Scan) hide(dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		s.hidden.add(abs, "")
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
	s.report(RuleMitigation, path, line, msg, rule)
}

func (s *Scan) report(rule, path string, line int, msg, mitigates string) {
	r, ok := Rules[rule]
	if !ok {
		panic(fmt.Sprintf("review: analyzer %s reported unknown rule %q", s.analyzer, rule))
	}
	s.add(rule, r.Severity, path, line, msg, mitigates)
}

func (s *Scan) add(rule string, sev toulmin.Severity, path string, line int, msg, mitigates string) {
	s.addFrom(s.analyzer, rule, sev, path, line, msg, mitigates)
}

// addFrom records a finding of an analyzer other than the running one (a tool the running
// analyzer drives, e.g. staticcheck under the type-checked Go analysis).
func (s *Scan) addFrom(analyzer, rule string, sev toulmin.Severity, path string, line int, msg, mitigates string) {
	key := fmt.Sprintf("%s|%s|%d|%s", rule, path, line, mitigates)
	if path == "" {
		key += "|" + msg // findings about the change's text (title, description, file names) differ by what they quote
	}
	if s.seen[key] {
		return
	}
	s.seen[key] = true
	if Rules[rule].Process && sev.Rank() > toulmin.SeverityMedium.Rank() {
		sev = toulmin.SeverityMedium // process notes never decide (see Rule.Process)
	}
	snippet, replacement := "", ""
	if f := s.Change.File(path); f != nil && line > 0 {
		if text, ok := f.Line(line); ok {
			snippet = strings.ReplaceAll(clip(Redact(clip(strings.TrimSpace(text), 400)), 160), "`", "'")
			if rule == RuleSecret {
				snippet = ""
			}
			replacement = lineFix(rule, f.Language(), text)
		}
	}
	s.found = append(s.found, toulmin.Evidence{
		Analyzer: analyzer, Rule: rule, Stakeholder: Rules[rule].Stakeholder, Severity: sev,
		Path: path, Line: line, Message: s.hidden.clean(msg), Snippet: snippet, Mitigates: mitigates, Replacement: replacement,
	})
}

// absorb takes out of the scan the findings of weakness cwe a few lines from path:line (the same
// defect, found by another analyzer before), naming them in msg as corroborate does; it returns
// msg and the more severe of sev and theirs. A type-checked finding whose weakness is not its
// rule's (a removed check before a file call is a path traversal) merges this way.
func (s *Scan) absorb(cwe, path string, line int, msg string, sev toulmin.Severity) (string, toulmin.Severity) {
	kept := s.found[:0]
	for _, e := range s.found {
		if e.Mitigates == "" && e.Path == path && Rules[e.Rule].CWE == cwe && abs(e.Line-line) <= corroborateSpan {
			msg += alsoFound(e)
			if e.Severity.Rank() > sev.Rank() {
				sev = e.Severity
			}
			continue
		}
		kept = append(kept, e)
	}
	s.found = kept
	return msg, sev
}

// Go returns the parsed Go file at head, when its content is known and parses.
func (s *Scan) Go(f *File) (*token.FileSet, *ast.File, bool) {
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

// Evidence returns what was found, ordered by severity, then place, with stable IDs. Findings of
// the same weakness by different analyzers a few lines apart are one item (see corroborate).
func (s *Scan) Evidence() []toulmin.Evidence {
	out := corroborate(s.found)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity.Rank() != b.Severity.Rank() {
			return a.Severity.Rank() > b.Severity.Rank()
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	})
	for i := range out {
		out[i].ID = fmt.Sprintf("E%d", i+1)
	}
	return out
}

// DefaultAnalyzers returns every built-in analyzer.
func DefaultAnalyzers() []Analyzer {
	return []Analyzer{secretsAnalyzer{}, goAnalyzer{}, typedGoAnalyzer{}, externalAnalyzer{}, lineAnalyzer{}, removedAnalyzer{}, timerAnalyzer{}, nullishAnalyzer{}, PromptInjectionAnalyzer{}, changeAnalyzer{}}
}

// Gather runs the analyzers over the change once and returns the evidence.
func Gather(ctx context.Context, c *Change, analyzers []Analyzer) ([]toulmin.Evidence, error) {
	ev, _, err := GatherWithNotes(ctx, c, analyzers)
	return ev, err
}

// GatherWithNotes is Gather that also returns what the analyzers said about their work (which
// packages were analysed, which degraded, how many pre-existing findings were left out).
func GatherWithNotes(ctx context.Context, c *Change, analyzers []Analyzer) ([]toulmin.Evidence, []string, error) {
	s := NewScan(c)
	s.ctx = ctx
	defer s.closeTrees()
	if c.Trees == nil && c.NoTrees != "" {
		s.Note(c.NoTrees)
	}
	times := timingsOf(ctx)
	defer times.since("evidence (all analyzers)", time.Now())
	for _, a := range analyzers {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("evidence gathering stopped before %s: %w", a.Name(), err)
		}
		s.analyzer = a.Name()
		start := time.Now()
		a.Analyze(s)
		times.since("analyzer "+a.Name(), start)
	}
	return s.Evidence(), s.notes, nil
}

// corroborateSpan is how far apart, in lines of one file, two analyzers' findings of the same
// weakness may be and still be one defect: gosec reports SQL injection where the query is
// formatted, the Go analyzer where it is run, usually on the next line or two.
const corroborateSpan = 3

// corroborate merges findings of the same weakness (the rules' CWE) in the same file, a few lines
// apart, reported by different analyzers, or by different rules of one analyzer on one line
// (gosec's AST rule and its taint rule on one query): the hand-written analyzers still run where
// no library covers every case (hunks only, other languages), and where a library does, the
// defect must be one required change, not one per analyzer. The more severe finding stays; on a
// tie, the type-checked one, whose analysis knows more (a taint rule knows the value comes from
// the request), else the earlier one. It names the others.
func corroborate(found []toulmin.Evidence) []toulmin.Evidence {
	out := make([]toulmin.Evidence, 0, len(found))
	for _, f := range found {
		cwe := Rules[f.Rule].CWE
		merged := false
		for i := range out {
			k := &out[i]
			if cwe == "" || k.Mitigates != "" || f.Mitigates != "" || Rules[k.Rule].CWE != cwe || k.Path != f.Path || f.Path == "" {
				continue
			}
			if sameSource := k.Analyzer == f.Analyzer; sameSource && (k.Line != f.Line || k.Rule == f.Rule) || !sameSource && abs(k.Line-f.Line) > corroborateSpan {
				continue
			}
			if r, kr := f.Severity.Rank(), k.Severity.Rank(); r > kr || r == kr && isTypedGo(f.Analyzer) && !isTypedGo(k.Analyzer) {
				f, *k = *k, f
			}
			k.Message += alsoFound(f)
			if k.Replacement == "" && k.Line == f.Line {
				k.Replacement = f.Replacement
			}
			merged = true
			break
		}
		if !merged {
			out = append(out, f)
		}
	}
	return out
}

// alsoFound is what a merged finding says of one it took in.
func alsoFound(e toulmin.Evidence) string {
	return fmt.Sprintf("; also found by %s (%s at line %d)", e.Analyzer, e.Rule, e.Line)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Clip cuts s to at most n bytes, at a character boundary, marking the cut with an ellipsis.
func Clip(s string, n int) string { return clip(s, n) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// codeFiles are the files analyzers look at: text files of a known language that the change adds
// lines to, neither generated nor vendored.
func (s *Scan) codeFiles() []*File {
	var out []*File
	for _, f := range s.Change.Files {
		if f.Status == StatusDeleted || f.Language() == "" || f.IsGenerated() {
			continue
		}
		out = append(out, f)
	}
	return out
}
