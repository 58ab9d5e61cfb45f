package compare

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// RemovedAnalyzer compares what each changed function did in base with what it does in head,
// in Go, Python and JavaScript alike, and reports the protections the change removed or
// weakened: a guard (an early exit, an assertion, a nil check around a call, a bound) with no
// equivalent left, a sanitiser or validator no longer called on a value head still uses, a
// condition that lost a term or the separator of a prefix check, a release (Close, cancel, a
// with block) whose acquisition remains, a context or deadline no longer passed, a restricting
// client setting (CheckRedirect) dropped, an end-of-options "--" dropped from a command's
// arguments, a try/catch removed around a call in a callback, a blocking call no longer run off
// the event loop, a read taken out of its lock, costly work moved into a loop that does not
// change its inputs, a regular expression made catastrophic.
//
// Hand-written: linters look at one tree, and no maintained analyzer compares base and head.
// Functions are matched by file and qualified name, statements by the diff's line mapping and
// then by their text, so line shifts and unrelated edits do not matter. A protection that moved
// (into a function head now calls or that the change edited, into a caller, elsewhere in the
// function, into the statement that replaced it) is not removed. A removed guard is a security
// finding when what it tested still flows into a sink (a file path, a command, SQL, a redirect,
// an outbound request, an authentication header), and a correctness note otherwise.
type RemovedAnalyzer struct{}

func (RemovedAnalyzer) Name() string { return "removed" }

// removedLanguages are the languages with a front end.
var removedLanguages = map[string]bool{"go": true, "python": true, "javascript": true, "typescript": true}

// NeedsContent reports whether the analyzers use the head content of a changed file of lang
// beyond its diff: Go's AST analyzers, and the base/head comparison, which rebuilds the base
// from the head and the hunks.
func NeedsContent(lang string) bool { return removedLanguages[lang] }

// sideFile is one changed file's base and head forms.
type sideFile struct {
	f          *change.File
	base, head *irFile
	lines      lineMap
	// fragment: base and head are the hunks' two sides, not whole files.
	fragment bool
}

func (RemovedAnalyzer) Analyze(s *scan.Scan) {
	in := &removedInputs{skipped: map[string]int{}}
	for _, f := range s.Change.Files {
		in.add(f)
	}
	in.parsePython(s)
	readFragments(s, in.fragments)
	noteUnparsed(s, in.files)
	reportBlindedFiles(s, in.files)
	// A change without trees (a bare diff) already says in the transcript that only hunks were
	// seen; otherwise a file without content was too large to read.
	if s.Change.Trees != nil {
		for _, lang := range slices.Sorted(maps.Keys(in.skipped)) {
			s.Note(fmt.Sprintf("base/head comparison: %d %s file(s) left out: their content was not read (too large)", in.skipped[lang], lang))
		}
	}
	c := newComparison(s, in.files)
	if err := c.runSafely(); err != nil {
		s.Note("base/head comparison stopped: " + scan.Clip(err.Error(), 300))
	}
	c.flush()
}

// removedInputs are the changed files the comparison reads, as they are gathered: each
// file's base and head forms (Python's parsed later, all in one run of the parser), the
// files read from their hunks alone, and per language the files left out unread.
type removedInputs struct {
	files     []*sideFile
	fragments []*sideFile
	py        []pySource
	// pyAt says, for each Python source, which file of files it is and which side.
	pyAt    []pySideAt
	skipped map[string]int
}

// pySideAt is the side (base or head) of files[i] that a Python source is.
type pySideAt struct {
	i    int
	head bool
}

