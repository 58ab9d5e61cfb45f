package compare

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
)

// goIR parses one Go file into the comparison's form (see removed_ir.go).
func goIR(p string, src []byte) (out *irFile) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
	out = &irFile{Path: p, Imports: map[string]string{}}
	defer func() {
		if r := recover(); r != nil {
			out = &irFile{Path: p, Imports: map[string]string{}, Err: fmt.Sprintf("walking the syntax tree failed: %v", r)}
		}
	}()
	if err != nil {
		out.Err = err.Error()
		return out
	}
	for _, imp := range file.Imports {
		ip, _ := strconv.Unquote(imp.Path.Value)
		name := path.Base(ip)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out.Imports[name] = ip
	}
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = goRecvType(fd.Recv.List[0].Type) + "." + name
		}
		g := &goWalker{fset: fset, src: src, base: fset.File(fd.Pos()).Base(), fn: &irFunc{Name: name, Line: fset.Position(fd.Pos()).Line, End: fset.Position(fd.End()).Line, file: out}}
		for _, fl := range fd.Type.Params.List {
			for _, n := range fl.Names {
				g.fn.Params = append(g.fn.Params, n.Name)
			}
		}
		if fd.Recv != nil {
			for _, n := range fd.Recv.List[0].Names {
				g.fn.Recv = n.Name
			}
		}
		g.block(fd.Body.List, -1, "", false)
		out.Funcs = append(out.Funcs, g.fn)
	}
	return out
}

func goRecvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return goRecvType(t.X)
	case *ast.IndexExpr:
		return goRecvType(t.X)
	case *ast.IndexListExpr:
		return goRecvType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

type goWalker struct {
	fset *token.FileSet
	src  []byte
	base int
	fn   *irFunc
}

func (g *goWalker) line(p token.Pos) int { return g.fset.Position(p).Line }

// text is a node's source with its comments left out, white space collapsed and the bodies of
// the function literals it holds elided (they are nodes of their own): gofmt's layout makes the
// source as regular as the printer's, at a fraction of the cost.
func (g *goWalker) text(n ast.Node) string {
	if isNilNode(n) {
		return ""
	}
	start, end := int(n.Pos())-g.base, int(n.End())-g.base
	if start < 0 || end > len(g.src) || start >= end {
		return ""
	}
	var b strings.Builder
	at := start
	ast.Inspect(n, func(x ast.Node) bool {
		fl, ok := x.(*ast.FuncLit)
		if !ok || fl.Body == nil {
			return true
		}
		bs, be := int(fl.Body.Pos())-g.base, int(fl.Body.End())-g.base
		if bs >= at && be <= end {
			b.Write(g.src[at:bs])
			b.WriteString("{…}")
			at = be
		}
		return false
	})
	b.Write(g.src[at:end])
	return collapse(jsStripComments(b.String()))
}

// add appends a node for statement s and returns its index.
func (g *goWalker) add(n *irNode, s ast.Node, parent int, branch string, cb bool) int {
	n.Line, n.End = g.line(s.Pos()), g.line(s.End())
	if n.HeadEnd == 0 {
		n.HeadEnd = n.End
	}
	n.Parent, n.Branch, n.Callback = parent, branch, cb
	g.fn.Nodes = append(g.fn.Nodes, n)
	return len(g.fn.Nodes) - 1
}

func (g *goWalker) block(list []ast.Stmt, parent int, branch string, cb bool) {
	for _, s := range list {
		g.stmt(s, parent, branch, cb)
	}
}

