package evidence

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// A finding's path conditions are the conditions under which its line runs within its function:
// the ifs and switch cases around it, and the early exits before it (`if err != nil { return }`
// before the line holds when err is nil). A finding the base had under conditions the head
// dropped (a loop once run only for some teams, now for all) is one the change made reachable on
// more paths, and is new although its key is not.

// pathConds returns the conditions around pos in its top-level function, each "+cond" or
// "-cond" (the condition's text held or did not), joined by "\x00"; "" outside functions.
func pathConds(files []*ast.File, pos token.Pos) string {
	for _, f := range files {
		if pos < f.Pos() || pos > f.End() {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && fd.Body.Pos() <= pos && pos < fd.Body.End() {
				var conds []string
				condsInBlock(fd.Body.List, pos, &conds)
				return strings.Join(conds, "\x00")
			}
		}
	}
	return ""
}

func contains(n ast.Node, pos token.Pos) bool {
	return n != nil && n.Pos() <= pos && pos < n.End()
}

// cond is a condition with its polarity, a negation folded in: !x not held is x held.
func cond(e ast.Expr, held bool) string {
	e = ast.Unparen(e)
	for {
		u, ok := e.(*ast.UnaryExpr)
		if !ok || u.Op != token.NOT {
			break
		}
		e, held = ast.Unparen(u.X), !held
	}
	if held {
		return "+" + types.ExprString(e)
	}
	return "-" + types.ExprString(e)
}

func leaves(b *ast.BlockStmt) bool {
	if b == nil || len(b.List) == 0 {
		return false
	}
	switch last := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	case *ast.ExprStmt:
		if call, ok := last.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

func condsInBlock(list []ast.Stmt, pos token.Pos, conds *[]string) {
	for _, s := range list {
		if !contains(s, pos) {
			if s.End() <= pos {
				if ifs, ok := s.(*ast.IfStmt); ok && ifs.Else == nil && leaves(ifs.Body) {
					*conds = append(*conds, cond(ifs.Cond, false))
				}
			}
			continue
		}
		condsInStmt(s, pos, conds)
		return
	}
}

func condsInStmt(s ast.Stmt, pos token.Pos, conds *[]string) {
	switch s := s.(type) {
	case *ast.IfStmt:
		switch {
		case contains(s.Body, pos):
			*conds = append(*conds, cond(s.Cond, true))
			condsInBlock(s.Body.List, pos, conds)
		case contains(s.Else, pos):
			*conds = append(*conds, cond(s.Cond, false))
			condsInStmt(s.Else, pos, conds)
		}
	case *ast.BlockStmt:
		condsInBlock(s.List, pos, conds)
	case *ast.LabeledStmt:
		condsInStmt(s.Stmt, pos, conds)
	case *ast.ForStmt:
		if contains(s.Body, pos) {
			condsInBlock(s.Body.List, pos, conds)
		}
	case *ast.RangeStmt:
		if contains(s.Body, pos) {
			condsInBlock(s.Body.List, pos, conds)
		}
	case *ast.SwitchStmt:
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			if !contains(cc, pos) {
				continue
			}
			tag := ""
			if s.Tag != nil {
				tag = types.ExprString(s.Tag) + " == "
			}
			var exprs []string
			for _, e := range cc.List {
				exprs = append(exprs, types.ExprString(e))
			}
			if len(exprs) == 0 {
				exprs = []string{"default"}
			}
			*conds = append(*conds, "+case "+tag+strings.Join(exprs, ", "))
			condsInBlock(cc.Body, pos, conds)
		}
	case *ast.TypeSwitchStmt:
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			if contains(cc, pos) {
				var exprs []string
				for _, e := range cc.List {
					exprs = append(exprs, types.ExprString(e))
				}
				*conds = append(*conds, "+type case "+strings.Join(exprs, ", "))
				condsInBlock(cc.Body, pos, conds)
			}
		}
	case *ast.SelectStmt:
		for _, c := range s.Body.List {
			if cc := c.(*ast.CommClause); contains(cc, pos) {
				condsInBlock(cc.Body, pos, conds)
			}
		}
	default:
		// A function literal in the statement: its body's conditions, after the statement's.
		ast.Inspect(s, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok && contains(lit.Body, pos) {
				condsInBlock(lit.Body.List, pos, conds)
				return false
			}
			return contains(n, pos)
		})
	}
}

// droppedConds returns the conditions of base that head no longer has, when head's are a strict
// subset of base's: the head reaches the line on more paths. A condition reworded (a renamed
// variable) is not a subset, and is not judged.
func droppedConds(base, head string) []string {
	if base == head || base == "" {
		return nil
	}
	b := strings.Split(base, "\x00")
	var h []string
	if head != "" {
		h = strings.Split(head, "\x00")
	}
	if len(h) >= len(b) {
		return nil
	}
	for _, c := range h {
		if !slices.Contains(b, c) {
			return nil
		}
	}
	var out []string
	for _, c := range b {
		if !slices.Contains(h, c) {
			out = append(out, c)
		}
	}
	return out
}

// describeConds says when the base ran a line: "`!t.IsOwnerTeam()`", "`err == nil`".
func describeConds(conds []string) string {
	var parts []string
	for _, c := range conds {
		text := c[1:]
		if c[0] == '-' {
			text = "!(" + text + ")"
			if !strings.ContainsAny(c[1:], " ") {
				text = "!" + c[1:]
			}
		}
		parts = append(parts, "`"+text+"`")
	}
	return strings.Join(parts, " and ")
}
