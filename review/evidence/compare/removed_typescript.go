package compare

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/evanw/esbuild/pkg/api"
)

// The TypeScript front end: esbuild turns a TypeScript file into JavaScript (types dropped,
// syntax otherwise kept, a source map beside it), the JavaScript front end reads that, and every
// line it reports is mapped back to the TypeScript file's line through the source map. A line
// the map does not cover is 0, and what stands there is never reported.

// tsIR reads one TypeScript file (.ts, .tsx, .mts, .cts) into the comparison's form. A file
// beyond jsDepth's limits is not transformed (esbuild's parser recurses too); a file esbuild
// refuses is reported as unparsed.
func tsIR(p string, src []byte) *irFile {
	loader := api.LoaderTS
	if strings.EqualFold(path.Ext(p), ".tsx") {
		loader = api.LoaderTSX
	}
	return transformedIR(p, src, loader, "TypeScript")
}

// jsModuleIR reads one JavaScript file into the comparison's form. The JavaScript parser reads
// scripts only: a module (import and export statements) or JSX does not parse, so a file it
// refuses is read as esbuild prints it (module syntax turned into the script it stands for,
// lines mapped back), and keeps the parser's error when esbuild refuses it too.
func jsModuleIR(p string, src []byte) *irFile {
	ir := jsIR(p, src)
	if ir.Err == "" || ir.Skip != "" {
		return ir
	}
	loader := api.LoaderJS
	if strings.EqualFold(path.Ext(p), ".jsx") {
		loader = api.LoaderJSX
	}
	if m := transformedIR(p, src, loader, "JavaScript"); m.Err == "" {
		return m
	}
	return ir
}

// transformedIR transforms src with esbuild's loader (syntax otherwise kept, a source map
// beside it) and reads the result with the JavaScript front end, every line mapped back to
// src's; lang names the language in what an unparsed file's Err says.
func transformedIR(p string, src []byte, loader api.Loader, lang string) *irFile {
	if why := jsDepth(src); why != "" {
		return &irFile{Path: p, Imports: map[string]string{}, Skip: why}
	}
	r := api.Transform(string(src), api.TransformOptions{
		Loader:     loader,
		Target:     api.ESNext,
		Sourcemap:  api.SourceMapExternal,
		Sourcefile: p,
		LogLevel:   api.LogLevelSilent,
	})
	if len(r.Errors) > 0 {
		e := r.Errors[0]
		msg := e.Text
		if e.Location != nil {
			msg = fmt.Sprintf("line %d: %s", e.Location.Line, e.Text)
		}
		return &irFile{Path: p, Imports: map[string]string{}, Err: lang + " transform: " + scan.Clip(msg, 250)}
	}
	m, err := decodeSourceMap(r.Map)
	if err != nil {
		return &irFile{Path: p, Imports: map[string]string{}, Err: lang + " source map: " + scan.Clip(err.Error(), 250)}
	}
	js := esmToScript(string(r.Code))
	at := m.lineAt(js)
	ir := jsIRAt(p, []byte(js), at)
	if ir.Err != "" {
		ir.Err = jsErrorAt(ir.Err, js, at)
	}
	return ir
}

var jsErrorLine = regexp.MustCompile(`Line (\d+):(\d+)`)

// jsErrorAt rewrites the position of a JavaScript parser's error in js to the TypeScript
// file's line, or says that it is in the JavaScript made of the file where no line maps.
func jsErrorAt(msg, js string, at func(off int) int) string {
	return jsErrorLine.ReplaceAllStringFunc(msg, func(s string) string {
		var line, col int
		if _, err := fmt.Sscanf(s, "Line %d:%d", &line, &col); err != nil {
			return s
		}
		off := 0
		for i := 1; i < line && off >= 0; i++ {
			if k := strings.IndexByte(js[off:], '\n'); k >= 0 {
				off += k + 1
			} else {
				off = -1
			}
		}
		if off >= 0 {
			if l := at(min(off+col-1, len(js))); l > 0 {
				return fmt.Sprintf("Line %d", l)
			}
		}
		return "in the JavaScript made of it"
	})
}

// tsMap is a decoded source map: for each generated line, its segments that point into the
// source, in column order.
type tsMap struct {
	lines [][]tsSegment
}

// tsSegment maps a generated column (UTF-16 code units, as source maps count) to a source line
// (1-based).
type tsSegment struct {
	col, line int
}

var sourceMapMappings = regexp.MustCompile(`"mappings"\s*:\s*"([^"]*)"`)

// decodeSourceMap decodes the mappings of a version 3 source map of one source.
func decodeSourceMap(b []byte) (*tsMap, error) {
	mm := sourceMapMappings.FindSubmatch(b)
	if mm == nil {
		return nil, fmt.Errorf("no mappings in a source map of %d bytes", len(b))
	}
	m := &tsMap{}
	var fields [5]int // generated column, source, source line, source column, name
	for _, line := range strings.Split(string(mm[1]), ";") {
		fields[0] = 0
		var segs []tsSegment
		for _, seg := range strings.Split(line, ",") {
			if seg == "" {
				continue
			}
			n, err := decodeVLQs(seg, &fields)
			if err != nil {
				return nil, fmt.Errorf("decoding mapping %q: %w", scan.Clip(seg, 40), err)
			}
			if n >= 4 {
				segs = append(segs, tsSegment{col: fields[0], line: fields[2] + 1})
			}
		}
		sort.SliceStable(segs, func(i, j int) bool { return segs[i].col < segs[j].col })
		m.lines = append(m.lines, segs)
	}
	return m, nil
}