func (g *goWalker) stmt(s ast.Stmt, parent int, branch string, cb bool) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		g.block(s.List, parent, branch, cb)
	case *ast.LabeledStmt:
		g.stmt(s.Stmt, parent, branch, cb)
	case *ast.IfStmt:
		g.ifStmt(s, parent, branch, cb)
	case *ast.ForStmt:
		g.forStmt(s, parent, branch, cb)
	case *ast.RangeStmt:
		g.rangeStmt(s, parent, branch, cb)
	case *ast.SwitchStmt:
		g.switchStmt(s, parent, branch, cb)
	case *ast.TypeSwitchStmt:
		n := &irNode{Kind: kindOther, Text: "switch " + g.text(s.Assign), HeadEnd: g.line(s.Body.Lbrace)}
		g.facts(n, s.Assign)
		i := g.add(n, s, parent, branch, cb)
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			g.caseClause(cc, nil, "", i, cb)
		}
	case *ast.SelectStmt:
		g.selectStmt(s, parent, branch, cb)
	case *ast.ReturnStmt:
		n := &irNode{Kind: kindReturn, Text: g.text(s)}
		var lits []*ast.FuncLit
		for _, r := range s.Results {
			lits = append(lits, g.facts(n, r)...)
		}
		i := g.add(n, s, parent, branch, cb)
		g.lits(lits, i)
	case *ast.BranchStmt:
		g.add(&irNode{Kind: kindExit, Text: s.Tok.String()}, s, parent, branch, cb)
	case *ast.ExprStmt:
		n := &irNode{Kind: kindExpr, Text: g.text(s.X)}
		if c, ok := s.X.(*ast.CallExpr); ok && goIsPanic(c) {
			n.Kind = kindRaise
		}
		lits := g.facts(n, s.X)
		i := g.add(n, s, parent, branch, cb)
		g.lits(lits, i)
	case *ast.AssignStmt:
		g.assignStmt(s, parent, branch, cb)
	case *ast.IncDecStmt:
		n := &irNode{Kind: kindAssign, Text: g.text(s), Defs: goNames(s.X)}
		g.facts(n, s.X)
		g.add(n, s, parent, branch, cb)
	case *ast.DeclStmt:
		g.declStmt(s, parent, branch, cb)
	case *ast.DeferStmt:
		g.deferStmt(s, parent, branch, cb)
	case *ast.GoStmt:
		g.goStmt(s, parent, branch, cb)
	case *ast.SendStmt:
		n := &irNode{Kind: kindExpr, Text: g.text(s)}
		g.facts(n, s.Chan)
		g.facts(n, s.Value)
		g.add(n, s, parent, branch, cb)
	case *ast.EmptyStmt:
	default:
		g.add(&irNode{Kind: kindOther, Text: g.text(s)}, s, parent, branch, cb)
	}
}

// ifStmt adds an if statement (its init and condition as facts of the node)
// and walks its then-block under it, and its else-branch as "else".
func (g *goWalker) ifStmt(s *ast.IfStmt, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindIf, Cond: goCond(g, s.Cond), HasElse: s.Else != nil, HeadEnd: g.line(s.Body.Lbrace)}
	head := "if " + g.text(s.Cond)
	var lits []*ast.FuncLit
	if s.Init != nil {
		head = "if " + g.text(s.Init) + "; " + g.text(s.Cond)
		lits = g.facts(n, s.Init)
	}
	n.Text = head
	lits = append(lits, g.facts(n, s.Cond)...)
	n.Exits, n.Rejects = goExits(s.Body.List)
	i := g.add(n, s, parent, branch, cb)
	g.lits(lits, i)
	g.block(s.Body.List, i, "then", cb)
	if s.Else != nil {
		g.stmt(s.Else, i, "else", cb)
	}
}

// forStmt adds a three-clause for loop (its clauses as facts, its condition
// as the loop's) and walks its body under it.
func (g *goWalker) forStmt(s *ast.ForStmt, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindLoop, HeadEnd: g.line(s.Body.Lbrace)}
	var parts []string
	for _, x := range []ast.Node{s.Init, s.Cond, s.Post} {
		if x != nil && !isNilNode(x) {
			parts = append(parts, g.text(x))
			g.facts(n, x)
		}
	}
	n.Text = "for " + strings.Join(parts, "; ")
	if s.Cond != nil {
		n.Cond = goCond(g, s.Cond)
	}
	i := g.add(n, s, parent, branch, cb)
	g.block(s.Body.List, i, "body", cb)
}

