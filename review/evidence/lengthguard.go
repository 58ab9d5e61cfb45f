package evidence

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
)

// This file holds the analysis of indexes and their length guards (RuleIndexUnguarded,
// RulePrefixMatch). It reads the AST only, so it runs where types do not resolve. Two shapes:
//
//   - a guard `len(s) >= n && ... || ...s[k]...`: && binds tighter than ||, so the right side
//     runs exactly when the length test failed, and indexes s without it (CWE-129);
//   - a loop over one sequence that compares its elements with another sequence's at the same
//     index (a[i] != b[i]): with nothing relating the two lengths, b is indexed past its end when
//     it is the shorter (CWE-129); with only len(a) > len(b) rejected, a function that returns
//     true after the loop accepts any b of which a is a prefix (CWE-187).

// lenGuardOps are the comparisons of len(s) with a bound that hold only when s is long enough,
// as written with len on the left; lenGuardFlipped the same with len on the right.
var (
	lenGuardOps     = map[token.Token]bool{token.GTR: true, token.GEQ: true, token.NEQ: true}
	lenGuardFlipped = map[token.Token]bool{token.LSS: true, token.LEQ: true, token.NEQ: true}
)

// lenArg returns the text of x in len(x), "" when e is not a call of len.
func lenArg(e ast.Expr) string {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return ""
	}
	if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "len" {
		return text(call.Args[0])
	}
	return ""
}

// lenMentions maps each x of a len(x) in the body to the positions of those calls.
func lenMentions(body ast.Node) map[string][]token.Pos {
	out := map[string][]token.Pos{}
	ast.Inspect(body, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok {
			if x := lenArg(e); x != "" {
				out[x] = append(out[x], e.Pos())
			}
		}
		return true
	})
	return out
}

// mentionedBefore reports whether len(x) occurs before pos.
func mentionedBefore(lens map[string][]token.Pos, x string, pos token.Pos) bool {
	for _, p := range lens[x] {
		if p < pos {
			return true
		}
	}
	return false
}

// positiveLenGuard returns s when e holds only if s is not empty (len(s) > n, len(s) >= n,
// len(s) != 0, n < len(s)).
func positiveLenGuard(e ast.Expr) string {
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok {
		return ""
	}
	if s := lenArg(b.X); s != "" && lenGuardOps[b.Op] {
		return s
	}
	if s := lenArg(b.Y); s != "" && lenGuardFlipped[b.Op] {
		return s
	}
	return ""
}

// conjuncts flattens a chain of && into its operands.
func conjuncts(e ast.Expr) []ast.Expr {
	if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.LAND {
		return append(conjuncts(b.X), conjuncts(b.Y)...)
	}
	return []ast.Expr{e}
}

// constIndexOf returns the first s[k] or s[k:...] with a constant k in e.
func constIndexOf(e ast.Node, s string) ast.Node {
	var found ast.Node
	ast.Inspect(e, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.IndexExpr:
			if lit, ok := n.Index.(*ast.BasicLit); ok && lit.Kind == token.INT && text(n.X) == s {
				found = n
			}
		case *ast.SliceExpr:
			if lit, ok := n.Low.(*ast.BasicLit); ok && lit.Kind == token.INT && lit.Value != "0" && text(n.X) == s {
				found = n
			}
		}
		return true
	})
	return found
}

// lengthGuards runs the analysis on one function.
func (g *goCheck) lengthGuards(fd *ast.FuncDecl) {
	lens := lenMentions(fd.Body)
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.LOR {
				g.orGuard(n, lens)
			}
		case *ast.BlockStmt:
			g.loopsIn(fd, n.List, lens)
		case *ast.CaseClause:
			g.loopsIn(fd, n.Body, lens)
		case *ast.CommClause:
			g.loopsIn(fd, n.Body, lens)
		}
		return true
	})
}

// orGuard reports `len(s) >= n && ... || ...s[k]...` where nothing before checked len(s).
func (g *goCheck) orGuard(n *ast.BinaryExpr, lens map[string][]token.Pos) {
	cs := conjuncts(n.X)
	if len(cs) < 2 {
		return
	}
	for _, c := range cs {
		s := positiveLenGuard(c)
		if s == "" || mentionedBefore(lens, s, n.Pos()) || len(lenMentions(n.Y)[s]) > 0 {
			continue
		}
		if ix := constIndexOf(n.Y, s); ix != nil {
			g.report(rules.RuleIndexUnguarded, ix, fmt.Sprintf("%s is indexed on the right of || while its length test %s is on the left, under &&: && binds tighter, so this index runs exactly when the length test failed", text(ix.(ast.Expr)), text(c)))
			return
		}
	}
}

// seqLoop is a loop over the elements of one sequence: its index variable and, for a range
// loop, its value variable.
type seqLoop struct {
	seq, idx, val string
	body          *ast.BlockStmt
	header        ast.Node // the loop's condition or range expression
}

// seqLoopOf returns the sequence a loop walks by index: `for ...; i < len(a); ...` or
// `for i, v := range a`.
func seqLoopOf(s ast.Stmt) (seqLoop, bool) {
	if l, ok := s.(*ast.LabeledStmt); ok {
		s = l.Stmt
	}
	switch s := s.(type) {
	case *ast.ForStmt:
		b, ok := s.Cond.(*ast.BinaryExpr)
		if !ok || b.Op != token.LSS {
			return seqLoop{}, false
		}
		i, ok := b.X.(*ast.Ident)
		if a := lenArg(b.Y); ok && a != "" {
			return seqLoop{seq: a, idx: i.Name, body: s.Body, header: b}, true
		}
	case *ast.RangeStmt:
		i, ok := s.Key.(*ast.Ident)
		if !ok || i.Name == "_" {
			return seqLoop{}, false
		}
		l := seqLoop{seq: text(s.X), idx: i.Name, body: s.Body, header: s.X}
		if v, ok := s.Value.(*ast.Ident); ok {
			l.val = v.Name
		}
		return l, true
	}
	return seqLoop{}, false
}