// add gathers changed file f if the comparison reads it (a non-test, non-generated text file
// of a language it knows): its two sides as they are present, else its hunks alone.
func (in *removedInputs) add(f *change.File) {
	lang := f.Language()
	if !removedLanguages[lang] || f.IsTest() || f.IsGenerated() || f.Binary {
		return
	}
	headSrc, headOK := f.Content, f.HasContent && f.Status != change.StatusDeleted
	baseSrc, baseOK := baseText(f)
	if f.Status == change.StatusAdded {
		// An added file has no base to compare with, but functions of it that head now
		// calls may hold a guard that moved there.
		baseOK = false
	}
	if !headOK && !baseOK && f.Status != change.StatusAdded && len(f.Hunks) > 0 && lang != "typescript" {
		// Hunks only: the file is read from its hunks' two sides (removed_hunks.go);
		// TypeScript's hunks are not (its front end needs whole files to transform).
		sf := &sideFile{f: f, lines: lineMap{f}, fragment: true}
		in.files = append(in.files, sf)
		in.fragments = append(in.fragments, sf)
		return
	}
	if !headOK && !baseOK {
		in.skipped[lang]++
		return
	}
	sf := &sideFile{f: f, lines: lineMap{f}}
	in.files = append(in.files, sf)
	i := len(in.files) - 1
	basePath := f.Path
	if f.OldPath != "" {
		basePath = f.OldPath
	}
	if baseOK {
		in.parse(sf, pySideAt{i, false}, lang, basePath, baseSrc)
	}
	if headOK {
		in.parse(sf, pySideAt{i, true}, lang, f.Path, headSrc)
	}
}

// parse reads one side of file sf (at, of language lang) into its IR; a Python side is
// queued for parsePython.
func (in *removedInputs) parse(sf *sideFile, at pySideAt, lang, path string, src []byte) {
	var ir *irFile
	switch lang {
	case "go":
		ir = goIR(path, src)
	case "javascript":
		ir = jsModuleIR(path, src)
	case "typescript":
		ir = tsIR(path, src)
	case "python":
		in.py = append(in.py, pySource{Path: path, Source: string(src)})
		in.pyAt = append(in.pyAt, at)
		return
	}
	if at.head {
		sf.head = ir
	} else {
		sf.base = ir
	}
}

// parsePython parses the queued Python sides in one run of the parser and sets them on their
// files; if it fails, the evidence says the Python files were not compared.
func (in *removedInputs) parsePython(s *scan.Scan) {
	if len(in.py) == 0 {
		return
	}
	irs, err := pyIR(s.Context(), in.py)
	if err != nil {
		s.Note("base/head comparison: Python files were not compared: " + scan.Clip(err.Error(), 300))
	}
	for k, ir := range irs {
		if in.pyAt[k].head {
			in.files[in.pyAt[k].i].head = ir
		} else {
			in.files[in.pyAt[k].i].base = ir
		}
	}
}

// noteUnparsed says in the evidence which files the comparison could not see: those with a
// syntax error in one note, and each file beyond a parser's limit in a note of its own.
func noteUnparsed(s *scan.Scan, files []*sideFile) {
	var unparsed, skipped []string
	seen := map[string]bool{}
	for _, sf := range files {
		for _, ir := range []*irFile{sf.base, sf.head} {
			switch {
			case ir == nil:
			case ir.Skip != "":
				if !seen[ir.Path] {
					seen[ir.Path] = true
					skipped = append(skipped, ir.Path+": not compared: "+scan.Clip(ir.Skip, 200))
				}
			case ir.Err != "":
				unparsed = append(unparsed, ir.Path+" ("+scan.Clip(ir.Err, 120)+")")
			}
		}
	}
	if len(unparsed) > 0 {
		s.Note("base/head comparison: could not parse " + strings.Join(scan.LimitNames(unparsed, 5), "; "))
	}
	for i, m := range skipped {
		if i == 5 {
			s.Note(fmt.Sprintf("base/head comparison: %d more file(s) not compared", len(skipped)-5))
			break
		}
		s.Note("base/head comparison: " + m)
	}
}

// reportBlindedFiles reports each file whose base the comparison read and whose head it cannot
// (beyond a parser's limit): the change took the file out of its own review, which is itself a
// finding, at the first line the change wrote there. A file that only fails to parse stays a
// note: the compiler or interpreter refuses it anyway.
func reportBlindedFiles(s *scan.Scan, files []*sideFile) {
	for _, sf := range files {
		if sf.head == nil || sf.head.Skip == "" || sf.base == nil || sf.base.Skip != "" || sf.base.Err != "" {
			continue
		}
		s.Report(rules.RuleAnalysisBlinded, sf.head.Path, firstWritten(sf.f), fmt.Sprintf(
			"the change puts %s beyond the base/head comparison (%s), though its base was compared: a check the change removed there would go unseen",
			sf.head.Path, scan.Clip(sf.head.Skip, 160)))
	}
}

