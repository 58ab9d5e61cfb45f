package compare

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// Hunks only: a bare diff brings no trees and no file contents, so the base/head comparison
// cannot read whole files. It reads each hunk's two sides instead: the base fragment (context and
// removed lines) and the head fragment (context and added lines), each made parseable by the
// fewest lines written around it (the enclosing function the hunk header names, the brackets the
// fragment closes or leaves open, Python's enclosing blocks), dropping context lines at the edges
// when a fragment starts or ends inside a statement. Both sides of a hunk are read the same way,
// so that what the wrapping adds is the same on both; the comparison then runs on the fragments
// as on whole files, with their lines mapped back to the file's. What a fragment cannot show (the
// rest of the function and file, other files, types) is said in each finding.

// FragmentNote ends every finding the comparison makes on fragments.
const FragmentNote = " (seen in the diff's hunks only: the rest of the file, other files and types were not read)"

// fragMaxVariants bounds the ways one hunk is tried: trimmed edges times wrappings. Python's
// variants are parsed by one python3 process for the whole change, so it gets fewer.
const (
	fragMaxVariants   = 24
	fragMaxPyVariants = 16
	fragMaxHunks      = 400
	// fragMaxPySources bounds the Python variants of one change.
	fragMaxPySources = 2000
)

// fragLine is one line of a hunk's side and its number in that side's file.
type fragLine struct {
	n    int
	text string
}

// hunkSides returns the base (context and removed lines) and head (context and added lines) of h.
func hunkSides(h change.Hunk) (base, head []fragLine) {
	for _, l := range h.Lines {
		if l.Kind != change.Added {
			base = append(base, fragLine{l.Old, l.Text})
		}
		if l.Kind != change.Deleted {
			head = append(head, fragLine{l.New, l.Text})
		}
	}
	return base, head
}

// edgeContext counts the context lines that open and close a hunk.
func edgeContext(h change.Hunk) (lead, trail int) {
	for _, l := range h.Lines {
		if l.Kind != change.Context {
			break
		}
		lead++
	}
	if lead == len(h.Lines) {
		return lead, 0
	}
	for i := len(h.Lines) - 1; i >= 0 && h.Lines[i].Kind == change.Context; i-- {
		trail++
	}
	return lead, trail
}

// fragWrap makes a fragment's lines parseable: the lines to write before and after them.
type fragWrap func(lines []string) (pre, post []string, ok bool)

// fragSource is a fragment made parseable, and the file line each of its lines stands for.
type fragSource struct {
	src   string
	lines []int
}

// build writes pre, the fragment and post; the lines written around the fragment stand for its
// first and last lines.
func buildFragment(pre []string, frag []fragLine, post []string) fragSource {
	var b strings.Builder
	var lines []int
	first, last := frag[0].n, frag[len(frag)-1].n
	for _, p := range pre {
		b.WriteString(p + "\n")
		lines = append(lines, first)
	}
	for _, l := range frag {
		b.WriteString(l.text + "\n")
		lines = append(lines, l.n)
	}
	for _, p := range post {
		b.WriteString(p + "\n")
		lines = append(lines, last)
	}
	return fragSource{src: b.String(), lines: lines}
}

// fragVariant is one way of reading both sides of a hunk.
type fragVariant struct {
	base, head fragSource
}

// hunkVariants lists the ways of reading h's two sides, the least trimmed first.
func hunkVariants(h change.Hunk, wraps []fragWrap, limit int) []fragVariant {
	base, head := hunkSides(h)
	lead, trail := edgeContext(h)
	if len(base) == 0 && len(head) == 0 {
		return nil
	}
	var out []fragVariant
	for cut := 0; cut <= lead+trail; cut++ {
		for k := 0; k <= cut && k <= lead; k++ {
			j := cut - k
			if j > trail {
				continue
			}
			b, hd := trimFrag(base, k, j), trimFrag(head, k, j)
			if len(b) == 0 || len(hd) == 0 {
				continue
			}
			for _, w := range wraps {
				bs, bok := wrapFrag(w, b)
				hs, hok := wrapFrag(w, hd)
				if bok && hok {
					out = append(out, fragVariant{base: bs, head: hs})
					if len(out) == limit {
						return out
					}
				}
			}
		}
	}
	return out
}

