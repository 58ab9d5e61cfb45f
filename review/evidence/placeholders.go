package evidence

import (
	"go/ast"
	"go/token"
	"go/types"
)

// constFlow decides whether a string is built only from constants within a function: constants,
// numbers (whose decimal text cannot carry SQL), and strings.Repeat, strings.Join, trims and
// fmt.Sprintf of such values, through local variables and slices every assignment and append of
// which is itself built from constants. It is what tells `IN (?,?,?)` made by
// strings.Repeat("?,", len(ids)) from SQL made from a request: the length of the request's data
// shapes the text, but none of its content reaches it.
type constFlow struct {
	info *types.Info
	body ast.Node
	// visiting breaks cycles through variables (x = x + "?" in a loop); a variable on the path is
	// taken to be constant-built, which its other assignments must then confirm.
	visiting map[types.Object]bool
}

func newConstFlow(info *types.Info, body ast.Node) *constFlow {
	return &constFlow{info: info, body: body, visiting: map[types.Object]bool{}}
}

func isNumeric(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsInteger|types.IsFloat) != 0
}

// str reports whether the string (or number) e is built from constants only.
func (c *constFlow) str(e ast.Expr) bool {
	e = ast.Unparen(e)
	tv, ok := c.info.Types[e]
	if !ok {
		return false
	}
	if tv.Value != nil || (tv.Type != nil && isNumeric(tv.Type)) {
		return true
	}
	switch e := e.(type) {
	case *ast.BinaryExpr:
		return e.Op == token.ADD && c.str(e.X) && c.str(e.Y)
	case *ast.CallExpr:
		fn := calleeFunc(c.info, e)
		switch {
		case fn == nil:
			return false
		case isPkgFunc(fn, "strings", "Repeat", "TrimSuffix", "TrimPrefix", "TrimRight", "TrimLeft", "Trim", "TrimSpace", "ToUpper", "ToLower"):
			return len(e.Args) > 0 && c.str(e.Args[0]) && (len(e.Args) < 2 || c.str(e.Args[1]) || fn.Name() == "Repeat")
		case isPkgFunc(fn, "strings", "Join"):
			return len(e.Args) == 2 && c.slice(e.Args[0]) && c.str(e.Args[1])
		case isPkgFunc(fn, "fmt", "Sprintf", "Sprint"):
			for _, a := range e.Args {
				if !c.str(a) {
					return false
				}
			}
			return true
		case isPkgFunc(fn, "strconv", "Itoa", "FormatInt", "FormatUint", "FormatFloat"):
			return true
		case isMethodOf(fn, "strings", "Builder", "String"):
			if sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok {
				return c.builder(sel.X)
			}
		}
		return false
	case *ast.Ident:
		return c.variable(e, c.str)
	case *ast.IndexExpr:
		return c.slice(e.X)
	}
	return false
}

// slice reports whether every element of the slice e is built from constants.
func (c *constFlow) slice(e ast.Expr) bool {
	e = ast.Unparen(e)
	switch e := e.(type) {
	case *ast.CompositeLit:
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			if !c.str(el) {
				return false
			}
		}
		return true
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok {
			switch b, _ := c.info.Uses[id].(*types.Builtin); {
			case b != nil && b.Name() == "make":
				return true // zero values: empty strings
			case b != nil && b.Name() == "append":
				if len(e.Args) == 0 || !c.slice(e.Args[0]) {
					return false
				}
				for _, a := range e.Args[1:] {
					if e.Ellipsis.IsValid() {
						if !c.slice(a) {
							return false
						}
					} else if !c.str(a) {
						return false
					}
				}
				return true
			}
		}
		return false
	case *ast.Ident:
		return c.variable(e, c.slice)
	}
	return false
}

// variable reports whether a local variable only ever holds values accept accepts: each assignment,
// each element assignment (s[i] = v) and each += agrees, and the variable is passed to nothing
// that could fill it.
func (c *constFlow) variable(id *ast.Ident, accept func(ast.Expr) bool) bool {
	v, isVar := c.info.Uses[id].(*types.Var)
	if !isVar || v.Parent() == nil || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() || v.IsField() {
		return false // a package-level variable can change anywhere; a parameter comes from outside
	}
	if c.visiting[v] {
		return true
	}
	c.visiting[v] = true
	defer delete(c.visiting, v)
	if c.body == nil || !(c.body.Pos() <= v.Pos() && v.Pos() < c.body.End()) {
		return false // declared outside the function (a parameter, a captured variable)
	}
	w := &varWrites{c: c, v: v, accept: accept, good: true}
	ast.Inspect(c.body, func(n ast.Node) bool {
		if n == nil {
			return true
		}
		if !w.good {
			return false
		}
		w.node(n)
		return w.good
	})
	return w.good && w.assigned
}