// rangeStmt adds a range loop (defining its key and value) and walks its
// body under it.
func (g *goWalker) rangeStmt(s *ast.RangeStmt, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindLoop, HeadEnd: g.line(s.Body.Lbrace), Text: "for range " + g.text(s.X)}
	for _, x := range []ast.Expr{s.Key, s.Value} {
		if x != nil {
			n.Defs = append(n.Defs, goNames(x)...)
		}
	}
	lits := g.facts(n, s.X)
	i := g.add(n, s, parent, branch, cb)
	g.lits(lits, i)
	g.block(s.Body.List, i, "body", cb)
}

// switchStmt adds an expression switch and its case clauses, each compared
// with the switch's tag.
func (g *goWalker) switchStmt(s *ast.SwitchStmt, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindOther, Text: "switch", HeadEnd: g.line(s.Body.Lbrace)}
	tag := ""
	if s.Init != nil {
		g.facts(n, s.Init)
	}
	if s.Tag != nil {
		tag = g.text(s.Tag)
		n.Text += " " + tag
		g.facts(n, s.Tag)
	}
	i := g.add(n, s, parent, branch, cb)
	for _, c := range s.Body.List {
		cc := c.(*ast.CaseClause)
		g.caseClause(cc, cc.List, tag, i, cb)
	}
}

// selectStmt adds a select statement and, under it, one node per
// communication clause with the clause's body as its "then".
func (g *goWalker) selectStmt(s *ast.SelectStmt, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindOther, Text: "select", HeadEnd: g.line(s.Body.Lbrace)}
	i := g.add(n, s, parent, branch, cb)
	for _, c := range s.Body.List {
		cc := c.(*ast.CommClause)
		cn := &irNode{Kind: kindOther, Text: "case", HeadEnd: g.line(cc.Colon)}
		if cc.Comm != nil {
			cn.Text = "case " + g.text(cc.Comm)
			g.facts(cn, cc.Comm)
		}
		j := g.add(cn, cc, i, "body", cb)
		g.block(cc.Body, j, "then", cb)
	}
}

// assignStmt adds an assignment defining the names on its left; a left side
// that is not a plain name (a.b = x) is also read.
func (g *goWalker) assignStmt(s *ast.AssignStmt, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindAssign, Text: g.text(s)}
	for _, l := range s.Lhs {
		n.Defs = append(n.Defs, goNames(l)...)
		if _, ok := l.(*ast.Ident); !ok {
			// a.b = x reads a
			g.facts(n, l)
		}
	}
	var lits []*ast.FuncLit
	for _, r := range s.Rhs {
		lits = append(lits, g.facts(n, r)...)
	}
	i := g.add(n, s, parent, branch, cb)
	g.lits(lits, i)
}

// declStmt adds a declaration statement defining the names of its var specs.
func (g *goWalker) declStmt(s *ast.DeclStmt, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindAssign, Text: g.text(s)}
	var lits []*ast.FuncLit
	if gd, ok := s.Decl.(*ast.GenDecl); ok {
		for _, sp := range gd.Specs {
			if vs, ok := sp.(*ast.ValueSpec); ok {
				for _, nm := range vs.Names {
					n.Defs = append(n.Defs, nm.Name)
				}
				for _, v := range vs.Values {
					lits = append(lits, g.facts(n, v)...)
				}
			}
		}
	}
	i := g.add(n, s, parent, branch, cb)
	g.lits(lits, i)
}

// deferStmt adds a defer statement. The body of a deferred function literal
// runs at return, in this function, so it is walked under the node as "defer".
func (g *goWalker) deferStmt(s *ast.DeferStmt, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindDefer, Text: "defer " + g.text(s.Call)}
	if fl, ok := s.Call.Fun.(*ast.FuncLit); ok {
		i := g.add(n, s, parent, branch, cb)
		g.block(fl.Body.List, i, "defer", cb)
		return
	}
	lits := g.facts(n, s.Call)
	i := g.add(n, s, parent, branch, cb)
	g.lits(lits, i)
}