func trimFrag(lines []fragLine, lead, trail int) []fragLine {
	if lead+trail >= len(lines) {
		return nil
	}
	return lines[lead : len(lines)-trail]
}

func wrapFrag(w fragWrap, frag []fragLine) (fragSource, bool) {
	texts := make([]string, len(frag))
	for i, l := range frag {
		texts[i] = l.text
	}
	pre, post, ok := w(texts)
	if !ok {
		return fragSource{}, false
	}
	return buildFragment(pre, frag, post), true
}

// remapIR puts the lines of a parsed fragment back at the file's lines.
func remapIR(ir *irFile, lines []int) {
	m := func(x int) int {
		switch {
		case len(lines) == 0:
			return x
		case x < 1:
			return lines[0]
		case x > len(lines):
			return lines[len(lines)-1]
		}
		return lines[x-1]
	}
	for _, fn := range ir.Funcs {
		fn.Line, fn.End = m(fn.Line), m(fn.End)
		for _, n := range fn.Nodes {
			n.Line, n.End, n.HeadEnd = m(n.Line), m(n.End), m(n.HeadEnd)
			for i := range n.Calls {
				n.Calls[i].Line = m(n.Calls[i].Line)
			}
			for i := range n.Fields {
				n.Fields[i].Line = m(n.Fields[i].Line)
			}
		}
	}
}

// mergeIR joins the parsed fragments of one side of a file into one file.
func mergeIR(p string, parts []*irFile) *irFile {
	out := &irFile{Path: p, Imports: map[string]string{}}
	for _, ir := range parts {
		for k, v := range ir.Imports {
			out.Imports[k] = v
		}
		for _, fn := range ir.Funcs {
			fn.file = out
			out.Funcs = append(out.Funcs, fn)
		}
	}
	return out
}

// parsedOK reports whether a fragment parsed.
func parsedOK(ir *irFile) bool { return ir != nil && ir.Err == "" && ir.Skip == "" }

// fragmentWraps returns the wrappings tried for a hunk of lang under the header's section.
func fragmentWraps(lang, section string) []fragWrap {
	switch lang {
	case "go":
		return goFragWraps(section)
	case "javascript":
		return jsFragWraps(section)
	case "python":
		return []fragWrap{pyFragWrap(section)}
	}
	return nil
}

// hunkFragments fills sf's base and head from its hunks, for Go and JavaScript, parsing in
// process; Python's variants are returned to be parsed together. It returns how many hunks it
// read and tried.
func hunkFragments(sf *sideFile, lang string, budget, pyBudget *int) (read, tried int, py []pyVariant) {
	var bases, heads []*irFile
	basePath := sf.f.Path
	if sf.f.OldPath != "" {
		basePath = sf.f.OldPath
	}
	for hi, h := range sf.f.Hunks {
		if *budget <= 0 {
			break
		}
		*budget--
		tried++
		limit := fragMaxVariants
		if lang == "python" {
			limit = fragMaxPyVariants
		}
		vs := hunkVariants(h, fragmentWraps(lang, h.Section), limit)
		if lang == "python" {
			for vi, v := range vs {
				if *pyBudget > 0 {
					*pyBudget--
					py = append(py, pyVariant{sf: sf, hunk: hi, variant: vi, v: v})
				}
			}
			continue
		}
		for _, v := range vs {
			b, hd := fragIR(lang, basePath, v.base), fragIR(lang, sf.f.Path, v.head)
			if parsedOK(b) && parsedOK(hd) {
				bases, heads = append(bases, b), append(heads, hd)
				read++
				break
			}
		}
	}
	if lang != "python" {
		sf.base, sf.head = mergeIR(basePath, bases), mergeIR(sf.f.Path, heads)
	}
	return read, tried, py
}