// varWrites follows the writes of local variable v through a function body: good until a
// write accept (or, for an element or +=, str) does not accept, or something that could
// change v; assigned once v is given a value.
type varWrites struct {
	c              *constFlow
	v              *types.Var
	accept         func(ast.Expr) bool
	good, assigned bool
}

// is reports whether e is v.
func (w *varWrites) is(e ast.Expr) bool {
	x, ok := ast.Unparen(e).(*ast.Ident)
	return ok && w.c.info.ObjectOf(x) == w.v
}

// node checks one node of the body: an assignment or declaration of v, a range over it, its
// address taken, or v passed to a call that could fill it.
func (w *varWrites) node(n ast.Node) {
	switch n := n.(type) {
	case *ast.AssignStmt:
		w.assign(n)
	case *ast.ValueSpec:
		for i, name := range n.Names {
			if w.c.info.Defs[name] != w.v {
				continue
			}
			w.assigned = true
			if len(n.Values) == 0 {
				continue // the zero value
			}
			if i >= len(n.Values) || !w.accept(n.Values[i]) {
				w.good = false
			}
		}
	case *ast.RangeStmt:
		if (n.Key != nil && w.is(n.Key)) || (n.Value != nil && w.is(n.Value)) {
			w.good = false
		}
	case *ast.UnaryExpr:
		if n.Op == token.AND && w.is(n.X) {
			w.good = false // its address escapes
		}
	case *ast.CallExpr:
		for _, a := range n.Args {
			if w.is(a) && !w.c.harmlessArg(n) {
				w.good = false
			}
		}
	}
}

// assign checks an assignment to v or to an element of it (v[i] = x): an element or += must
// be given text, = and := a value accept accepts; values from one call's results, or another
// operator, are not known and fail.
func (w *varWrites) assign(n *ast.AssignStmt) {
	for i, l := range n.Lhs {
		target := l
		elem := false
		if ix, ok := l.(*ast.IndexExpr); ok {
			target, elem = ix.X, true
		}
		if !w.is(target) {
			continue
		}
		w.assigned = true
		if len(n.Rhs) != len(n.Lhs) {
			w.good = false
			return
		}
		switch {
		case elem:
			w.good = w.good && w.c.str(n.Rhs[i])
		case n.Tok == token.ADD_ASSIGN:
			w.good = w.good && w.c.str(n.Rhs[i])
		case n.Tok == token.DEFINE || n.Tok == token.ASSIGN:
			w.good = w.good && w.accept(n.Rhs[i])
		default:
			w.good = false
		}
	}
}

// harmlessArg reports whether passing a variable to call cannot change it.
func (c *constFlow) harmlessArg(call *ast.CallExpr) bool {
	if id, ok := call.Fun.(*ast.Ident); ok {
		if b, ok := c.info.Uses[id].(*types.Builtin); ok {
			return b.Name() == "len" || b.Name() == "cap" || b.Name() == "append"
		}
	}
	if tv, ok := c.info.Types[call.Fun]; ok && tv.IsType() {
		return true // a conversion
	}
	fn := calleeFunc(c.info, call)
	if fn == nil {
		return false
	}
	if fn.Pkg() != nil && (fn.Pkg().Path() == "strings" || fn.Pkg().Path() == "fmt" || fn.Pkg().Path() == "strconv") {
		return true // they do not modify their arguments
	}
	// A query or statement call receives the SQL text; it does not change the variable.
	return sqlQueryArg(fn) >= 0
}

