package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
)

// jsIR parses one JavaScript file with goja's parser (ECMAScript 2020 and later; it keeps every
// node's offsets, which the comparison needs for lines) into the comparison's form.
// TypeScript and JSX do not parse: the file's Err says so. A file nested beyond jsDepth's
// limits is not given to the parser (its recursion could overflow the stack and end the
// process): its Skip says so.
func jsIR(p string, src []byte) *irFile { return jsIRAt(p, src, nil) }

// jsIRAt is jsIR with the line of each byte offset of src given by at (a source map back to the
// file src was made from; 0 for an offset that maps to no line); nil means src's own lines.
func jsIRAt(p string, src []byte, at func(off int) int) (out *irFile) {
	out = &irFile{Path: p, Imports: map[string]string{}}
	if why := jsDepth(src); why != "" {
		out.Skip = why
		return out
	}
	defer func() {
		// goja's AST has corners that panic on positions (an empty case's end); a file the
		// walk cannot finish is reported as unparsed, never a crash of the gathering.
		if r := recover(); r != nil {
			out = &irFile{Path: p, Imports: map[string]string{}, Err: fmt.Sprintf("walking the syntax tree failed: %v", r)}
		}
	}()
	prog, err := parser.ParseFile(nil, p, string(src), parser.IgnoreRegExpErrors, parser.WithDisableSourceMaps)
	if err != nil {
		out.Err = scan.Clip(err.Error(), 300)
		return out
	}
	w := &jsWalker{src: string(src), file: out, base: prog.File.Base(), iterations: map[ast.Node]string{}, at: at}
	for i, b := range src {
		if b == '\n' {
			w.lines = append(w.lines, i)
		}
	}
	w.top(prog.Body, "")
	return out
}

type jsWalker struct {
	src   string
	base  int
	lines []int // offsets of the newlines
	file  *irFile
	fn    *irFunc
	// prefix qualifies the names of the functions found while walking the current one.
	prefix string
	// iterations maps a function literal passed to an array's iteration method (xs.map(f)) to
	// the method's text (xs.map): its body runs once per element, as a loop's does.
	iterations map[ast.Node]string
	// at, when set, gives the line of an offset in another file (see jsIRAt).
	at func(off int) int
}

func (w *jsWalker) line(idx file.Idx) int {
	off := int(idx) - w.base
	if w.at != nil {
		return w.at(off)
	}
	return sort.SearchInts(w.lines, off) + 1
}

// jsTextMax bounds the source a node's text is made of: nested nodes each take their text, and
// unbounded texts of a deep chain would cost time quadratic in the file's size.
const jsTextMax = 2000

// text is a node's source, white space collapsed and comments left out; past jsTextMax bytes
// of source it is cut.
func (w *jsWalker) text(n ast.Node) string {
	a, b := int(n.Idx0())-w.base, int(n.Idx1())-w.base
	if a < 0 || b > len(w.src) || a >= b {
		return ""
	}
	b = min(b, a+jsTextMax)
	return collapse(jsStripComments(w.src[a:b]))
}