// fragIR parses one Go or JavaScript fragment and maps its lines back.
func fragIR(lang, p string, fs fragSource) *irFile {
	var ir *irFile
	switch lang {
	case "go":
		ir = goIR(p, []byte(fs.src))
	case "javascript":
		ir = jsIR(p, []byte(fs.src))
	default:
		return nil
	}
	if parsedOK(ir) {
		remapIR(ir, fs.lines)
	}
	return ir
}

// pyVariant is one way of reading a Python hunk, parsed with the others of the change.
type pyVariant struct {
	sf            *sideFile
	hunk, variant int
	v             fragVariant
}

// pyFragments parses every Python variant in one python3 run and keeps, for each hunk, the
// first whose two sides parse. It returns how many hunks were read.
func pyFragments(ctx context.Context, vs []pyVariant) (int, error) {
	if len(vs) == 0 {
		return 0, nil
	}
	src := make([]pySource, 0, 2*len(vs))
	for _, v := range vs {
		bp := v.sf.f.Path
		if v.sf.f.OldPath != "" {
			bp = v.sf.f.OldPath
		}
		src = append(src, pySource{Path: bp, Source: v.v.base.src}, pySource{Path: v.sf.f.Path, Source: v.v.head.src})
	}
	irs, err := pyIR(ctx, src)
	if err != nil {
		return 0, err
	}
	type key struct {
		sf   *sideFile
		hunk int
	}
	done := map[key]bool{}
	bases, heads := map[*sideFile][]*irFile{}, map[*sideFile][]*irFile{}
	var order []*sideFile
	for i, v := range vs {
		k := key{v.sf, v.hunk}
		b, h := irs[2*i], irs[2*i+1]
		if done[k] || !parsedOK(b) || !parsedOK(h) {
			continue
		}
		done[k] = true
		remapIR(b, v.v.base.lines)
		remapIR(h, v.v.head.lines)
		if !slices.Contains(order, v.sf) {
			order = append(order, v.sf)
		}
		bases[v.sf], heads[v.sf] = append(bases[v.sf], b), append(heads[v.sf], h)
	}
	for _, sf := range order {
		bp := sf.f.Path
		if sf.f.OldPath != "" {
			bp = sf.f.OldPath
		}
		sf.base, sf.head = mergeIR(bp, bases[sf]), mergeIR(sf.f.Path, heads[sf])
	}
	return len(done), nil
}

// readFragments reads the files of a change without contents from their hunks, and says in a
// note how much of them the comparison saw.
func readFragments(s *scan.Scan, files []*sideFile) {
	if len(files) == 0 {
		return
	}
	budget, pyBudget := fragMaxHunks, fragMaxPySources
	read, tried := map[string]int{}, map[string]int{}
	var py []pyVariant
	for _, sf := range files {
		lang := sf.f.Language()
		r, t, v := hunkFragments(sf, lang, &budget, &pyBudget)
		read[lang] += r
		tried[lang] += t
		py = append(py, v...)
	}
	n, err := pyFragments(s.Context(), py)
	if err != nil {
		s.Note("base/head comparison: Python hunks were not compared: " + scan.Clip(err.Error(), 300))
	}
	read["python"] += n
	var parts []string
	for _, lang := range []string{"go", "javascript", "python"} {
		if tried[lang] > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d %s hunk(s)", read[lang], tried[lang], lang))
		}
	}
	s.Note("base/head comparison on the diff's hunks only: read " + strings.Join(parts, ", ") +
		" as fragments; the rest of each file, other files and types were not seen, so a check that moved outside a hunk is not known")
}