// otherIndexed returns the first b[i] (b not the loop's sequence) compared with an element of
// the loop's sequence (a[i], or the range value) in the loop's body, with b's text.
func (l seqLoop) otherIndexed() (*ast.IndexExpr, string) {
	var found *ast.IndexExpr
	ast.Inspect(l.body, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if found != nil || !ok || (b.Op != token.EQL && b.Op != token.NEQ) {
			return found == nil
		}
		for _, pair := range [2][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
			if ix := l.indexOfOther(pair[0]); ix != nil && l.isElement(pair[1]) {
				found = ix
			}
		}
		return found == nil
	})
	if found == nil {
		return nil, ""
	}
	return found, text(found.X)
}

func (l seqLoop) indexOfOther(e ast.Expr) *ast.IndexExpr {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return nil
	}
	if id, ok := ix.Index.(*ast.Ident); !ok || id.Name != l.idx || text(ix.X) == l.seq {
		return nil
	}
	return ix
}

func (l seqLoop) isElement(e ast.Expr) bool {
	e = ast.Unparen(e)
	if id, ok := e.(*ast.Ident); ok && l.val != "" && id.Name == l.val {
		return true
	}
	ix, ok := e.(*ast.IndexExpr)
	if !ok {
		return false
	}
	id, ok := ix.Index.(*ast.Ident)
	return ok && id.Name == l.idx && text(ix.X) == l.seq
}

// loopsIn checks the loops of one statement list: a loop's next statement is what runs when
// the loop finds no mismatch.
func (g *goCheck) loopsIn(fd *ast.FuncDecl, list []ast.Stmt, lens map[string][]token.Pos) {
	for i, s := range list {
		l, ok := seqLoopOf(s)
		if !ok {
			continue
		}
		ix, other := l.otherIndexed()
		if ix == nil {
			continue
		}
		if len(lens[other]) == 0 {
			if !assignedIn(fd, other) && !arrayParam(fd, other) {
				g.reportFirstAdded(rules.RuleIndexUnguarded, []ast.Node{l.header, ix}, fmt.Sprintf("the loop runs over the length of %s but indexes %s at the same index, and nothing compares len(%s) with len(%s): a shorter %s is indexed past its end and the function panics", l.seq, other, other, l.seq, other))
			}
			continue
		}
		if i+1 < len(list) && returnsBool(list[i+1], "true") && returnsBool(l.body, "false") && onlyLongerRejected(fd.Body, l.seq, other) &&
			!prefixMeant(fd.Name.Name, l.seq, other) {
			g.report(rules.RulePrefixMatch, list[i+1], fmt.Sprintf("the loop compares %s with %s element by element and rejects only a longer %s; returning true after it accepts every %s of which %s is a prefix (len(%s) == len(%s) is never checked)", l.seq, other, l.seq, other, l.seq, l.seq, other))
		}
	}
}

// prefixMeant reports whether one of the names says that a prefix match is what is meant.
func prefixMeant(names ...string) bool {
	for _, n := range names {
		n = strings.ToLower(n)
		for _, w := range prefixMeantWords {
			if strings.Contains(n, w) {
				return true
			}
		}
	}
	return false
}

// assignedIn reports whether the function assigns or declares name other than as a range
// variable: a local is usually built with the length it is indexed at.
func assignedIn(fd *ast.FuncDecl, name string) bool {
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				found = found || text(l) == name
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				found = found || id.Name == name
			}
		}
		return !found
	})
	return found
}

// arrayParam reports whether name is a parameter (or receiver) of a fixed-size array type,
// whose length the type fixes.
func arrayParam(fd *ast.FuncDecl, name string) bool {
	lists := []*ast.FieldList{fd.Recv, fd.Type.Params}
	for _, fl := range lists {
		if fl == nil {
			continue
		}
		for _, f := range fl.List {
			at, ok := f.Type.(*ast.ArrayType)
			if !ok || at.Len == nil {
				continue
			}
			for _, id := range f.Names {
				if id.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// returnsBool reports whether n is, or contains, `return <value>` of the named constant.
func returnsBool(n ast.Node, value string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
			if id, ok := r.Results[0].(*ast.Ident); ok && id.Name == value {
				found = true
			}
		}
		_, lit := n.(*ast.FuncLit)
		return !found && !lit
	})
	return found
}

// onlyLongerRejected reports whether every comparison of len(a) with len(b) in the body tests
// that a is the longer (len(a) > len(b), len(b) < len(a)), and there is at least one.
func onlyLongerRejected(body ast.Node, a, b string) bool {
	longer, other := 0, 0
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.BinaryExpr)
		if !ok {
			return true
		}
		x, y := lenArg(c.X), lenArg(c.Y)
		switch {
		case x == a && y == b && (c.Op == token.GTR || c.Op == token.GEQ),
			x == b && y == a && (c.Op == token.LSS || c.Op == token.LEQ):
			longer++
		case (x == a && y == b) || (x == b && y == a):
			other++
		}
		return true
	})
	return longer > 0 && other == 0
}

// reportFirstAdded reports at the first of nodes on a line the change added: the defect may be
// the index or the bound that fails to cover it.
func (g *goCheck) reportFirstAdded(rule string, nodes []ast.Node, msg string) {
	for _, n := range nodes {
		if g.f.IsAdded(g.line(n)) {
			g.report(rule, n, msg)
			return
		}
	}
}