// firstWritten is the head line of the first line f's change adds, else 1.
func firstWritten(f *change.File) int {
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Kind == change.Added && l.New > 0 {
				return l.New
			}
		}
	}
	return 1
}

// runSafely runs the comparison; a defect of the comparison on some input ends it with what it
// found so far and a note, never a crash of the gathering.
func (c *sideComparison) runSafely() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	c.run()
	return nil
}

// lineMap maps base lines to head lines through a file's hunks.
type lineMap struct{ f *change.File }

// head returns the head line of base line old: the same line when the change kept it, the
// line the deletion sits before when the change removed it.
func (m lineMap) head(old int) int {
	delta := 0
	for _, h := range m.f.Hunks {
		nextOld, nextNew := h.OldStart+h.OldLines, h.NewStart+h.NewLines
		if h.OldLines == 0 {
			nextOld = h.OldStart + 1
		}
		if h.NewLines == 0 {
			nextNew = h.NewStart + 1
		}
		if old < h.OldStart || h.OldLines == 0 && old <= h.OldStart {
			break
		}
		if old >= nextOld {
			delta = nextNew - nextOld
			continue
		}
		for i, l := range h.Lines {
			if l.Kind == change.Added || l.Old != old {
				continue
			}
			if l.Kind == change.Context {
				return l.New
			}
			for _, k := range h.Lines[i+1:] {
				if k.Kind != change.Deleted {
					return k.New
				}
			}
			return nextNew
		}
	}
	return old + delta
}

// baseText rebuilds a file's base from its head content and its hunks.
func baseText(f *change.File) ([]byte, bool) {
	if f.Status == change.StatusAdded {
		return nil, false
	}
	if f.Status == change.StatusDeleted {
		var out []string
		for _, l := range f.DeletedLines() {
			out = append(out, l.Text)
		}
		return []byte(strings.Join(out, "\n")), len(out) > 0
	}
	if !f.HasContent {
		return nil, false
	}
	head := strings.Split(string(f.Content), "\n")
	var out []string
	next := 1
	for _, h := range f.Hunks {
		start := h.NewStart
		if h.NewLines == 0 {
			start = h.NewStart + 1
		}
		for next < start && next <= len(head) {
			out = append(out, head[next-1])
			next++
		}
		for _, l := range h.Lines {
			switch l.Kind {
			case change.Context:
				out = append(out, l.Text)
				next++
			case change.Added:
				next++
			case change.Deleted:
				out = append(out, l.Text)
			}
		}
	}
	for next <= len(head) {
		out = append(out, head[next-1])
		next++
	}
	return []byte(strings.Join(out, "\n")), true
}

// index finds the functions of one side by qualified and by short name; a loader, when the
// change has trees, brings in the files of that side's tree a call points at.
type index struct {
	byKey  map[string]*irFunc // path + "\x00" + qualified name
	byName map[string][]*irFunc
	files  map[string]bool
	loader *treeLoader
}

func newIndex() *index {
	return &index{byKey: map[string]*irFunc{}, byName: map[string][]*irFunc{}, files: map[string]bool{}}
}

func (x *index) hasFile(p string) bool { return x.files[p] }

func (x *index) add(ir *irFile) {
	if ir == nil || x.files[ir.Path] {
		return
	}
	x.files[ir.Path] = true
	seen := map[string]int{}
	for _, fn := range ir.Funcs {
		name := fn.Name
		if n := seen[name]; n > 0 {
			name = fmt.Sprintf("%s#%d", name, n+1)
		}
		seen[fn.Name]++
		x.byKey[ir.Path+"\x00"+name] = fn
		short := lastSegment(fn.Name)
		x.byName[short] = append(x.byName[short], fn)
	}
}

// resolve returns the function a call names, preferring the caller's file, then its language;
// when none is known it asks the loader for the files the call points at.
func (x *index) resolve(callee string, from *irFunc) *irFunc {
	if fn := x.find(callee, from); fn != nil {
		return fn
	}
	if x.loader != nil && x.loader.load(callee, from) {
		return x.find(callee, from)
	}
	return nil
}