// bracketWrap builds the lines around a fragment from the brackets it closes without opening
// them (unmatched, in order) and those it leaves open (open, outermost first): outer opens the
// outermost closed brace (a function, a class), or the fragment is at the top level when outer
// is "" and it closes none. Inner closed brackets reopen as a block, a call or an array.
func bracketWrap(unmatched, open []byte, outer string) (pre, post []string, ok bool) {
	if outer == "" && len(unmatched) > 0 {
		return nil, nil, false
	}
	var b strings.Builder
	if outer != "" {
		if len(unmatched) > 0 && unmatched[len(unmatched)-1] != '}' {
			return nil, nil, false
		}
		b.WriteString(outer)
	}
	for i := len(unmatched) - 2; i >= 0; i-- {
		switch unmatched[i] {
		case '}':
			b.WriteString(" {")
		case ')':
			b.WriteString(" _(")
		case ']':
			b.WriteString(" _([")
		}
	}
	if b.Len() > 0 {
		pre = []string{b.String()}
	}
	// 't' is a JavaScript try block's brace: it ends with an empty finally
	closers := map[byte]string{'{': "}", '(': ")", '[': "]", 't': "} finally {}"}
	for i := len(open) - 1; i >= 0; i-- {
		c, known := closers[open[i]]
		if !known {
			return nil, nil, false
		}
		post = append(post, c)
	}
	if outer != "" && len(unmatched) == 0 {
		post = append(post, "}")
	}
	return pre, post, true
}

// goBrackets scans Go source with go/scanner (which knows strings, runes and comments).
func goBrackets(src string) (unmatched, open []byte) {
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(src))
	var sc scanner.Scanner
	sc.Init(f, []byte(src), func(token.Position, string) {}, 0)
	for {
		_, tok, _ := sc.Scan()
		switch tok {
		case token.EOF:
			return unmatched, open
		case token.LPAREN, token.LBRACK, token.LBRACE:
			open = append(open, tok.String()[0])
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(open) == 0 {
				unmatched = append(unmatched, tok.String()[0])
			} else {
				open = open[:len(open)-1]
			}
		}
	}
}

var goFuncSection = regexp.MustCompile(`^func\s*(\([^()]*\))?\s*([\p{L}_][\p{L}\p{N}_]*)`)

// goFragWraps wraps a Go fragment in the function the hunk header names (as written, then by
// its name alone), or reads it at the top level, after a package clause.
func goFragWraps(section string) []fragWrap {
	section = strings.TrimSpace(section)
	var outers []string
	if strings.HasPrefix(section, "func") && strings.HasSuffix(section, "{") {
		outers = append(outers, section)
	}
	name := "func _hunk() {"
	if m := goFuncSection.FindStringSubmatch(section); m != nil {
		name = "func " + m[1] + " " + m[2] + "() {"
	}
	outers = append(outers, name, "")
	var out []fragWrap
	for _, outer := range outers {
		out = append(out, func(lines []string) ([]string, []string, bool) {
			unmatched, open := goBrackets(strings.Join(lines, "\n"))
			pre, post, ok := bracketWrap(unmatched, open, outer)
			return append([]string{"package p"}, pre...), post, ok
		})
	}
	return out
}

