package evidence

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// This file holds the analyzers of work repeated per loop iteration: a call that performs a
// database query or a remote call (directly, or through helpers of the loaded packages) inside a
// loop over a collection (RuleQueryInLoop). Facts carry what a function does to the packages
// importing it, so a helper in one changed package is seen from a loop in another.

// maxVia bounds how many helpers deep a query is followed.
const maxVia = 3

// ioFact says that calling the function performs I/O: a database query, an HTTP request or a
// remote procedure call, through the helpers in Via (outermost first).
type ioFact struct {
	Kind string // "a database query", "an HTTP request", "a remote call"
	Sink string // the call that leaves the process, e.g. "sql.DB.QueryRowContext"
	Via  []string
}

func (*ioFact) AFact() {}

func (f *ioFact) String() string {
	return f.Kind + " via " + strings.Join(append(append([]string(nil), f.Via...), f.Sink), " → ")
}

var queryLoopAnalyzer = &analysis.Analyzer{
	Name:      "queryinloop",
	Doc:       "report database queries and remote calls made on every iteration of a loop over a collection, directly or through helpers",
	Run:       runQueryLoop,
	FactTypes: []analysis.Fact{new(ioFact)},
}

// txWrite reports whether a method writes through a transaction (Tx.ExecContext, ...): one
// statement per element inside one transaction is the usual way to write many rows, not the N+1
// reads the rule is about.
func txWrite(recv, method string) bool {
	if recv != "Tx" {
		return false
	}
	for _, w := range txWriteMethods {
		if strings.HasPrefix(method, w) {
			return true
		}
	}
	return false
}

func isDBPackage(path string) bool {
	for _, elem := range strings.Split(path, "/") {
		if slices.Contains(dbPackageElems, elem) {
			return true
		}
	}
	for _, hint := range dbPackageHints {
		if strings.Contains(path, hint) {
			return true
		}
	}
	return false
}

// directIO says what kind of I/O a call of fn performs itself, "" for none.
func directIO(fn *types.Func) string {
	if fn == nil {
		return ""
	}
	sig, _ := fn.Type().(*types.Signature)
	switch {
	case isPkgFunc(fn, "net/http", "Get", "Post", "PostForm", "Head"),
		isMethodOf(fn, "net/http", "Client", "Do", "Get", "Post", "PostForm", "Head"),
		isMethodOf(fn, "net/http", "Transport", "RoundTrip"),
		isMethodOf(fn, "net/http", "RoundTripper", "RoundTrip"):
		return "an HTTP request"
	case isMethodOf(fn, "net/rpc", "Client", "Call"):
		return "a remote call"
	}
	if sig != nil && sig.Variadic() && sig.Params().Len() > 0 {
		last := sig.Params().At(sig.Params().Len() - 1).Type()
		if s, ok := last.(*types.Slice); ok {
			if n, ok := s.Elem().(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "google.golang.org/grpc" && n.Obj().Name() == "CallOption" {
				return "a remote call"
			}
		}
	}
	recv := recvNamed(fn)
	if recv == nil || recv.Obj().Pkg() == nil || !isDBPackage(recv.Obj().Pkg().Path()) || notDBReceivers[recv.Obj().Name()] {
		return ""
	}
	if dbMethods[fn.Name()] {
		if txWrite(recv.Obj().Name(), fn.Name()) {
			return "" // writing each element in one transaction is how rows are written in bulk
		}
		return "a database query"
	}
	// go-redis and similar clients return a command value that has already run.
	if sig != nil && sig.Results().Len() == 1 {
		if p, ok := sig.Results().At(0).Type().(*types.Pointer); ok {
			if n, ok := p.Elem().(*types.Named); ok && strings.HasSuffix(n.Obj().Name(), "Cmd") {
				return "a database query"
			}
		}
	}
	return ""
}

// funcDecls maps the package's declared functions (outside tests) to their syntax.
func funcDecls(pass *analysis.Pass) map[*types.Func]*ast.FuncDecl {
	out := map[*types.Func]*ast.FuncDecl{}
	for _, f := range nonTestFiles(pass) {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					out[fn] = fd
				}
			}
		}
	}
	return out
}