func (x *index) find(callee string, from *irFunc) *irFunc {
	cands := x.byName[lastSegment(strings.TrimPrefix(callee, "new "))]
	var best *irFunc
	for _, fn := range cands {
		if fn == from {
			continue
		}
		if from != nil && fn.file == from.file {
			return fn
		}
		if best == nil && (from == nil || change.LanguageOf(fn.file.Path) == change.LanguageOf(from.file.Path)) {
			best = fn
		}
	}
	return best
}

// comparison holds the two sides of a change and the findings, merged by place.
type sideComparison struct {
	s          *scan.Scan
	files      []*sideFile
	base, head *index
	// addedConds are the conditions head adds anywhere in the change (a guard moved to a
	// caller is one of them).
	addedConds []*irCond
	found      map[string]*removedFinding
	order      []string
	sinkMemo   map[*irFunc][]sinkHit
	// headTouched are the head functions the change edited (a check may have moved into one).
	headTouched map[*irFunc]bool
}

type removedFinding struct {
	rule  string
	sev   voting.Severity
	path  string
	line  int
	parts []string
	tail  string
}

func newComparison(s *scan.Scan, files []*sideFile) *sideComparison {
	c := &sideComparison{s: s, files: files, base: newIndex(), head: newIndex(), found: map[string]*removedFinding{}, sinkMemo: map[*irFunc][]sinkHit{}, headTouched: map[*irFunc]bool{}}
	for _, sf := range files {
		c.base.add(sf.base)
		c.head.add(sf.head)
		if sf.head == nil {
			continue
		}
		for _, fn := range sf.head.Funcs {
			for l := fn.Line; l <= fn.End; l++ {
				if sf.f.IsAdded(l) {
					c.headTouched[fn] = true
					break
				}
			}
		}
	}
	if s.Change.Trees != nil {
		c.base.loader = &treeLoader{c: c, tried: map[string]bool{}}
		c.head.loader = &treeLoader{c: c, head: true, tried: map[string]bool{}}
	}
	return c
}

// report records a finding; findings of one rule at one line are one, their parts joined.
func (c *sideComparison) report(rule string, sev voting.Severity, path string, line int, part, tail string) {
	if line <= 0 {
		// A line a source map does not cover (TypeScript's front end): never guessed.
		return
	}
	k := fmt.Sprintf("%s|%s|%d", rule, path, line)
	f := c.found[k]
	if f == nil {
		f = &removedFinding{rule: rule, sev: sev, path: path, line: line, tail: tail}
		c.found[k] = f
		c.order = append(c.order, k)
	}
	for _, p := range f.parts {
		if p == part {
			return
		}
	}
	f.parts = append(f.parts, part)
	if sev.Rank() > f.sev.Rank() {
		f.sev, f.tail = sev, tail
	}
}

func (c *sideComparison) flush() {
	for _, k := range c.order {
		f := c.found[k]
		verb := map[string]string{rules.RuleConditionWeakened: "weakened", rules.RuleRegexBacktracking: "made"}[f.rule]
		if verb == "" {
			verb = "removed"
		}
		msg := "the change " + verb + " " + strings.Join(f.parts, " and ")
		msg += f.tail
		if c.fragmentPath(f.path) {
			msg += FragmentNote
		}
		if !c.s.Change.HasLine(f.path, f.line) {
			msg += " (the line is outside the diff's hunks: the removal made it unprotected)"
		}
		c.s.Change.Reach(f.path, f.line)
		c.s.ReportSeverity(f.rule, f.sev, f.path, f.line, msg)
	}
}

// fragmentPath reports whether the file at p was read from its hunks only.
func (c *sideComparison) fragmentPath(p string) bool {
	for _, sf := range c.files {
		if sf.fragment && sf.f.Path == p {
			return true
		}
	}
	return false
}