// goStmt adds a go statement; the body of its function literal is walked
// under the node as a callback.
func (g *goWalker) goStmt(s *ast.GoStmt, parent int, branch string, cb bool) {
	n := &irNode{Kind: kindGo, Text: "go " + g.text(s.Call)}
	if fl, ok := s.Call.Fun.(*ast.FuncLit); ok {
		i := g.add(n, s, parent, branch, cb)
		g.block(fl.Body.List, i, "callback", true)
		return
	}
	lits := g.facts(n, s.Call)
	i := g.add(n, s, parent, branch, cb)
	g.lits(lits, i)
}

func isNilNode(n ast.Node) bool {
	switch x := n.(type) {
	case ast.Stmt:
		return x == nil
	case ast.Expr:
		return x == nil
	}
	return n == nil
}

// caseClause adds a switch case as an if whose condition is its values (tag == v, or v in a
// tagless switch), joined by or.
func (g *goWalker) caseClause(cc *ast.CaseClause, list []ast.Expr, tag string, parent int, cb bool) {
	n := &irNode{Kind: kindIf, HeadEnd: g.line(cc.Colon), Text: "default"}
	if len(list) > 0 {
		c := &irCond{Op: "or"}
		for _, e := range list {
			t := g.text(e)
			if tag != "" {
				t = tag + " == " + t
			}
			c.Terms = append(c.Terms, t)
			g.facts(n, e)
		}
		if len(c.Terms) == 1 {
			c.Op = ""
		}
		c.Text = strings.Join(c.Terms, " || ")
		n.Cond, n.Text = c, "case "+c.Text
	}
	n.Exits, n.Rejects = goExits(cc.Body)
	i := g.add(n, cc, parent, "body", cb)
	g.block(cc.Body, i, "then", cb)
}

// lits adds the bodies of the function literals of a statement as nodes under it: a callback
// passed to a call, a function stored in a field.
func (g *goWalker) lits(lits []*ast.FuncLit, parent int) {
	for _, fl := range lits {
		g.block(fl.Body.List, parent, "callback", true)
	}
}

// facts records the calls, names, literals and fields of expression e in n, and returns the
// function literals it holds (whose bodies become nodes of their own).
func (g *goWalker) facts(n *irNode, e ast.Node) []*ast.FuncLit {
	var lits []*ast.FuncLit
	g.expr(n, e, -1, &lits)
	return lits
}

// expr walks an expression; outer is the index of the call whose argument it is, -1.
func (g *goWalker) expr(n *irNode, e ast.Node, outer int, lits *[]*ast.FuncLit) {
	ast.Inspect(e, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			*lits = append(*lits, x)
			return false
		case *ast.CallExpr:
			c := irCall{Callee: g.text(x.Fun), Line: g.line(x.Pos()), Text: g.text(x), Outer: outer}
			for _, a := range x.Args {
				c.Args = append(c.Args, g.text(a))
			}
			n.Calls = append(n.Calls, c)
			idx := len(n.Calls) - 1
			switch f := x.Fun.(type) {
			case *ast.SelectorExpr:
				g.expr(n, f.X, outer, lits)
			case *ast.Ident:
			default:
				g.expr(n, f, outer, lits)
			}
			for _, a := range x.Args {
				g.expr(n, a, idx, lits)
			}
			return false
		case *ast.SelectorExpr:
			names := goNames(x)
			n.Uses = append(n.Uses, names...)
			return len(names) != 2 // a pure chain is recorded; otherwise look inside
		case *ast.Ident:
			n.Uses = append(n.Uses, x.Name)
		case *ast.BasicLit:
			if x.Kind == token.STRING {
				if s, err := strconv.Unquote(x.Value); err == nil {
					n.Strs = append(n.Strs, s)
				}
			}
		case *ast.CompositeLit:
			typ := ""
			if x.Type != nil {
				typ = g.text(x.Type)
			}
			for _, el := range x.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				key, ok := kv.Key.(*ast.Ident)
				if !ok {
					continue
				}
				f := irField{Type: typ, Key: key.Name, Value: scan.Clip(g.text(kv.Value), 200), Line: g.line(kv.Pos())}
				if fl, ok := kv.Value.(*ast.FuncLit); ok {
					_, f.Rejects = goExits(fl.Body.List)
					f.Rejects = f.Rejects || goRefuses(fl.Body)
				}
				n.Fields = append(n.Fields, f)
				g.expr(n, kv.Value, outer, lits)
			}
			return false
		}
		return true
	})
}