// jsStripComments drops // and /* */ comments outside string literals.
func jsStripComments(s string) string {
	if !strings.Contains(s, "//") && !strings.Contains(s, "/*") {
		return s
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
			b.WriteByte(c)
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte(' ')
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// top looks for functions among module-level statements.
func (w *jsWalker) top(list []ast.Statement, prefix string) {
	for _, s := range list {
		switch s := s.(type) {
		case *ast.FunctionDeclaration:
			w.function(join(prefix, s.Function.Name.Name.String()), s.Function.ParameterList, s.Function.Body, s.Function.Async, s.Function)
		case *ast.ClassDeclaration:
			w.class(prefix, s.Class)
		case *ast.VariableStatement:
			w.bindings(prefix, s.List)
		case *ast.LexicalDeclaration:
			w.bindings(prefix, s.List)
		case *ast.ExpressionStatement:
			w.named(prefix, s.Expression)
		case *ast.BlockStatement:
			w.top(s.List, prefix)
		case *ast.IfStatement:
			w.top([]ast.Statement{s.Consequent}, prefix)
			if s.Alternate != nil {
				w.top([]ast.Statement{s.Alternate}, prefix)
			}
		}
	}
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func (w *jsWalker) bindings(prefix string, list []*ast.Binding) {
	if prefix == "" {
		w.requires(list)
	}
	for _, b := range list {
		if id, ok := b.Target.(*ast.Identifier); ok && b.Initializer != nil {
			w.value(join(prefix, id.Name.String()), b.Initializer)
		}
	}
}

// requires records the modules module-level bindings require: const fs = require('fs'),
// const { spawn } = require('child_process'), const join = require('path').join.
func (w *jsWalker) requires(list []*ast.Binding) {
	for _, b := range list {
		mod, member := w.required(b.Initializer)
		if mod == "" {
			continue
		}
		switch t := b.Target.(type) {
		case *ast.Identifier:
			if member != "" {
				mod += "." + member
			}
			w.file.Imports[t.Name.String()] = mod
		case *ast.ObjectPattern:
			for _, p := range t.Properties {
				switch p := p.(type) {
				case *ast.PropertyShort:
					w.file.Imports[p.Name.Name.String()] = mod + "." + p.Name.Name.String()
				case *ast.PropertyKeyed:
					if id, ok := p.Value.(*ast.Identifier); ok {
						w.file.Imports[id.Name.String()] = mod + "." + w.key(p.Key, p.Computed)
					}
				}
			}
		}
	}
}

// required returns the module of require('m') or require('m').x, and x.
func (w *jsWalker) required(e ast.Expression) (mod, member string) {
	if d, ok := e.(*ast.DotExpression); ok {
		m, _ := w.required(d.Left)
		return m, d.Identifier.Name.String()
	}
	c, ok := e.(*ast.CallExpression)
	if !ok || len(c.ArgumentList) != 1 {
		return "", ""
	}
	if id, ok := c.Callee.(*ast.Identifier); !ok || id.Name != "require" {
		return "", ""
	}
	if s, ok := c.ArgumentList[0].(*ast.StringLiteral); ok {
		return s.Value.String(), ""
	}
	return "", ""
}

// named walks an expression statement for functions it names: x.y = function () {...},
// module.exports = {...}.
func (w *jsWalker) named(prefix string, e ast.Expression) {
	if a, ok := e.(*ast.AssignExpression); ok {
		w.value(join(prefix, w.text(a.Left)), a.Right)
	}
}

// value walks a value bound to name: a function becomes a unit of that name, an object
// literal's function properties units under it, a class its methods.
func (w *jsWalker) value(name string, e ast.Expression) bool {
	switch v := e.(type) {
	case *ast.FunctionLiteral:
		w.function(name, v.ParameterList, v.Body, v.Async, v)
		return true
	case *ast.ArrowFunctionLiteral:
		w.arrow(name, v)
		return true
	case *ast.ObjectLiteral:
		found := false
		for _, p := range v.Value {
			if pk, ok := p.(*ast.PropertyKeyed); ok {
				found = w.value(join(name, w.key(pk.Key, pk.Computed)), pk.Value) || found
			}
		}
		return found
	case *ast.ClassLiteral:
		w.class(strings.TrimSuffix(name, "."), v)
		return true
	}
	return false
}

func (w *jsWalker) key(k ast.Expression, computed bool) string {
	switch k := k.(type) {
	case *ast.Identifier:
		return k.Name.String()
	case *ast.StringLiteral:
		return k.Value.String()
	}
	t := w.text(k)
	if computed {
		return "[" + t + "]"
	}
	return t
}

func (w *jsWalker) class(prefix string, c *ast.ClassLiteral) {
	name := prefix
	if c.Name != nil {
		name = join(prefix, c.Name.Name.String())
	}
	for _, el := range c.Body {
		if m, ok := el.(*ast.MethodDefinition); ok {
			w.function(join(name, w.key(m.Key, m.Computed)), m.Body.ParameterList, m.Body.Body, m.Body.Async, m)
		}
	}
}

func (w *jsWalker) arrow(name string, a *ast.ArrowFunctionLiteral) {
	switch b := a.Body.(type) {
	case *ast.BlockStatement:
		w.function(name, a.ParameterList, b, a.Async, a)
	case *ast.ExpressionBody:
		blk := &ast.BlockStatement{LeftBrace: b.Idx0(), List: []ast.Statement{&ast.ReturnStatement{Return: b.Idx0(), Argument: b.Expression}}, RightBrace: b.Idx1()}
		w.function(name, a.ParameterList, blk, a.Async, a)
	}
}

// function walks one function into a unit of its own; the functions it names inside are units
// under its name.
func (w *jsWalker) function(name string, params *ast.ParameterList, body *ast.BlockStatement, async bool, n ast.Node) {
	if body == nil {
		return
	}
	outer, outerPrefix := w.fn, w.prefix
	w.fn = &irFunc{Name: name, Line: w.line(n.Idx0()), End: w.line(n.Idx1() - 1), Async: async, file: w.file}
	w.prefix = name
	if params != nil {
		for _, b := range params.List {
			if id, ok := b.Target.(*ast.Identifier); ok {
				w.fn.Params = append(w.fn.Params, id.Name.String())
			}
		}
	}
	w.block(body.List, -1, "", false)
	w.file.Funcs = append(w.file.Funcs, w.fn)
	w.fn, w.prefix = outer, outerPrefix
}

func (w *jsWalker) add(n *irNode, s ast.Node, parent int, branch string, cb bool) int {
	start, end := s.Idx0(), file.Idx(0)
	switch x := s.(type) {
	case *ast.IfStatement:
		if x.If == 0 {
			start = x.Test.Idx0() // goja leaves the position of an if's keyword unset
		}
	case *ast.CaseStatement:
		if len(x.Consequent) == 0 { // goja's Idx1 indexes the last statement
			end = x.Case + 1
			if x.Test != nil {
				end = x.Test.Idx1()
			}
		}
	}
	if end == 0 {
		end = s.Idx1()
	}
	n.Line, n.End = w.line(start), w.line(end-1)
	if n.HeadEnd == 0 {
		n.HeadEnd = n.End
	}
	n.Parent, n.Branch, n.Callback = parent, branch, cb
	w.fn.Nodes = append(w.fn.Nodes, n)
	return len(w.fn.Nodes) - 1
}

func (w *jsWalker) block(list []ast.Statement, parent int, branch string, cb bool) {
	for _, s := range list {
		w.stmt(s, parent, branch, cb)
	}
}

func jsList(s ast.Statement) []ast.Statement {
	if b, ok := s.(*ast.BlockStatement); ok {
		return b.List
	}
	if s == nil {
		return nil
	}
	return []ast.Statement{s}
}

func (w *jsWalker) stmt(s ast.Statement, parent int, branch string, cb bool) {
	switch s := s.(type) {
	case *ast.BlockStatement:
		w.block(s.List, parent, branch, cb)
	case *ast.LabelledStatement:
		w.stmt(s.Statement, parent, branch, cb)
	case *ast.IfStatement:
		w.ifStmt(s, parent, branch, cb)
	case *ast.ForStatement:
		n := &irNode{Kind: kindLoop, Text: "for", HeadEnd: w.line(s.Body.Idx0())}
		var lits []ast.Node
		if s.Test != nil {
			n.Cond = w.cond(s.Test)
			lits = w.facts(n, s.Test, -1)
		}
		i := w.add(n, s, parent, branch, cb)
		w.lits(lits, i)
		w.block(jsList(s.Body), i, "body", cb)
	case *ast.ForInStatement:
		w.forInto(s, s.Into, s.Source, s.Body, parent, branch, cb)
	case *ast.ForOfStatement:
		w.forInto(s, s.Into, s.Source, s.Body, parent, branch, cb)
	case *ast.WhileStatement:
		n := &irNode{Kind: kindLoop, Cond: w.cond(s.Test), HeadEnd: w.line(s.Test.Idx1())}
		n.Text = "while " + n.Cond.Text
		w.loop(n, s, s.Test, s.Body, parent, branch, cb)
	case *ast.DoWhileStatement:
		n := &irNode{Kind: kindLoop, Cond: w.cond(s.Test), Text: "do while"}
		w.loop(n, s, s.Test, s.Body, parent, branch, cb)
	case *ast.SwitchStatement:
		w.switchStmt(s, parent, branch, cb)
	case *ast.ReturnStatement:
		n := &irNode{Kind: kindReturn, Text: "return"}
		var lits []ast.Node
		if s.Argument != nil {
			n.Text = "return " + w.text(s.Argument)
			lits = w.facts(n, s.Argument, -1)
		}
		i := w.add(n, s, parent, branch, cb)
		w.lits(lits, i)
	case *ast.ThrowStatement:
		n := &irNode{Kind: kindRaise, Text: "throw " + w.text(s.Argument)}
		lits := w.facts(n, s.Argument, -1)
		i := w.add(n, s, parent, branch, cb)
		w.lits(lits, i)
	case *ast.BranchStatement:
		w.add(&irNode{Kind: kindExit, Text: s.Token.String()}, s, parent, branch, cb)
	case *ast.ExpressionStatement:
		w.exprStmt(s, parent, branch, cb)
	case *ast.VariableStatement:
		w.decl(s, s.List, parent, branch, cb)
	case *ast.LexicalDeclaration:
		w.decl(s, s.List, parent, branch, cb)
	case *ast.TryStatement:
		n := &irNode{Kind: kindTry, Text: "try", HeadEnd: w.line(s.Try)}
		i := w.add(n, s, parent, branch, cb)
		w.block(s.Body.List, i, "try", cb)
		if s.Catch != nil {
			w.block(s.Catch.Body.List, i, "catch", cb)
		}
		if s.Finally != nil {
			w.block(s.Finally.List, i, "finally", cb)
		}
	case *ast.FunctionDeclaration:
		w.function(join(w.prefix, s.Function.Name.Name.String()), s.Function.ParameterList, s.Function.Body, s.Function.Async, s.Function)
	case *ast.ClassDeclaration:
		w.class(w.prefix, s.Class)
	case *ast.EmptyStatement, *ast.DebuggerStatement:
	default:
		w.add(&irNode{Kind: kindOther, Text: w.text(s)}, s, parent, branch, cb)
	}
}

// ifStmt adds an if statement and walks its branches under it. An if whose
// then-branch does not exit but whose else-branch throws is a guard that
// refuses what its condition does not allow.
func (w *jsWalker) ifStmt(s *ast.IfStatement, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindIf, Cond: w.cond(s.Test), HasElse: s.Alternate != nil, HeadEnd: w.line(s.Test.Idx1())}
	n.Text = "if " + n.Cond.Text
	lits := w.facts(n, s.Test, -1)
	n.Exits, n.Rejects = jsExits(jsList(s.Consequent))
	if !n.Exits && s.Alternate != nil {
		// if (ok) {...} else {throw ...}: a guard that refuses what its condition does not allow
		if exits, rejects := jsExits(jsList(s.Alternate)); exits && rejects {
			n.Exits, n.Rejects, n.ElseExits = true, true, true
		}
	}
	i := w.add(n, s, parent, branch, cb)
	w.lits(lits, i)
	w.block(jsList(s.Consequent), i, "then", cb)
	if s.Alternate != nil {
		w.block(jsList(s.Alternate), i, "else", cb)
	}
}

// loop adds the loop node n of a while or do-while statement s, with the
// facts of its test, and walks its body under it.
func (w *jsWalker) loop(n *irNode, s ast.Statement, test ast.Expression, body ast.Statement, parent int, branch string, cb bool) {
	lits := w.facts(n, test, -1)
	i := w.add(n, s, parent, branch, cb)
	w.lits(lits, i)
	w.block(jsList(body), i, "body", cb)
}

// switchStmt adds a switch statement and, under it, each case as an if on
// discriminant === test (default without a condition).
func (w *jsWalker) switchStmt(s *ast.SwitchStatement, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindOther, Text: "switch " + w.text(s.Discriminant), HeadEnd: w.line(s.Discriminant.Idx1())}
	lits := w.facts(n, s.Discriminant, -1)
	i := w.add(n, s, parent, branch, cb)
	w.lits(lits, i)
	disc := w.text(s.Discriminant)
	for _, c := range s.Body {
		cn := &irNode{Kind: kindIf, Text: "default"}
		if c.Test != nil {
			t := disc + " === " + w.text(c.Test)
			cn.Cond = &irCond{Terms: []string{t}, Text: t}
			cn.Text = "case " + t
			cn.HeadEnd = w.line(c.Test.Idx1())
			w.facts(cn, c.Test, -1)
		}
		cn.Exits, cn.Rejects = jsExits(c.Consequent)
		j := w.add(cn, c, i, "body", cb)
		w.block(c.Consequent, j, "then", cb)
	}
}

// exprStmt adds an expression statement. An assignment defines the names on
// its left; one whose right side is a function, a class or an object of
// functions makes units of them (value) and reads nothing of its right side.
func (w *jsWalker) exprStmt(s *ast.ExpressionStatement, parent int, branch string, cb bool) {
	var lits []ast.Node
	n := &irNode{Kind: kindExpr, Text: w.text(s.Expression)}
	if a, ok := s.Expression.(*ast.AssignExpression); ok {
		n.Kind = kindAssign
		n.Defs = append(n.Defs, w.names(a.Left)...)
		if _, ok := a.Left.(*ast.Identifier); !ok {
			w.facts(n, a.Left, -1)
		}
		if w.value(join(w.prefix, w.text(a.Left)), a.Right) {
			w.add(n, s, parent, branch, cb)
			return
		}
		lits = w.facts(n, a.Right, -1)
	} else {
		lits = w.facts(n, s.Expression, -1)
	}
	i := w.add(n, s, parent, branch, cb)
	w.lits(lits, i)
}

func (w *jsWalker) forInto(s ast.Statement, into ast.ForInto, src ast.Expression, body ast.Statement, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindLoop, Text: "for " + w.text(src), HeadEnd: w.line(src.Idx1())}
	switch t := into.(type) {
	case *ast.ForIntoVar:
		n.Defs = w.names(t.Binding.Target)
	case *ast.ForDeclaration:
		n.Defs = w.names(t.Target)
	case *ast.ForIntoExpression:
		n.Defs = w.names(t.Expression)
	}
	lits := w.facts(n, src, -1)
	i := w.add(n, s, parent, branch, cb)
	w.lits(lits, i)
	w.block(jsList(body), i, "body", cb)
}