// fnPair is one function in base and head.
type fnPair struct {
	sf   *sideFile
	b, h *irFunc
	// pairs maps base nodes to head nodes; removed are the changed base nodes with no head
	// counterpart, added the changed head nodes with none in base.
	pairs         map[int]int
	bChanged      map[int]bool
	hChanged      map[int]bool
	removed       []int
	added         map[int]bool
	headPaired    map[int]bool
	headMentions  map[string]bool
	headCalls     map[string]bool
	headCallTexts map[string]bool
	// baseCalls are the callees base calls, as headCalls are head's.
	baseCalls map[string]bool
}

func (c *sideComparison) run() {
	var pairs []*fnPair
	for _, sf := range c.files {
		if sf.head == nil {
			continue
		}
		for _, h := range sf.head.Funcs {
			for i, n := range h.Nodes {
				if n.Cond != nil && sf.f.Status != change.StatusDeleted && c.nodeChanged(sf, h, i, true) {
					c.addedConds = append(c.addedConds, n.Cond)
				}
			}
		}
		if sf.base == nil || sf.f.Status == change.StatusAdded {
			continue
		}
		c.fileRegexps(sf)
		bx, hx := newIndex(), newIndex()
		bx.add(sf.base)
		hx.add(sf.head)
		for _, k := range slices.Sorted(maps.Keys(hx.byKey)) {
			h := hx.byKey[k]
			name := strings.TrimPrefix(k, sf.head.Path+"\x00")
			b := bx.byKey[sf.base.Path+"\x00"+name]
			if b == nil || !c.touched(sf, b, h) {
				continue
			}
			pairs = append(pairs, c.pair(sf, b, h))
		}
	}
	for _, p := range pairs {
		c.guards(p)
		c.protectiveCalls(p)
		c.weakened(p)
		c.releases(p)
		c.contexts(p)
		c.fields(p)
		c.separators(p)
		c.tryRemoved(p)
		c.offload(p)
		c.inlined(p)
		c.locks(p)
		c.intoLoops(p)
		c.regexps(p)
	}
}

// touched reports whether the change removed or added a line of the function.
func (c *sideComparison) touched(sf *sideFile, b, h *irFunc) bool {
	for l := b.Line; l <= b.End; l++ {
		if sf.f.IsRemoved(l) {
			return true
		}
	}
	for l := h.Line; l <= h.End; l++ {
		if sf.f.IsAdded(l) {
			return true
		}
	}
	return false
}

// nodeChanged reports whether the change removed (base) or added (head) a line of a node's
// header.
func (c *sideComparison) nodeChanged(sf *sideFile, fn *irFunc, i int, head bool) bool {
	n := fn.Nodes[i]
	for l := n.Line; l <= n.HeadEnd; l++ {
		if head && sf.f.IsAdded(l) || !head && sf.f.IsRemoved(l) {
			return true
		}
	}
	return false
}

// simpleKinds are statements that may turn into one another in an edit.
var simpleKinds = map[string]bool{kindExpr: true, kindAssign: true, kindReturn: true}

func compatible(a, b string) bool { return a == b || simpleKinds[a] && simpleKinds[b] }

// pair matches the statements of a function's base and head: those the diff kept by its line
// mapping, the changed ones by identical text (a re-indented block), then by similarity.
func (c *sideComparison) pair(sf *sideFile, b, h *irFunc) *fnPair {
	p := &fnPair{sf: sf, b: b, h: h, pairs: map[int]int{}, bChanged: map[int]bool{}, hChanged: map[int]bool{}, added: map[int]bool{}, headPaired: map[int]bool{},
		headMentions: map[string]bool{}, headCalls: map[string]bool{}, headCallTexts: map[string]bool{}, baseCalls: map[string]bool{}}
	p.pairKept(c)
	var bs, hs []int
	for i := range b.Nodes {
		if _, ok := p.pairs[i]; !ok && p.bChanged[i] {
			bs = append(bs, i)
		}
	}
	for j := range h.Nodes {
		if !p.headPaired[j] && p.hChanged[j] {
			hs = append(hs, j)
		}
	}
	blocks := changeBlocks(sf.f)
	p.pairSimilar(p.pairCandidates(blocks, bs, hs))
	p.pairRewrittenConds(blocks, bs, hs)
	for _, i := range bs {
		if _, ok := p.pairs[i]; !ok {
			p.removed = append(p.removed, i)
		}
	}
	for _, j := range hs {
		if !p.headPaired[j] {
			p.added[j] = true
		}
	}
	return p
}