const base64VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// decodeVLQs adds the base64 VLQ values of one segment to fields (each is relative to the one
// before) and returns how many the segment holds.
func decodeVLQs(seg string, fields *[5]int) (int, error) {
	n, value, shift := 0, 0, 0
	for i := 0; i < len(seg); i++ {
		d := strings.IndexByte(base64VLQ, seg[i])
		if d < 0 {
			return n, fmt.Errorf("invalid character %q", seg[i])
		}
		if shift > 60 {
			return n, fmt.Errorf("value too long")
		}
		value |= (d & 31) << shift
		shift += 5
		if d&32 != 0 {
			continue
		}
		if n == len(fields) {
			return n, fmt.Errorf("more than %d fields", len(fields))
		}
		v := value >> 1
		if value&1 != 0 {
			v = -v
		}
		fields[n] += v
		n++
		value, shift = 0, 0
	}
	if shift != 0 {
		return n, fmt.Errorf("unterminated value")
	}
	return n, nil
}

// lineAt returns the function that gives the source line of a byte offset of js: that of the
// last segment at or before the offset's column on its generated line, else of the line's first
// segment (what precedes a line's first mapped token is its indentation); 0 when the generated
// line has no segment.
func (m *tsMap) lineAt(js string) func(off int) int {
	var starts []int
	starts = append(starts, 0)
	for i := 0; i < len(js); i++ {
		if js[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return func(off int) int {
		if off < 0 || off > len(js) {
			return 0
		}
		gl := sort.SearchInts(starts, off+1) - 1
		if gl < 0 || gl >= len(m.lines) || len(m.lines[gl]) == 0 {
			return 0
		}
		col := utf16Len(js[starts[gl]:off])
		segs := m.lines[gl]
		k := sort.Search(len(segs), func(i int) bool { return segs[i].col > col })
		if k == 0 {
			return segs[0].line
		}
		return segs[k-1].line
	}
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 && r != utf8.RuneError {
			n++
		}
	}
	return n
}

// The statements of an ES module that goja's parser (a script parser) refuses, as esbuild prints
// them: each at the start of a line, strings in double quotes.
var (
	esmImportFrom = regexp.MustCompile(`(?m)^import\s+([^;"]*?)\s+from\s+("(?:[^"\\\n]|\\.)*");`)
	esmImportBare = regexp.MustCompile(`(?m)^import\s+("(?:[^"\\\n]|\\.)*");`)
	esmExportList = regexp.MustCompile(`(?m)^export\s*(?:\*|\{)[^;]*;`)
	esmExportDecl = regexp.MustCompile(`(?m)^export\s+(?:default\s+)?(?:async\s+function|function|class|const|let|var)\b`)
	esmExportDflt = regexp.MustCompile(`(?m)^export\s+default\s+`)
	esmDynImport  = regexp.MustCompile(`\bimport(\.meta\b|\s*\()`)
	esmDeclWord   = regexp.MustCompile(`(?:async\s+function|function|class|const|let|var)$`)
)

// esmToScript turns the module syntax of esbuild's output into script syntax the JavaScript
// front end reads, keeping every other line where it is: an import becomes the require it
// stands for (so that the front end knows what its names are), an exported declaration the
// declaration, a list of exports white space, import.meta a name and import() a require.
func esmToScript(js string) string {
	keep := func(old, repl string) string {
		if d := strings.Count(old, "\n") - strings.Count(repl, "\n"); d > 0 {
			repl += strings.Repeat("\n", d)
		}
		return repl
	}
	js = esmImportFrom.ReplaceAllStringFunc(js, func(s string) string {
		m := esmImportFrom.FindStringSubmatch(s)
		return keep(s, importAsRequire(m[1], m[2]))
	})
	js = esmImportBare.ReplaceAllString(js, "require($1);")
	js = esmExportList.ReplaceAllStringFunc(js, func(s string) string { return keep(s, ";") })
	js = esmExportDecl.ReplaceAllStringFunc(js, func(s string) string {
		decl := esmDeclWord.FindString(s)
		return strings.Repeat(" ", len(s)-len(decl)) + decl
	})
	js = esmExportDflt.ReplaceAllString(js, "module.exports.default = ")
	return esmDynImport.ReplaceAllStringFunc(js, func(s string) string {
		if strings.HasPrefix(s, "import.meta") {
			return "import_meta"
		}
		return "require" + strings.TrimPrefix(s, "import")
	})
}

// importAsRequire writes import clause from mod as a declaration of the same names:
// d, { a as b }, * as ns → const d = require(mod), { a: b } = require(mod), ns = require(mod);
func importAsRequire(clause, mod string) string {
	var parts []string
	rest := strings.TrimSpace(clause)
	if i := strings.IndexAny(rest, "{*"); i != 0 {
		def := rest
		if i > 0 {
			def = rest[:i]
		}
		def = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(def), ","))
		parts = append(parts, def+" = require("+mod+")")
		if i < 0 {
			rest = ""
		} else {
			rest = rest[i:]
		}
	}
	switch {
	case strings.HasPrefix(rest, "*"):
		ns := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(rest, "*")), "as"))
		parts = append(parts, ns+" = require("+mod+")")
	case strings.HasPrefix(rest, "{"):
		parts = append(parts, esmAs.ReplaceAllString(rest, ": ")+" = require("+mod+")")
	}
	return "const " + strings.Join(parts, ", ") + ";"
}

var esmAs = regexp.MustCompile(`\s+as\s+`)