func (w *jsWalker) decl(s ast.Statement, list []*ast.Binding, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindAssign, Text: w.text(s)}
	var lits []ast.Node
	for _, b := range list {
		n.Defs = append(n.Defs, w.names(b.Target)...)
		if b.Initializer == nil {
			continue
		}
		if id, ok := b.Target.(*ast.Identifier); ok && w.value(join(w.prefix, id.Name.String()), b.Initializer) {
			continue
		}
		lits = append(lits, w.facts(n, b.Initializer, -1)...)
	}
	i := w.add(n, s, parent, branch, cb)
	w.lits(lits, i)
}

// lits adds the bodies of the function literals of a statement as nodes under it.
func (w *jsWalker) lits(lits []ast.Node, parent int) {
	for _, l := range lits {
		parent := parent
		if over, ok := w.iterations[l]; ok {
			parent = w.iteration(l, over, parent)
		}
		switch f := l.(type) {
		case *ast.FunctionLiteral:
			if f.Body != nil {
				w.block(f.Body.List, parent, "callback", true)
			}
		case *ast.ArrowFunctionLiteral:
			switch b := f.Body.(type) {
			case *ast.BlockStatement:
				w.block(b.List, parent, "callback", true)
			case *ast.ExpressionBody:
				n := &irNode{Kind: kindReturn, Text: "return " + w.text(b.Expression)}
				more := w.facts(n, b.Expression, -1)
				i := w.add(n, b, parent, "callback", true)
				w.lits(more, i)
			}
		}
	}
}