// pairKept notes which statements of base and head changed and what head mentions and calls,
// and pairs the unchanged statements of base with those of head the diff's line mapping puts
// them on (the first of their kind not yet paired).
func (p *fnPair) pairKept(c *sideComparison) {
	sf, b, h := p.sf, p.b, p.h
	headAt := map[int][]int{}
	for j, n := range h.Nodes {
		headAt[n.Line] = append(headAt[n.Line], j)
		p.hChanged[j] = c.nodeChanged(sf, h, j, true)
		for _, u := range n.Uses {
			p.headMentions[u] = true
		}
		for _, d := range n.Defs {
			p.headMentions[d] = true
		}
		for _, call := range n.Calls {
			p.headCalls[call.Callee] = true
			p.headCallTexts[call.Text] = true
		}
	}
	for i, n := range b.Nodes {
		p.bChanged[i] = c.nodeChanged(sf, b, i, false)
		for _, call := range n.Calls {
			p.baseCalls[call.Callee] = true
		}
		if sf.f.IsRemoved(n.Line) {
			continue
		}
		for _, j := range headAt[sf.lines.head(n.Line)] {
			if !p.headPaired[j] && h.Nodes[j].Kind == n.Kind {
				p.pairs[i], p.headPaired[j] = j, true
				break
			}
		}
	}
}

// pairCand is a possible pairing of changed base statement i with changed head statement j:
// how alike they are and how far apart (in head's lines).
type pairCand struct {
	i, j int
	sim  float64
	dist int
}

// pairCandidates scores every compatible pair of the changed base statements bs and head
// statements hs: identical text 2, a weakened condition 1.5, else the similarity of their
// words; those of at least 0.5 gain for corresponding places and for one run of the diff.
func (p *fnPair) pairCandidates(blocks blockIndex, bs, hs []int) []pairCand {
	b, h := p.b, p.h
	var cands []pairCand
	for _, i := range bs {
		bw := words(b.Nodes[i].Text)
		for _, j := range hs {
			if !compatible(b.Nodes[i].Kind, h.Nodes[j].Kind) {
				continue
			}
			sim := 0.0
			if b.Nodes[i].Text == h.Nodes[j].Text {
				sim = 2
			} else {
				sim = similarity(bw, words(h.Nodes[j].Text))
				if b.Nodes[i].Kind == kindIf && h.Nodes[j].Kind == kindIf && b.Nodes[i].Cond != nil && h.Nodes[j].Cond != nil && termsSubset(h.Nodes[j].Cond.Terms, b.Nodes[i].Cond.Terms) {
					sim = 1.5 // a condition that lost terms is the same condition, weakened
				}
			}
			if sim >= 0.5 {
				// statements in corresponding places (the same branch of statements paired
				// already) are likelier the same statement edited
				if bp, hp := b.Nodes[i].Parent, h.Nodes[j].Parent; b.Nodes[i].Branch == h.Nodes[j].Branch && (bp < 0 && hp < 0 || bp >= 0 && hp >= 0 && p.pairs[bp] == hp && p.headPairedOK(bp)) {
					sim += 0.25
				}
				// and a removed line and an added line of one run of the diff replace each other
				if k := blocks.old[b.Nodes[i].Line]; k != 0 && k == blocks.new[h.Nodes[j].Line] {
					sim += 0.5
				}
				cands = append(cands, pairCand{i, j, sim, abs(p.sf.lines.head(b.Nodes[i].Line) - h.Nodes[j].Line)})
			}
		}
	}
	return cands
}

// pairSimilar pairs the candidates greedily, the most alike first and, among equals, the
// nearest; a statement already paired is skipped.
func (p *fnPair) pairSimilar(cands []pairCand) {
	sort.SliceStable(cands, func(x, y int) bool {
		if cands[x].sim != cands[y].sim {
			return cands[x].sim > cands[y].sim
		}
		return cands[x].dist < cands[y].dist
	})
	for _, cd := range cands {
		if _, done := p.pairs[cd.i]; done || p.headPaired[cd.j] {
			continue
		}
		p.pairs[cd.i], p.headPaired[cd.j] = cd.j, true
	}
}