var jsSectionName = []*regexp.Regexp{
	regexp.MustCompile(`\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)`),
	regexp.MustCompile(`\bclass\s+([A-Za-z_$][\w$]*)`),
	regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*[=:]\s*(?:async\s+)?(?:function\b|\()`),
	regexp.MustCompile(`^\s*(?:async\s+)?([A-Za-z_$][\w$]*)\s*\(`),
}

// jsFragWraps wraps a JavaScript fragment in a function (plain, else async) or a class named as
// the hunk header's function, or reads it at the top level.
func jsFragWraps(section string) []fragWrap {
	name := "_hunk"
	for _, re := range jsSectionName {
		if m := re.FindStringSubmatch(section); m != nil && !jsReserved[m[1]] {
			name = m[1]
			break
		}
	}
	var out []fragWrap
	// async only after the plain function has failed: a fragment that awaits is in an async
	// function, and one that does not is not taken for one
	for _, outer := range []string{"function " + name + "() {", "async function " + name + "() {", "class " + name + " {", ""} {
		out = append(out, func(lines []string) ([]string, []string, bool) {
			s := &jsScan{src: []byte(strings.Join(lines, "\n")), prev: ";"}
			for s.i < len(s.src) {
				s.step()
			}
			open := make([]byte, len(s.stack))
			for i, f := range s.stack {
				open[i] = f.kind
				if f.try {
					open[i] = 't'
				}
			}
			return bracketWrap(s.unmatched, open, outer)
		})
	}
	return out
}

var jsReserved = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "function": true, "return": true}

var (
	pyDefSection   = regexp.MustCompile(`^\s*((?:async\s+)?def\s+\w+\s*\(.*\)\s*(?:->.*)?:)\s*$`)
	pyNameSection  = regexp.MustCompile(`^\s*(?:async\s+)?(def|class)\s+(\w+)`)
	pyBlockOpeners = regexp.MustCompile(`^(?:async\s+def|def|class|@)\b|^@`)
)

// pyFragWrap writes Python's enclosing blocks before a fragment: each indentation level the
// fragment returns to below its first line opens a block (try when the level goes on with except
// or finally, else if), and the outermost is the hunk header's function (or class, when the
// fragment holds definitions at that level), unless the fragment reaches the top level.
func pyFragWrap(section string) fragWrap {
	return func(lines []string) ([]string, []string, bool) {
		levels, prefixes, next := pyLevels(lines)
		if len(levels) == 0 {
			return nil, nil, false
		}
		var pre []string
		lowest := levels[len(levels)-1]
		if lowest > 0 {
			pre = append(pre, pyOuter(section, next[len(levels)-1]))
		}
		for i := len(levels) - 2; i >= 0; i-- {
			kw := "if True:"
			if t := next[i+1]; strings.HasPrefix(t, "except") || strings.HasPrefix(t, "finally") {
				kw = "try:"
			}
			pre = append(pre, prefixes[i+1]+kw)
		}
		return pre, pyOpenTries(lines), true
	}
}

// pyOpenTries ends the try blocks a fragment leaves without a handler (its end cuts them) with
// an empty finally, innermost first.
func pyOpenTries(lines []string) []string {
	var open []string // the indentation of each try under way
	pyStatements(lines, func(l, t string) {
		ind := l[:len(l)-len(t)]
		for len(open) > 0 && len(ind) <= len(open[len(open)-1]) {
			top := open[len(open)-1]
			if len(ind) == len(top) && (strings.HasPrefix(t, "except") || strings.HasPrefix(t, "finally") || strings.HasPrefix(t, "else")) {
				break
			}
			open = open[:len(open)-1]
		}
		if len(open) > 0 && len(ind) == len(open[len(open)-1]) && (strings.HasPrefix(t, "except") || strings.HasPrefix(t, "finally")) {
			open = open[:len(open)-1]
		}
		if t == "try:" || strings.HasPrefix(t, "try:") && strings.TrimSpace(t[4:]) == "" {
			open = append(open, ind)
		}
	})
	var post []string
	for i := len(open) - 1; i >= 0; i-- {
		post = append(post, open[i]+"finally:", open[i]+"    pass")
	}
	return post
}

// pyOuter is the outermost block around a fragment that does not reach the top level.
func pyOuter(section, first string) string {
	m := pyNameSection.FindStringSubmatch(section)
	if pyBlockOpeners.MatchString(first) {
		if m != nil {
			return "class " + m[2] + ":"
		}
		return "class _hunk:"
	}
	if d := pyDefSection.FindStringSubmatch(section); d != nil {
		return d[1]
	}
	if m != nil && m[1] == "def" {
		return "def " + m[2] + "(*args, **kwargs):"
	}
	return "def _hunk():"
}

// pyLevels finds the indentation levels a fragment's statements return to, from its first line
// down (each below all before it), with each level's indentation and the text of the first
// statement at that level after the deeper ones. Lines inside brackets or strings continue a
// statement and are left out.
func pyLevels(lines []string) (levels []int, prefixes, next []string) {
	pyStatements(lines, func(l, t string) {
		ind := len(l) - len(t)
		if len(levels) == 0 || ind < levels[len(levels)-1] {
			levels = append(levels, ind)
			prefixes = append(prefixes, l[:ind])
			next = append(next, t)
		}
	})
	return levels, prefixes, next
}

// pyStatements calls fn with each line of lines that starts a statement (not inside brackets or
// a string, not blank, not a comment), and the line with its indentation trimmed.
func pyStatements(lines []string, fn func(line, trimmed string)) {
	depth, inString := 0, ""
	for _, l := range lines {
		t := strings.TrimLeft(l, " \t")
		starts := depth == 0 && inString == "" && t != "" && !strings.HasPrefix(t, "#")
		depth, inString = pyScanLine(l, depth, inString)
		if starts {
			fn(l, t)
		}
	}
}

// pyScanLine follows brackets and triple-quoted strings across one line (single-quoted strings
// and comments end with it).
func pyScanLine(l string, depth int, inString string) (int, string) {
	for i := 0; i < len(l); i++ {
		if inString != "" {
			if strings.HasPrefix(l[i:], inString) {
				i += len(inString) - 1
				inString = ""
			} else if l[i] == '\\' {
				i++
			}
			continue
		}
		switch c := l[i]; c {
		case '#':
			return depth, ""
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		case '"', '\'':
			q := string(c)
			if strings.HasPrefix(l[i:], q+q+q) {
				inString, i = q+q+q, i+2
				continue
			}
			inString = q
		}
	}
	if len(inString) == 1 {
		inString = ""
	}
	return depth, inString
}

// GoFragmentFile parses the head sides of a Go file's hunks as one file, for the AST checks of
// added lines when the diff brings no content: each hunk wrapped as the comparison wraps it, after
// a //line directive, so that positions are the file's lines. The package clause is the one a
// hunk shows, else main for a main.go or a file under cmd/, else the folder's name.
func GoFragmentFile(f *change.File) (*token.FileSet, *ast.File, bool) {
	var b strings.Builder
	pkg := goFragmentPackage(f)
	for _, h := range f.Hunks {
		seg, ok := goHeadSegment(f.Path, h)
		if ok {
			b.WriteString(seg)
		}
	}
	if b.Len() == 0 {
		return nil, nil, false
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f.Path, "package "+pkg+"\n"+b.String(), parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, false
	}
	return fset, file, true
}

// goHeadSegment is one hunk's head side, wrapped so that it parses, without its package clause.
func goHeadSegment(p string, h change.Hunk) (string, bool) {
	_, head := hunkSides(h)
	lead, trail := edgeContext(h)
	wraps := goFragWraps(h.Section)
	for cut := 0; cut <= lead+trail; cut++ {
		for k := 0; k <= cut && k <= lead; k++ {
			frag := trimFrag(head, k, cut-k)
			if cut-k > trail || len(frag) == 0 {
				continue
			}
			for _, w := range wraps {
				texts := make([]string, len(frag))
				for i, l := range frag {
					texts[i] = l.text
				}
				pre, post, ok := w(texts)
				if !ok {
					continue
				}
				src := strings.Join(pre, "\n") + "\n" + strings.Join(texts, "\n") + "\n" + strings.Join(post, "\n") + "\n"
				if _, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution); err != nil {
					continue
				}
				return strings.Join(pre[1:], "\n") + "\n" + fmt.Sprintf("//line %s:%d\n", p, frag[0].n) +
					strings.Join(texts, "\n") + "\n" + strings.Join(post, "\n") + "\n", true
			}
		}
	}
	return "", false
}

var goPackageClause = regexp.MustCompile(`^package\s+([\p{L}_][\p{L}\p{N}_]*)`)

func goFragmentPackage(f *change.File) string {
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if m := goPackageClause.FindStringSubmatch(l.Text); m != nil && l.Kind != change.Deleted {
				return m[1]
			}
		}
	}
	dir := path.Dir(f.Path)
	if path.Base(f.Path) == "main.go" || dir == "cmd" || strings.HasPrefix(dir, "cmd/") || strings.Contains(dir, "/cmd/") {
		return "main"
	}
	if name := AssumedName(path.Base(dir)); dir != "." && token.IsIdentifier(name) {
		return name
	}
	return "p"
}