// jsIterationMethods are the array methods that call their first argument once per element.
var jsIterationMethods = map[string]bool{
	"forEach": true, "map": true, "flatMap": true, "filter": true, "some": true, "every": true,
	"find": true, "findIndex": true, "findLast": true, "findLastIndex": true, "reduce": true, "reduceRight": true,
}

// noteIteration records the function literal that call x passes to an array's iteration method
// (x's callee d is xs.map): its body is a loop over xs.
func (w *jsWalker) noteIteration(x *ast.CallExpression, d *ast.DotExpression) {
	if jsIterationMethods[d.Identifier.Name.String()] && len(x.ArgumentList) > 0 {
		w.iterations[x.ArgumentList[0]] = w.text(d.Left) + "." + d.Identifier.Name.String()
	}
}

// iteration adds the loop that the function literal l passed to the iteration method over
// (xs.map) stands for, under parent, its parameters the loop's variables; l's body goes under it.
func (w *jsWalker) iteration(l ast.Node, over string, parent int) int {
	var params *ast.ParameterList
	switch f := l.(type) {
	case *ast.FunctionLiteral:
		params = f.ParameterList
	case *ast.ArrowFunctionLiteral:
		params = f.ParameterList
	}
	n := &irNode{Kind: kindLoop, Text: over + "(…)"}
	if params != nil {
		for _, b := range params.List {
			n.Defs = append(n.Defs, w.names(b.Target)...)
		}
	}
	return w.add(n, l, parent, "callback", true)
}