// pairRewrittenConds pairs the conditions still unpaired that were rewritten in place (the same
// block of the diff, testing the same names): the same check changed, not a check removed and
// another added.
func (p *fnPair) pairRewrittenConds(blocks blockIndex, bs, hs []int) {
	for _, i := range bs {
		bn := p.b.Nodes[i]
		if _, done := p.pairs[i]; done || bn.Cond == nil {
			continue
		}
		for _, j := range hs {
			hn := p.h.Nodes[j]
			if p.headPaired[j] || hn.Kind != bn.Kind || hn.Cond == nil || blocks.old[bn.Line] == 0 || blocks.old[bn.Line] != blocks.new[hn.Line] {
				continue
			}
			if shareName(condUses(bn), condUses(hn)) {
				p.pairs[i], p.headPaired[j] = j, true
				break
			}
		}
	}
}

// blockIndex numbers the runs of removed and added lines of a file's hunks: a removed line and
// an added line of one run replace one another.
type blockIndex struct{ old, new map[int]int }

func changeBlocks(f *change.File) blockIndex {
	x := blockIndex{old: map[int]int{}, new: map[int]int{}}
	id := 0
	for _, h := range f.Hunks {
		inRun := false
		for _, l := range h.Lines {
			switch l.Kind {
			case change.Context:
				inRun = false
				continue
			case change.Deleted:
				if !inRun {
					id++
					inRun = true
				}
				x.old[l.Old] = id
			case change.Added:
				if !inRun {
					id++
					inRun = true
				}
				x.new[l.New] = id
			}
		}
	}
	return x
}

func shareName(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// sortedPairs yields the paired nodes (base index, head index) in base order: the checks
// report in the order they visit, and report keeps the order of a finding's parts, so the
// visit must not follow the map's.
func (p *fnPair) sortedPairs() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for _, i := range slices.Sorted(maps.Keys(p.pairs)) {
			if !yield(i, p.pairs[i]) {
				return
			}
		}
	}
}

// changedPairs yields those of sortedPairs of which the change edited either side.
func (p *fnPair) changedPairs() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i, j := range p.sortedPairs() {
			if (p.bChanged[i] || p.hChanged[j]) && !yield(i, j) {
				return
			}
		}
	}
}

// headPairedOK reports whether base node i is paired (pairs' zero value is a valid index).
func (p *fnPair) headPairedOK(i int) bool {
	_, ok := p.pairs[i]
	return ok
}

// termKey normalises a condition's term for comparison.
func termKey(t string) string {
	ts := tokens(t)
	out := make([]string, len(ts))
	for i, x := range ts {
		out[i] = string(x)
	}
	return strings.Join(out, " ")
}

// termsSubset reports whether every term of sub is a term of super, and super has more.
func termsSubset(sub, super []string) bool {
	if len(sub) >= len(super) || len(sub) == 0 {
		return false
	}
	have := map[string]bool{}
	for _, t := range super {
		have[termKey(t)] = true
	}
	for _, t := range sub {
		if !have[termKey(t)] {
			return false
		}
	}
	return true
}

// sinkHit is a sink a function reaches: at which of its nodes, through which call.
type sinkHit struct {
	node int
	cat  string
	text string
	line int
	path string
}

// sinks returns the sinks a head function reaches, directly or through the functions of the
// change it calls (two levels down).
func (c *sideComparison) sinks(fn *irFunc, depth int) []sinkHit {
	if hits, ok := c.sinkMemo[fn]; ok {
		return hits
	}
	c.sinkMemo[fn] = nil // a recursive call finds none
	var hits []sinkHit
	for i, n := range fn.Nodes {
		if cat := nodeSink(n); cat != "" {
			hits = append(hits, sinkHit{i, cat, n.Text, n.Line, fn.file.Path})
		}
		for _, call := range n.Calls {
			if cat := callSink(call, fn.file.Imports); cat != "" {
				hits = append(hits, sinkHit{i, cat, call.Text, call.Line, fn.file.Path})
				continue
			}
			if depth > 0 {
				if callee := c.head.resolve(call.Callee, fn); callee != nil {
					for _, h := range c.sinks(callee, depth-1) {
						hits = append(hits, sinkHit{i, h.cat, h.text, h.line, h.path})
						break
					}
				}
			}
		}
	}
	c.sinkMemo[fn] = hits
	return hits
}