// builder reports whether every write to a strings.Builder variable is built from constants.
func (c *constFlow) builder(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := c.info.Uses[id].(*types.Var)
	if !ok || c.body == nil || !(c.body.Pos() <= v.Pos() && v.Pos() < c.body.End()) {
		return false
	}
	good := true
	ast.Inspect(c.body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !good {
			return good
		}
		for _, a := range call.Args {
			if x, ok := ast.Unparen(a).(*ast.Ident); ok && c.info.Uses[x] == v {
				good = false // passed on (fmt.Fprintf(&b, ...) is an address, caught below)
			}
			if u, ok := ast.Unparen(a).(*ast.UnaryExpr); ok && u.Op == token.AND {
				if x, ok := u.X.(*ast.Ident); ok && c.info.Uses[x] == v {
					fn := calleeFunc(c.info, call)
					if !isPkgFunc(fn, "fmt", "Fprintf", "Fprint") {
						good = false
						return false
					}
					for _, b := range call.Args[1:] {
						good = good && c.str(b)
					}
				}
			}
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := ast.Unparen(sel.X).(*ast.Ident); !ok || c.info.Uses[x] != v {
			return true
		}
		switch sel.Sel.Name {
		case "WriteString", "WriteByte", "WriteRune", "Write":
			for _, a := range call.Args {
				good = good && (c.str(a) || c.slice(a))
			}
		case "String", "Len", "Grow", "Reset", "Cap":
		default:
			good = false
		}
		return good
	})
	return good
}

// sqlQueryArg returns the index of the SQL text among fn's parameters when fn runs or builds a
// query with bound arguments, -1 otherwise: a string parameter followed, last, by variadic
// arguments (Query(query string, args ...any), Where(query any, args ...any) of gorm, ...), on a
// type or function of a database package.
func sqlQueryArg(fn *types.Func) int {
	if fn == nil {
		return -1
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || !sig.Variadic() || sig.Params().Len() < 2 {
		return -1
	}
	pkg := funcPkgPath(fn)
	if n := recvNamed(fn); n != nil && n.Obj().Pkg() != nil {
		pkg = n.Obj().Pkg().Path()
	}
	if !isDBPackage(pkg) {
		return -1
	}
	last := sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice)
	if _, ok := last.Elem().Underlying().(*types.Interface); !ok {
		return -1
	}
	for i := sig.Params().Len() - 2; i >= 0; i-- {
		t := sig.Params().At(i).Type()
		if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.String {
			return i
		}
		if _, ok := t.Underlying().(*types.Interface); ok && i == sig.Params().Len()-2 && (fn.Name() == "Where" || fn.Name() == "Having" || fn.Name() == "Raw" || fn.Name() == "Or" || fn.Name() == "Not") {
			return i // gorm's Where(query interface{}, args ...interface{})
		}
	}
	return -1
}

// sqlTextOnLine returns the expressions on a line of body that build or pass SQL text: the
// query argument of calls with bound arguments, string concatenations and fmt.Sprintf calls
// (outermost ones).
func sqlTextOnLine(fset *token.FileSet, info *types.Info, body ast.Node, line int) []ast.Expr {
	var out []ast.Expr
	var covered []ast.Node
	inside := func(n ast.Node) bool {
		for _, c := range covered {
			if c.Pos() <= n.Pos() && n.End() <= c.End() {
				return true
			}
		}
		return false
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		start, end := fset.Position(n.Pos()).Line, fset.Position(n.End()).Line
		if start > line || end < line {
			return false
		}
		if start != line || inside(n) {
			return true
		}
		switch e := n.(type) {
		case *ast.CallExpr:
			fn := calleeFunc(info, e)
			if i := sqlQueryArg(fn); i >= 0 && i < len(e.Args) {
				out = append(out, e.Args[i])
				covered = append(covered, e.Args[i])
			} else if isPkgFunc(fn, "fmt", "Sprintf") {
				out = append(out, e)
				covered = append(covered, e)
			}
		case *ast.BinaryExpr:
			if b, ok := typeUnder(info, e).(*types.Basic); ok && e.Op == token.ADD && b.Info()&types.IsString != 0 {
				out = append(out, e)
				covered = append(covered, e)
			}
		}
		return true
	})
	return out
}

// generatedPlaceholders reports whether every piece of SQL text on the line is built from
// constants: a gosec SQL finding there (string formatting, concatenation, or taint reaching the
// query) is about text that no input can shape beyond its length.
func generatedPlaceholders(fset *token.FileSet, info *types.Info, body ast.Node, line int) bool {
	exprs := sqlTextOnLine(fset, info, body, line)
	if len(exprs) == 0 {
		return false
	}
	c := newConstFlow(info, body)
	for _, e := range exprs {
		if !c.str(e) {
			return false
		}
	}
	return true
}