// names returns what an assignment target or binding names: "req.subDir" and "req", or every
// identifier of a pattern.
func (w *jsWalker) names(e ast.Node) []string {
	switch t := e.(type) {
	case *ast.Identifier:
		return []string{t.Name.String()}
	case *ast.DotExpression:
		if r := dottedRoot(w.text(t)); r != "" {
			return []string{w.text(t), r}
		}
	case *ast.BracketExpression:
		return w.names(t.Left)
	case *ast.ObjectPattern:
		var out []string
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				out = append(out, p.Name.Name.String())
			case *ast.PropertyKeyed:
				out = append(out, w.names(p.Value)...)
			}
		}
		return out
	case *ast.ArrayPattern:
		var out []string
		for _, el := range t.Elements {
			if el != nil {
				out = append(out, w.names(el)...)
			}
		}
		return out
	case *ast.Binding:
		return w.names(t.Target)
	}
	return nil
}

// cond splits a condition at its top-level && or ||.
func (w *jsWalker) cond(e ast.Expression) *irCond {
	c := &irCond{Text: w.text(e)}
	b, ok := e.(*ast.BinaryExpression)
	if !ok || b.Operator != token.LOGICAL_AND && b.Operator != token.LOGICAL_OR {
		c.Terms = []string{c.Text}
		return c
	}
	op := b.Operator
	c.Op = map[token.Token]string{token.LOGICAL_AND: "and", token.LOGICAL_OR: "or"}[op]
	var flat func(x ast.Expression)
	flat = func(x ast.Expression) {
		if bx, ok := x.(*ast.BinaryExpression); ok && bx.Operator == op {
			flat(bx.Left)
			flat(bx.Right)
			return
		}
		c.Terms = append(c.Terms, w.text(x))
	}
	flat(b)
	return c
}