// goNames returns the dotted name of a selector chain and its root ("req.subDir", "req"), or
// the names an expression reads.
func goNames(e ast.Expr) []string {
	var parts []string
	x := e
	for {
		switch t := x.(type) {
		case *ast.SelectorExpr:
			parts = append([]string{t.Sel.Name}, parts...)
			x = t.X
			continue
		case *ast.Ident:
			parts = append([]string{t.Name}, parts...)
			if len(parts) == 1 {
				return parts
			}
			return []string{strings.Join(parts, "."), parts[0]}
		case *ast.StarExpr:
			x = t.X
			continue
		case *ast.ParenExpr:
			x = t.X
			continue
		case *ast.IndexExpr:
			x = t.X
			parts = nil
			continue
		}
		break
	}
	return IdentsOf(e)
}

func goIsPanic(c *ast.CallExpr) bool {
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return f.Name == "panic"
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			return x.Name == "os" && f.Sel.Name == "Exit" || x.Name == "log" && strings.HasPrefix(f.Sel.Name, "Fatal")
		}
	}
	return false
}

// goExits reports whether a branch ends by leaving (return, panic, continue, os.Exit) and is
// short enough to be a guard, and whether it refuses: returns an error, false or nil first.
func goExits(list []ast.Stmt) (exits, rejects bool) {
	if len(list) == 0 || len(list) > guardSize {
		return false, false
	}
	for _, s := range list {
		switch s.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.SelectStmt:
			return false, false
		}
	}
	switch last := list[len(list)-1].(type) {
	case *ast.ReturnStmt:
		return true, goReturnRefuses(last)
	case *ast.BranchStmt:
		return last.Tok == token.CONTINUE, false
	case *ast.ExprStmt:
		if c, ok := last.X.(*ast.CallExpr); ok && goIsPanic(c) {
			return true, true
		}
	}
	return false, false
}

// guardSize is the most statements a guard's branch holds: logging, a response, the exit.
const guardSize = 6

// goReturnRefuses reports whether a return hands back a refusal: a non-nil last result (an
// error) or false.
func goReturnRefuses(r *ast.ReturnStmt) bool {
	if len(r.Results) == 0 {
		return false
	}
	last := ast.Unparen(r.Results[len(r.Results)-1])
	if id, ok := last.(*ast.Ident); ok {
		return id.Name != "nil" && id.Name != "true"
	}
	return true
}

// goRefuses reports whether a function body returns a refusal somewhere (an error value).
func goRefuses(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if r, ok := n.(*ast.ReturnStmt); ok && goReturnRefuses(r) {
			found = true
		}
		_, lit := n.(*ast.FuncLit)
		return !found && !lit
	})
	return found
}

// goCond splits a condition at its top-level && or ||.
func goCond(g *goWalker, e ast.Expr) *irCond {
	c := &irCond{Text: g.text(e)}
	e = ast.Unparen(e)
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != token.LAND && b.Op != token.LOR {
		c.Terms = []string{c.Text}
		return c
	}
	op := b.Op
	c.Op = map[token.Token]string{token.LAND: "and", token.LOR: "or"}[op]
	var flat func(x ast.Expr)
	flat = func(x ast.Expr) {
		if bx, ok := ast.Unparen(x).(*ast.BinaryExpr); ok && bx.Op == op {
			flat(bx.X)
			flat(bx.Y)
			return
		}
		c.Terms = append(c.Terms, g.text(x))
	}
	flat(b)
	return c
}