// syncCalls calls visit for each call in body that runs before body returns: calls in function
// literals and go statements are left out, as they run elsewhere.
func syncCalls(body ast.Node, visit func(*ast.CallExpr)) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.GoStmt:
			return false
		case *ast.CallExpr:
			visit(n)
		}
		return true
	})
}

// ioFacts computes which of the package's functions perform I/O, through at most maxVia helpers,
// exports them as facts and returns them with those imported.
type ioIndex struct {
	pass  *analysis.Pass
	local map[*types.Func]*ioFact
	// impls are the methods known to perform I/O, by name, for calls through interfaces.
	impls map[string][]*types.Func
}

func (x *ioIndex) fact(fn *types.Func) *ioFact {
	if fn == nil {
		return nil
	}
	if f, ok := x.local[fn]; ok {
		return f
	}
	if fn.Pkg() != nil && fn.Pkg() != x.pass.Pkg {
		f := new(ioFact)
		if x.pass.ImportObjectFact(fn.Origin(), f) {
			return f
		}
	}
	return nil
}

// callIO says what I/O a call performs, directly, through a helper or through an interface
// method one of whose implementations performs it.
func (x *ioIndex) callIO(info *types.Info, call *ast.CallExpr) (*ioFact, *types.Func) {
	fn := calleeFunc(info, call)
	if fn == nil {
		return nil, nil
	}
	if k := directIO(fn); k != "" {
		return &ioFact{Kind: k, Sink: shortFunc(fn)}, fn
	}
	if f := x.fact(fn); f != nil {
		return f, fn
	}
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		if iface, ok := sig.Recv().Type().Underlying().(*types.Interface); ok {
			for _, m := range x.impls[fn.Name()] {
				recv := m.Type().(*types.Signature).Recv().Type()
				if types.Implements(recv, iface) {
					f := x.fact(m)
					return &ioFact{Kind: f.Kind, Sink: f.Sink, Via: append([]string{shortFunc(m)}, f.Via...)}, fn
				}
			}
		}
	}
	return nil, nil
}

func buildIOIndex(pass *analysis.Pass) *ioIndex {
	x := &ioIndex{pass: pass, local: map[*types.Func]*ioFact{}, impls: map[string][]*types.Func{}}
	for _, of := range pass.AllObjectFacts() {
		if fn, ok := of.Object.(*types.Func); ok && recvNamed(fn) != nil {
			if _, ok := of.Fact.(*ioFact); ok {
				x.impls[fn.Name()] = append(x.impls[fn.Name()], fn)
			}
		}
	}
	decls := funcDecls(pass)
	order := make([]*types.Func, 0, len(decls))
	for fn := range decls {
		order = append(order, fn)
	}
	slices.SortFunc(order, func(a, b *types.Func) int { return int(a.Pos() - b.Pos()) })
	// Rounds of the fixpoint: a helper's fact needs its callee's, at most maxVia deep.
	for round := 0; round <= maxVia; round++ {
		changed := false
		for _, fn := range order {
			if x.local[fn] != nil {
				continue
			}
			syncCalls(decls[fn].Body, func(call *ast.CallExpr) {
				if x.local[fn] != nil {
					return
				}
				f, callee := x.callIO(pass.TypesInfo, call)
				if f == nil || callee == fn {
					return
				}
				nf := &ioFact{Kind: f.Kind, Sink: f.Sink, Via: f.Via}
				if directIO(callee) == "" {
					nf.Via = append([]string{shortFunc(callee)}, f.Via...)
				}
				if len(nf.Via) > maxVia {
					return
				}
				x.local[fn] = nf
				if recvNamed(fn) != nil {
					x.impls[fn.Name()] = append(x.impls[fn.Name()], fn)
				}
				changed = true
			})
		}
		if !changed {
			break
		}
	}
	for fn, f := range x.local {
		pass.ExportObjectFact(fn, f)
	}
	return x
}

// collLoop is a loop over a collection whose size is not a constant.
type collLoop struct {
	stmt  ast.Stmt
	coll  string // the collection as written ("users", "len(ids)")
	slice bool   // the collection is a slice
}