// jsExits reports whether a branch ends by leaving and is short enough to be a guard, and
// whether it refuses (throws, returns false, null or an error).
func jsExits(list []ast.Statement) (exits, rejects bool) {
	if len(list) == 0 || len(list) > guardSize {
		return false, false
	}
	for _, s := range list {
		switch s.(type) {
		case *ast.ForStatement, *ast.ForInStatement, *ast.ForOfStatement, *ast.WhileStatement, *ast.DoWhileStatement, *ast.SwitchStatement:
			return false, false
		}
	}
	switch last := list[len(list)-1].(type) {
	case *ast.ReturnStatement:
		switch a := last.Argument.(type) {
		case *ast.BooleanLiteral:
			return true, !a.Value
		case *ast.NullLiteral:
			return true, true
		case *ast.NewExpression:
			return true, true
		case *ast.Identifier:
			return true, a.Name == "undefined"
		}
		return true, false
	case *ast.ThrowStatement:
		return true, true
	case *ast.BranchStatement:
		return last.Token == token.CONTINUE, false
	}
	return false, false
}

// facts records the calls, names, literals and fields of expression e in n; outer is the call
// whose argument e is. It returns the function literals inside, whose bodies become nodes.
func (w *jsWalker) facts(n *irNode, e ast.Node, outer int) []ast.Node {
	f := &jsFacts{w: w, n: n}
	f.walk(e, outer)
	return f.lits
}

// jsFacts gathers the facts of one expression into node n, and the function
// literals found in it.
type jsFacts struct {
	w    *jsWalker
	n    *irNode
	lits []ast.Node
}

