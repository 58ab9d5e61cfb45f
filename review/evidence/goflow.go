package evidence

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
)

// What reaches a sink: the hand-written Go checks ask of a string whether it can carry input
// (SQL text, a program to run). A local variable is as safe as every value assigned to it in the
// function: constants and placeholder strings built from them ("?", "$"+strconv.Itoa(i),
// strings.Repeat("?,", n), strings.Join of a slice appended with placeholders), or a program
// found by exec.LookPath of a constant name. Parameters, fields, package variables and results of
// other calls are input. The facts are a greatest fixed point: a variable stays safe until one of
// its assignments is shown not to be, so loops that append to a slice resolve.

// assignment is one value given to a local variable.
type assignment struct {
	rhs ast.Expr
	// index is the position of the variable among the left-hand sides when one call yields
	// several values (x, err := f()); -1 otherwise.
	index int
	// element: the value goes into an element of the variable (x[i] = v), not the variable.
	element bool
	// op is the assignment's token (:=, =, +=, ...).
	op token.Token
	// rangeOver: the variable is a key or value of a range over rhs.
	rangeOver bool
}

// flow is what one function assigns to its local variables.
type flow struct {
	assigns map[string][]assignment
	// external names are set from outside the function's code: parameters and results.
	external map[string]bool
}

func collectFlow(fd *ast.FuncDecl) *flow {
	f := &flow{assigns: map[string][]assignment{}, external: map[string]bool{}}
	f.setOutside(fd.Type.Params, fd.Type.Results, fd.Recv)
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			f.setOutside(n.Type.Params, n.Type.Results)
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				target, element := lhs, false
				if ix, ok := lhs.(*ast.IndexExpr); ok {
					target, element = ix.X, true
				}
				id, ok := target.(*ast.Ident)
				if !ok || id.Name == "_" {
					continue
				}
				a := assignment{op: n.Tok, element: element, index: -1}
				switch {
				case len(n.Rhs) == len(n.Lhs):
					a.rhs = n.Rhs[i]
				case len(n.Rhs) == 1:
					a.rhs, a.index = n.Rhs[0], i
				}
				f.assigns[id.Name] = append(f.assigns[id.Name], a)
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				a := assignment{op: token.DEFINE, index: -1}
				switch {
				case len(n.Values) == len(n.Names):
					a.rhs = n.Values[i]
				case len(n.Values) == 1:
					a.rhs, a.index = n.Values[0], i
				default:
					a.rhs = &ast.Ident{Name: "nil"} // the zero value
				}
				f.assigns[name.Name] = append(f.assigns[name.Name], a)
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
					f.assigns[id.Name] = append(f.assigns[id.Name], assignment{rhs: n.X, index: -1, rangeOver: true, op: n.Tok})
				}
			}
		}
		return true
	})
	return f
}

// setOutside marks the names the field lists declare (parameters, results, receiver) as external.
func (f *flow) setOutside(lists ...*ast.FieldList) {
	for _, fl := range lists {
		if fl == nil {
			continue
		}
		for _, fld := range fl.List {
			for _, n := range fld.Names {
				f.external[n.Name] = true
			}
		}
	}
}

// fixpoint returns the local variables every assignment of which satisfies ok, given the set
// itself: it starts from every assigned local and removes those shown unsafe until none changes.
func (f *flow) fixpoint(ok func(a assignment, safe map[string]bool) bool) map[string]bool {
	safe := map[string]bool{}
	for name := range f.assigns {
		if !f.external[name] {
			safe[name] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for name := range safe {
			for _, a := range f.assigns[name] {
				if a.rhs == nil || !ok(a, safe) {
					delete(safe, name)
					changed = true
					break
				}
			}
		}
	}
	return safe
}

// fmtVerb finds the verbs of a format string.
var fmtVerb = regexp.MustCompile(`%[-+# 0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?([a-zA-Z%])`)

// placeholderText computes the local variables that hold only constant text: constants, digits
// and the placeholders built from them. SQL made of such text and passed its values as arguments
// carries no input.
func (g *goCheck) placeholderText(f *flow) map[string]bool {
	return f.fixpoint(func(a assignment, safe map[string]bool) bool {
		if a.index >= 0 || a.rangeOver {
			// One of several results of a call, or a range variable: only a range over constant
			// text gives constant text (keys of a slice are digits either way, but not of a map).
			return a.rangeOver && g.constText(a.rhs, safe)
		}
		return g.constText(a.rhs, safe)
	})
}

// constText reports whether e evaluates to text that no input reaches, given the safe locals.
func (g *goCheck) constText(e ast.Expr, safe map[string]bool) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return g.consts[e.Name] || safe[e.Name] || e.Name == "nil" || e.Name == "true" || e.Name == "false"
	case *ast.ParenExpr:
		return g.constText(e.X, safe)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return g.constText(e.X, safe) && g.constText(e.Y, safe)
		}
		return false
	case *ast.IndexExpr:
		return g.constText(e.X, safe)
	case *ast.SliceExpr:
		return g.constText(e.X, safe)
	case *ast.CompositeLit:
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			if !g.constText(el, safe) {
				return false
			}
		}
		return true
	case *ast.CallExpr:
		return g.constCall(e, safe)
	}
	return false
}