// sinkAfter returns the first sink the head function reaches at or after node from (in source
// order), or in node from's branches.
func (c *sideComparison) sinkAfter(fn *irFunc, from int) (sinkHit, bool) {
	line := 0
	if from >= 0 && from < len(fn.Nodes) {
		line = fn.Nodes[from].Line
	}
	for _, h := range c.sinks(fn, 2) {
		if fn.Nodes[h.node].Line >= line {
			return h, true
		}
	}
	return sinkHit{}, false
}

// mutators add their argument to their receiver (parts.append(name)): the receiver then holds
// what the argument held.
var mutators = map[string]bool{"append": true, "push": true, "extend": true, "add": true, "insert": true, "update": true, "appendleft": true, "unshift": true, "Add": true}

// mentionsName reports whether a text reads a name (a dotted name as its token sequence).
func mentionsName(text, name string) bool {
	nt := tokens(name)
	tt := tokens(text)
	for i := 0; i+len(nt) <= len(tt); i++ {
		if equalLexemes(tt[i:i+len(nt)], nt) && (i == 0 || tt[i-1] != ".") {
			return true
		}
	}
	return false
}

// flowSink follows values forward through fn from node from, in source order: a statement that
// reads a followed name makes the names it assigns followed (and the receiver of an append).
// It returns the first sink that takes a followed value as an argument (or, with receivers, is
// called on one: client.Do), directly or in a function of the change the value is passed to
// (depth levels down).
func (c *sideComparison) flowSink(fn *irFunc, from int, values []string, receivers bool, depth int) (sinkHit, bool) {
	if from < 0 || from >= len(fn.Nodes) || len(values) == 0 {
		return sinkHit{}, false
	}
	followed := map[string]bool{}
	for _, v := range values {
		followed[v] = true
	}
	reads := func(text string) bool {
		for v := range followed {
			if mentionsName(text, v) {
				return true
			}
		}
		return false
	}
	start := fn.Nodes[from].Line
	for i, n := range fn.Nodes {
		if n.Line < start {
			continue
		}
		in := false
		for _, u := range n.Uses {
			in = in || followed[u]
		}
		if cat := nodeSink(n); cat != "" && in {
			return sinkHit{i, cat, n.Text, n.Line, fn.file.Path}, true
		}
		for _, call := range n.Calls {
			tainted := false
			for _, a := range call.Args {
				tainted = tainted || reads(a)
			}
			if cat := callSink(call, fn.file.Imports); cat != "" {
				if tainted || receivers && followed[dottedRoot(call.Callee)] {
					return sinkHit{i, cat, call.Text, call.Line, fn.file.Path}, true
				}
				continue
			}
			if tainted && mutators[call.name()] && qualifier(call.Callee) != "" {
				followed[qualifier(call.Callee)] = true
			}
			if !tainted || depth <= 0 {
				continue
			}
			callee := c.head.resolve(call.Callee, fn)
			if callee == nil || callee == fn {
				continue
			}
			var params []string
			bound := callee.argParams(call)
			for k, a := range call.Args {
				if k < len(bound) && reads(a) {
					params = append(params, bound[k])
				}
			}
			if len(callee.Nodes) > 0 {
				if h, ok := c.flowSink(callee, 0, params, false, depth-1); ok {
					return sinkHit{i, h.cat, h.text, h.line, h.path}, true
				}
			}
		}
		if in {
			for _, d := range n.Defs {
				followed[d] = true
			}
		}
	}
	return sinkHit{}, false
}

// sinkClause says what a head line still reaches.
func sinkClause(h sinkHit, ok bool, fnPath string) string {
	if !ok {
		return ""
	}
	where := fmt.Sprintf("line %d", h.line)
	if h.path != fnPath {
		where = fmt.Sprintf("%s:%d", h.path, h.line)
	}
	return fmt.Sprintf("; head still reaches %s (`%s` at %s)", h.cat, scan.Clip(h.text, 100), where)
}