// walk records the facts of x and of the expressions inside it; outer is the
// index in n.Calls of the call whose argument x is, or -1.
func (f *jsFacts) walk(x ast.Node, outer int) {
	if x == nil {
		return
	}
	w, n := f.w, f.n
	switch x := x.(type) {
	case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
		f.lits = append(f.lits, x)
	case *ast.CallExpression:
		f.call(x, outer)
	case *ast.NewExpression:
		f.newCall(x, outer)
	case *ast.DotExpression:
		n.Uses = append(n.Uses, w.names(x)...)
		if _, ok := x.Left.(*ast.Identifier); !ok {
			f.walk(x.Left, outer)
		}
	case *ast.Identifier:
		n.Uses = append(n.Uses, x.Name.String())
	case *ast.StringLiteral:
		n.Strs = append(n.Strs, x.Value.String())
	case *ast.RegExpLiteral:
		n.Strs = append(n.Strs, x.Pattern)
		n.Regexps = append(n.Regexps, x.Pattern)
	case *ast.TemplateLiteral:
		for _, el := range x.Elements {
			n.Strs = append(n.Strs, el.Parsed.String())
		}
		for _, ex := range x.Expressions {
			f.walk(ex, outer)
		}
	case *ast.ObjectLiteral:
		f.object(x, outer)
	case *ast.ArrayLiteral:
		for _, v := range x.Value {
			f.walk(v, outer)
		}
	case *ast.AssignExpression:
		n.Defs = append(n.Defs, w.names(x.Left)...)
		f.walk(x.Right, outer)
	case *ast.BinaryExpression:
		f.walk(x.Left, outer)
		f.walk(x.Right, outer)
	case *ast.UnaryExpression:
		f.walk(x.Operand, outer)
	case *ast.ConditionalExpression:
		f.walk(x.Test, outer)
		f.walk(x.Consequent, outer)
		f.walk(x.Alternate, outer)
	case *ast.BracketExpression:
		f.walk(x.Left, outer)
		f.walk(x.Member, outer)
	case *ast.SequenceExpression:
		for _, v := range x.Sequence {
			f.walk(v, outer)
		}
	case *ast.AwaitExpression:
		f.walk(x.Argument, outer)
	case *ast.YieldExpression:
		f.walk(x.Argument, outer)
	case *ast.SpreadElement:
		f.walk(x.Expression, outer)
	case *ast.OptionalChain:
		f.walk(x.Expression, outer)
	case *ast.Optional:
		f.walk(x.Expression, outer)
	}
}

// call records call x, the names its method is called on, and walks its
// callee and its arguments (these as arguments of x).
func (f *jsFacts) call(x *ast.CallExpression, outer int) {
	w, n := f.w, f.n
	c := irCall{Callee: w.text(x.Callee), Line: w.line(x.Idx0()), Text: w.text(x), Outer: outer}
	for _, a := range x.ArgumentList {
		c.Args = append(c.Args, w.text(a))
	}
	n.Calls = append(n.Calls, c)
	idx := len(n.Calls) - 1
	if d, ok := x.Callee.(*ast.DotExpression); ok {
		n.Uses = append(n.Uses, w.names(d.Left)...)
		w.noteIteration(x, d)
		f.walk(d.Left, outer)
	} else if _, ok := x.Callee.(*ast.Identifier); !ok {
		f.walk(x.Callee, outer)
	}
	for _, a := range x.ArgumentList {
		f.walk(a, idx)
	}
}

// newCall records construction x as a call of "new Callee" (the pattern of
// new RegExp("...") as a regular expression) and walks its arguments.
func (f *jsFacts) newCall(x *ast.NewExpression, outer int) {
	w, n := f.w, f.n
	c := irCall{Callee: "new " + w.text(x.Callee), Line: w.line(x.Idx0()), Text: w.text(x), Outer: outer}
	if id, ok := x.Callee.(*ast.Identifier); ok && id.Name == "RegExp" && len(x.ArgumentList) > 0 {
		if s, ok := x.ArgumentList[0].(*ast.StringLiteral); ok {
			n.Regexps = append(n.Regexps, s.Value.String())
		}
	}
	for _, a := range x.ArgumentList {
		c.Args = append(c.Args, w.text(a))
	}
	n.Calls = append(n.Calls, c)
	idx := len(n.Calls) - 1
	for _, a := range x.ArgumentList {
		f.walk(a, idx)
	}
}

// object records the properties of object literal x as fields of the type
// named by the call it is an argument of, and walks their values.
func (f *jsFacts) object(x *ast.ObjectLiteral, outer int) {
	w, n := f.w, f.n
	typ := ""
	if outer >= 0 {
		typ = n.Calls[outer].Callee
	}
	for _, p := range x.Value {
		switch p := p.(type) {
		case *ast.PropertyKeyed:
			fd := irField{Type: typ, Key: w.key(p.Key, p.Computed), Value: scan.Clip(w.text(p.Value), 200), Line: w.line(p.Idx0())}
			if fl, ok := p.Value.(*ast.FunctionLiteral); ok && fl.Body != nil {
				_, fd.Rejects = jsExits(fl.Body.List)
			}
			n.Fields = append(n.Fields, fd)
			f.walk(p.Value, outer)
		case *ast.PropertyShort:
			n.Fields = append(n.Fields, irField{Type: typ, Key: p.Name.Name.String(), Value: p.Name.Name.String(), Line: w.line(p.Idx0())})
			n.Uses = append(n.Uses, p.Name.Name.String())
		case *ast.SpreadElement:
			f.walk(p.Expression, outer)
		}
	}
}