// constCall reports whether call e gives text that no input reaches: make, len and cap, an
// append of constant text, digits from strconv, and strings and fmt.Sprintf calls on constant
// text (a %d argument prints digits).
func (g *goCheck) constCall(e *ast.CallExpr, safe map[string]bool) bool {
	if id, ok := e.Fun.(*ast.Ident); ok {
		switch id.Name {
		case "make", "len", "cap":
			return true // zero values and numbers
		case "append":
			for _, a := range e.Args {
				if !g.constText(a, safe) {
					return false
				}
			}
			return true
		}
		return false
	}
	switch {
	case g.pkgCall(e, "strconv", "Itoa", "FormatInt", "FormatUint", "FormatFloat", "FormatBool"):
		return true // digits only
	case g.pkgCall(e, "strings", "Repeat"):
		return len(e.Args) == 2 && g.constText(e.Args[0], safe)
	case g.pkgCall(e, "strings", "Join", "TrimSuffix", "TrimPrefix", "TrimRight", "TrimLeft", "Trim", "TrimSpace", "ToUpper", "ToLower"):
		for _, a := range e.Args {
			if !g.constText(a, safe) {
				return false
			}
		}
		return true
	case g.pkgCall(e, "fmt", "Sprintf"):
		if len(e.Args) == 0 || !g.constText(e.Args[0], safe) {
			return false
		}
		verbs := []string{}
		if lit, ok := e.Args[0].(*ast.BasicLit); ok {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				for _, m := range fmtVerb.FindAllStringSubmatch(s, -1) {
					verbs = append(verbs, m[1])
				}
			}
		}
		args := e.Args[1:]
		for i, a := range args {
			// %d prints digits: a placeholder number ("$%d") is constant text.
			if i < len(verbs) && verbs[i] == "d" {
				continue
			}
			if !g.constText(a, safe) {
				return false
			}
		}
		return true
	}
	return false
}

// fixedPrograms computes the local variables that name a fixed program: a constant, or the path
// exec.LookPath found for a constant name (the same program, wherever it is installed).
func (g *goCheck) fixedPrograms(f *flow) map[string]bool {
	return f.fixpoint(func(a assignment, safe map[string]bool) bool {
		if a.element || a.rangeOver {
			return false
		}
		if a.index > 0 {
			// The error of LookPath is no program; another call's further results are unknown.
			call, ok := a.rhs.(*ast.CallExpr)
			return ok && g.pkgCall(call, "os/exec", "LookPath")
		}
		return g.fixedProgram(a.rhs, safe)
	})
}

func (g *goCheck) fixedProgram(e ast.Expr, safe map[string]bool) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.Ident:
		return g.consts[e.Name] || safe[e.Name]
	case *ast.ParenExpr:
		return g.fixedProgram(e.X, safe)
	case *ast.CallExpr:
		if g.pkgCall(e, "os/exec", "LookPath") && len(e.Args) == 1 {
			return g.fixedProgram(e.Args[0], safe)
		}
		if g.pkgCall(e, "path/filepath", "Join") || g.pkgCall(e, "path", "Join") {
			for _, a := range e.Args {
				if !g.fixedProgram(a, safe) {
					return false
				}
			}
			return len(e.Args) > 0
		}
	}
	return false
}
