package codectx

import (
	"fmt"
	"path"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

// jsScopes reads a JavaScript or TypeScript file's functions, classes and methods: esbuild
// turns it into plain JavaScript (types dropped, modules into CommonJS, an inline source map
// beside it), goja's parser reads that, and every position is mapped back to the file's own
// line through the source map. A file nested deeper than MaxDepth is not parsed (both parsers
// recurse).
func jsScopes(p string, src []byte) (scopes []Scope, err error) {
	if d := bracketDepth(src); d > MaxDepth {
		return nil, fmt.Errorf("nested %d brackets deep (more than %d), not parsed", d, MaxDepth)
	}
	loader := map[string]api.Loader{".ts": api.LoaderTS, ".mts": api.LoaderTS, ".cts": api.LoaderTS, ".tsx": api.LoaderTSX, ".jsx": api.LoaderJSX}[strings.ToLower(path.Ext(p))]
	if loader == api.LoaderNone {
		loader = api.LoaderJS
	}
	r := api.Transform(string(src), api.TransformOptions{
		Loader: loader, Target: api.ES2020, Format: api.FormatCommonJS,
		Sourcemap: api.SourceMapInline, Sourcefile: path.Base(p), LogLevel: api.LogLevelSilent,
	})
	if len(r.Errors) > 0 {
		e := r.Errors[0]
		if e.Location != nil {
			return nil, fmt.Errorf("line %d: %s", e.Location.Line, e.Text)
		}
		return nil, fmt.Errorf("%s", e.Text)
	}
	defer func() {
		if v := recover(); v != nil { // goja's tree has corners that panic on positions
			scopes, err = nil, fmt.Errorf("the JavaScript parser failed: %v", v)
		}
	}()
	prog, err := parser.ParseFile(nil, path.Base(p)+".js", string(r.Code), 0)
	if err != nil {
		return nil, fmt.Errorf("javascript: %w", err)
	}
	lines := splitLines(src)
	w := &jsWalk{path: p, file: prog.File, lines: lines}
	for _, s := range prog.Body {
		w.stmt(s)
	}
	return w.out, nil
}

type jsWalk struct {
	path  string
	file  *file.File
	lines []string
	out   []Scope
}

// line is the source line of a position of the generated JavaScript; ok is false for a
// position the source map does not cover (a helper esbuild added).
func (w *jsWalk) line(idx file.Idx) (n int, ok bool) {
	pos := w.file.Position(int(idx) - w.file.Base())
	if pos.Filename == w.file.Name() || len(w.lines) == 0 {
		return 0, false
	}
	return min(max(pos.Line, 1), len(w.lines)), true
}

func (w *jsWalk) stmt(s ast.Statement) {
	switch s := s.(type) {
	case *ast.FunctionDeclaration:
		if s.Function.Name != nil {
			w.add(string(s.Function.Name.Name), "function ", s.Function)
		}
	case *ast.ClassDeclaration:
		w.class(s.Class)
	case *ast.VariableStatement:
		w.bindings(s.List)
	case *ast.LexicalDeclaration:
		w.bindings(s.List)
	case *ast.ExpressionStatement:
		w.expression(s)
	}
}

// expression reads a top-level statement that defines code: an assignment of a function
// (exports.handler = async (event) => {...}), or a call given a callback
// (app.post("/orders", (req, res) => {...})), which is read whole.
func (w *jsWalk) expression(s *ast.ExpressionStatement) {
	switch e := s.Expression.(type) {
	case *ast.AssignExpression:
		name := ""
		switch l := e.Left.(type) {
		case *ast.Identifier:
			name = string(l.Name)
		case *ast.DotExpression:
			name = string(l.Identifier.Name)
		}
		switch e.Right.(type) {
		case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
			if name != "" {
				w.add(name, "function ", e.Right)
			}
		}
	case *ast.CallExpression:
		for _, a := range e.ArgumentList {
			switch a.(type) {
			case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
				start, ok := w.line(s.Idx0())
				if !ok {
					return
				}
				callee := strings.TrimSpace(w.lines[start-1])
				if len(callee) > 60 {
					callee = callee[:60] + "…"
				}
				w.addAt("", "the callback of ", s.Idx0(), s.Idx1())
				w.out[len(w.out)-1].Label = fmt.Sprintf("callback (%s)", callee)
				return
			}
		}
	}
}

func (w *jsWalk) bindings(list []*ast.Binding) {
	for _, b := range list {
		id, ok := b.Target.(*ast.Identifier)
		if !ok {
			continue
		}
		switch v := b.Initializer.(type) {
		case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
			w.add(string(id.Name), "function ", v)
		case *ast.ClassLiteral:
			if v.Name == nil {
				v.Name = id
			}
			w.class(v)
		}
	}
}

func (w *jsWalk) class(c *ast.ClassLiteral) {
	if c.Name == nil {
		return
	}
	name := string(c.Name.Name)
	start, ok1 := w.line(c.Idx0())
	end, ok2 := w.line(c.Idx1() - 1)
	if !ok1 || !ok2 {
		return
	}
	w.out = append(w.out, Scope{Path: w.path, Name: name, Label: "class " + name, Start: start, End: max(start, end)})
	for _, e := range c.Body {
		m, ok := e.(*ast.MethodDefinition)
		if !ok || m.Computed {
			continue
		}
		if key, ok := m.Key.(*ast.StringLiteral); ok {
			w.addAt(string(key.Value), "method "+name+".", m.Idx0(), m.Idx1())
		} else if key, ok := m.Key.(*ast.Identifier); ok {
			w.addAt(string(key.Name), "method "+name+".", m.Idx0(), m.Idx1())
		}
	}
}

func (w *jsWalk) add(name, kind string, n ast.Node) { w.addAt(name, kind, n.Idx0(), n.Idx1()) }

// addAt adds the function name over the source lines of the generated span [from, to).
func (w *jsWalk) addAt(name, kind string, from, to file.Idx) {
	start, ok1 := w.line(from)
	end, ok2 := w.line(to - 1)
	if !ok1 || !ok2 {
		return
	}
	end = max(start, end)
	w.out = append(w.out, Scope{Path: w.path, Name: name, Label: kind + name, Function: true, Start: start, End: end,
		Calls: callsIn(w.lines[start-1:end], name)})
}

// bracketDepth is the deepest nesting of brackets in src, strings and comments not told apart:
// an upper bound that is cheap and never recurses.
func bracketDepth(src []byte) int {
	d, most := 0, 0
	for _, c := range src {
		switch c {
		case '(', '[', '{':
			d++
			most = max(most, d)
		case ')', ']', '}':
			if d > 0 {
				d--
			}
		}
	}
	return most
}