// loopOver says whether a loop runs once per element of a collection of variable size: a range
// over a slice or map that is not a literal, over a non-constant integer, or a counting for loop
// bounded by len(slice) or a non-constant.
func loopOver(info *types.Info, s ast.Stmt) (collLoop, bool) {
	switch s := s.(type) {
	case *ast.RangeStmt:
		if _, lit := ast.Unparen(s.X).(*ast.CompositeLit); lit {
			return collLoop{}, false
		}
		t := info.TypeOf(s.X)
		if t == nil {
			return collLoop{}, false
		}
		switch u := t.Underlying().(type) {
		case *types.Slice:
			return collLoop{stmt: s, coll: types.ExprString(s.X), slice: true}, true
		case *types.Map:
			return collLoop{stmt: s, coll: types.ExprString(s.X)}, true
		case *types.Basic:
			if u.Info()&types.IsInteger != 0 {
				if _, c := constInt(info, s.X); !c {
					return collLoop{stmt: s, coll: types.ExprString(s.X)}, true
				}
			}
		}
	case *ast.ForStmt:
		cond, ok := s.Cond.(*ast.BinaryExpr)
		if !ok || s.Init == nil || s.Post == nil {
			return collLoop{}, false
		}
		bound := cond.Y
		switch cond.Op {
		case token.LSS, token.LEQ:
		case token.GTR, token.GEQ:
			bound = cond.X
		default:
			return collLoop{}, false
		}
		if _, c := constInt(info, bound); c {
			return collLoop{}, false
		}
		if call, ok := ast.Unparen(bound).(*ast.CallExpr); ok && len(call.Args) == 1 {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "len" {
				if _, lit := ast.Unparen(call.Args[0]).(*ast.CompositeLit); lit {
					return collLoop{}, false
				}
				_, isSlice := typeUnder(info, call.Args[0]).(*types.Slice)
				return collLoop{stmt: s, coll: types.ExprString(call.Args[0]), slice: isSlice}, true
			}
		}
		return collLoop{stmt: s, coll: types.ExprString(bound)}, true
	}
	return collLoop{}, false
}

func typeUnder(info *types.Info, e ast.Expr) types.Type {
	t := info.TypeOf(e)
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// loopCalls calls visit for each call made on every iteration of a loop over a collection, with
// the innermost such loop: calls in the loop's body, not in its header, in function literals or
// in go and defer statements.
func loopCalls(pass *analysis.Pass, visit func(fd *ast.FuncDecl, call *ast.CallExpr, loop collLoop)) {
	for _, f := range nonTestFiles(pass) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			var loops []collLoop
			var walk func(n ast.Node)
			walk = func(n ast.Node) {
				ast.Inspect(n, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.FuncLit, *ast.GoStmt, *ast.DeferStmt:
						return false
					case *ast.RangeStmt, *ast.ForStmt:
						l, ok := loopOver(pass.TypesInfo, n.(ast.Stmt))
						body := loopBody(n.(ast.Stmt))
						if !ok {
							walk(body)
							return false
						}
						loops = append(loops, l)
						walk(body)
						loops = loops[:len(loops)-1]
						return false
					case *ast.CallExpr:
						if len(loops) > 0 {
							visit(fd, n, loops[len(loops)-1])
						}
					}
					return true
				})
			}
			walk(fd.Body)
		}
	}
}

func loopBody(s ast.Stmt) *ast.BlockStmt {
	switch s := s.(type) {
	case *ast.RangeStmt:
		return s.Body
	case *ast.ForStmt:
		return s.Body
	}
	return nil
}

func runQueryLoop(pass *analysis.Pass) (any, error) {
	x := buildIOIndex(pass)
	loopCalls(pass, func(_ *ast.FuncDecl, call *ast.CallExpr, loop collLoop) {
		f, callee := x.callIO(pass.TypesInfo, call)
		if f == nil {
			return
		}
		how := f.Sink
		if directIO(callee) == "" {
			how = strings.Join(append(append([]string{shortFunc(callee)}, f.Via...), f.Sink), " → ")
		}
		// Names are quoted so that the finding's key (compare.go) survives a renamed variable or
		// helper: the same query in the same loop is not new.
		pass.Reportf(call.Pos(), "`%s` runs %s (`%s`) on every iteration over `%s`: one round trip per element",
			types.ExprString(call.Fun), f.Kind, how, loop.coll)
	})
	return nil, nil
}
