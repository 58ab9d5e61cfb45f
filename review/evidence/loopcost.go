package evidence

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// This file holds the analyzers of work repeated per loop iteration: a call that performs a
// database query or a remote call (directly, or through helpers of the loaded packages) inside a
// loop over a collection (RuleQueryInLoop), and a linear search of one variable-sized slice inside
// a loop over another (RuleLinearSearchInLoop). Facts carry what a function does to the packages
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

// linearFact says that the function searches a slice linearly: its parameter Param, or the
// receiver's field Field when Param is -1.
type linearFact struct {
	Param int
	Field string
}

func (*linearFact) AFact() {}

func (f *linearFact) String() string {
	return fmt.Sprintf("linear search of param %d / field %q", f.Param, f.Field)
}

var queryLoopAnalyzer = &analysis.Analyzer{
	Name:      "queryinloop",
	Doc:       "report database queries and remote calls made on every iteration of a loop over a collection, directly or through helpers",
	Run:       runQueryLoop,
	FactTypes: []analysis.Fact{new(ioFact)},
}

var linearSearchAnalyzer = &analysis.Analyzer{
	Name:      "linearsearchinloop",
	Doc:       "report linear searches of a variable-sized slice inside a loop over another slice",
	Run:       runLinearSearch,
	FactTypes: []analysis.Fact{new(linearFact)},
}

// dbMethods are the methods that run a statement on the database, across database/sql, sqlx,
// pgx, gorm, ent, bun and the MongoDB driver; they count only on types of a database package.
var dbMethods = map[string]bool{
	"Query": true, "QueryContext": true, "QueryRow": true, "QueryRowContext": true, "Exec": true, "ExecContext": true,
	"Get": true, "GetContext": true, "Select": true, "SelectContext": true, "Queryx": true, "QueryxContext": true,
	"QueryRowx": true, "QueryRowxContext": true, "NamedExec": true, "NamedExecContext": true, "NamedQuery": true, "NamedQueryContext": true,
	"Find": true, "First": true, "Take": true, "Last": true, "FirstOrCreate": true, "FirstOrInit": true, "Create": true, "Save": true,
	"Update": true, "Updates": true, "UpdateColumn": true, "UpdateColumns": true, "Delete": true, "Count": true, "Pluck": true, "Scan": true,
	"All": true, "AllX": true, "Only": true, "OnlyX": true, "FirstX": true, "IDs": true, "Exist": true, "ExistX": true, "ExecX": true, "SaveX": true,
	"FindOne": true, "InsertOne": true, "InsertMany": true, "UpdateOne": true, "UpdateMany": true, "DeleteOne": true, "DeleteMany": true,
	"Aggregate": true, "CountDocuments": true, "SendBatch": true, "CopyFrom": true,
}

// notDBReceivers are types of database packages whose methods of those names do not reach the
// database (Rows.Scan reads a fetched row; a prepared Stmt in a loop is the bulk-insert idiom).
var notDBReceivers = map[string]bool{"Rows": true, "Row": true, "Stmt": true, "Result": true, "ColumnType": true}

// txWrite reports whether a method writes through a transaction (Tx.ExecContext, ...): one
// statement per element inside one transaction is the usual way to write many rows, not the N+1
// reads the rule is about.
func txWrite(recv, method string) bool {
	if recv != "Tx" {
		return false
	}
	for _, w := range []string{"Exec", "NamedExec", "Create", "Save", "Update", "Delete", "Insert", "CopyFrom", "SendBatch"} {
		if strings.HasPrefix(method, w) {
			return true
		}
	}
	return false
}

func isDBPackage(path string) bool {
	for _, elem := range strings.Split(path, "/") {
		if elem == "ent" || elem == "bun" {
			return true
		}
	}
	for _, hint := range []string{"sql", "gorm", "pgx", "mongo", "redis"} {
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

// linearFacts finds the package's functions that search a slice linearly: a range over a slice
// parameter (or a slice field of the receiver) whose body returns from an if that compares the
// element.
func linearFacts(pass *analysis.Pass) map[*types.Func]*linearFact {
	out := map[*types.Func]*linearFact{}
	for fn, fd := range funcDecls(pass) {
		sig := fn.Type().(*types.Signature)
		if sig.Results().Len() == 0 {
			continue
		}
		var recv types.Object
		if fd.Recv != nil && len(fd.Recv.List) == 1 && len(fd.Recv.List[0].Names) == 1 {
			recv = pass.TypesInfo.Defs[fd.Recv.List[0].Names[0]]
		}
		for _, st := range fd.Body.List {
			rs, ok := st.(*ast.RangeStmt)
			if !ok {
				continue
			}
			if _, ok := typeUnder(pass.TypesInfo, rs.X).(*types.Slice); !ok {
				continue
			}
			fact := &linearFact{Param: -1}
			switch x := ast.Unparen(rs.X).(type) {
			case *ast.Ident:
				obj := pass.TypesInfo.Uses[x]
				for i := 0; i < sig.Params().Len(); i++ {
					if sig.Params().At(i) == obj {
						fact.Param = i
					}
				}
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && recv != nil && pass.TypesInfo.Uses[id] == recv {
					fact.Field = x.Sel.Name
				}
			}
			if fact.Param < 0 && fact.Field == "" {
				continue
			}
			if comparesAndReturns(pass.TypesInfo, rs) {
				out[fn] = fact
				pass.ExportObjectFact(fn, fact)
				break
			}
		}
	}
	return out
}

// comparesAndReturns reports whether a range loop's body has an if that compares the element (or
// s[i]) for equality and returns.
func comparesAndReturns(info *types.Info, rs *ast.RangeStmt) bool {
	elems := map[types.Object]bool{}
	for _, e := range []ast.Expr{rs.Key, rs.Value} {
		if id, ok := e.(*ast.Ident); ok && info.Defs[id] != nil {
			elems[info.Defs[id]] = true
		}
	}
	found := false
	ast.Inspect(rs.Body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || found {
			return !found
		}
		returns := slices.ContainsFunc(ifs.Body.List, func(s ast.Stmt) bool { _, ok := s.(*ast.ReturnStmt); return ok })
		if returns && comparesElem(info, ifs.Cond, elems) {
			found = true
		}
		return true
	})
	return found
}

func comparesElem(info *types.Info, cond ast.Expr, elems map[types.Object]bool) bool {
	mentions := func(e ast.Expr) bool {
		hit := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && elems[info.Uses[id]] {
				hit = true
			}
			return !hit
		})
		return hit
	}
	hit := false
	ast.Inspect(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL && (mentions(n.X) || mentions(n.Y)) {
				hit = true
			}
		case *ast.CallExpr:
			fn := calleeFunc(info, n)
			if fn != nil && (isPkgFunc(fn, "strings", "EqualFold") || isPkgFunc(fn, "bytes", "Equal", "EqualFold") || fn.Name() == "Equal") && mentions(n) {
				hit = true
			}
		}
		return !hit
	})
	return hit
}

func runLinearSearch(pass *analysis.Pass) (any, error) {
	local := linearFacts(pass)
	factOf := func(fn *types.Func) *linearFact {
		if f, ok := local[fn]; ok {
			return f
		}
		if fn.Pkg() != nil && fn.Pkg() != pass.Pkg {
			f := new(linearFact)
			if pass.ImportObjectFact(fn.Origin(), f) {
				return f
			}
		}
		return nil
	}
	loopCalls(pass, func(fd *ast.FuncDecl, call *ast.CallExpr, loop collLoop) {
		if !loop.slice {
			return
		}
		fn := calleeFunc(pass.TypesInfo, call)
		if fn == nil {
			return
		}
		var searched ast.Expr
		what := shortFunc(fn)
		switch {
		case isPkgFunc(fn.Origin(), "slices", "Contains", "Index", "ContainsFunc", "IndexFunc"),
			isPkgFunc(fn.Origin(), "golang.org/x/exp/slices", "Contains", "Index", "ContainsFunc", "IndexFunc"):
			if len(call.Args) > 0 {
				searched = call.Args[0]
			}
		case isPkgFunc(fn, "strings", "Contains") && len(call.Args) == 2:
			if inner, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr); ok && isPkgFunc(calleeFunc(pass.TypesInfo, inner), "strings", "Join") && len(inner.Args) == 2 {
				searched = inner.Args[0]
			}
		default:
			f := factOf(fn.Origin())
			if f == nil {
				return
			}
			if f.Param >= 0 && f.Param < len(call.Args) {
				searched = call.Args[f.Param]
			} else if f.Field != "" {
				if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
					pass.Reportf(call.Pos(), "`%s` scans `%s.%s` on every iteration over `%s`: O(n·m) in their lengths",
						types.ExprString(call.Fun), types.ExprString(sel.X), f.Field, loop.coll)
				}
				return
			}
		}
		if searched == nil || !variableSlice(pass.TypesInfo, fd, searched) || accumulated(fd, searched) {
			return
		}
		// Quoted, so that a helper replaced by slices.Contains over the same slice is not new.
		pass.Reportf(call.Pos(), "`%s` scans `%s` on every iteration over `%s`: O(n·m) in their lengths", what, types.ExprString(searched), loop.coll)
	})
	return nil, nil
}

// accumulated reports whether the function builds the searched slice itself by appending to it
// (a list of what it has seen so far): such lists are as long as what the function adds, and the
// idiom is common for short ones, so the analysis stays conservative and leaves them alone.
func accumulated(fd *ast.FuncDecl, searched ast.Expr) bool {
	root := types.ExprString(stripIndex(searched))
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || found {
			return !found
		}
		for i, l := range as.Lhs {
			if i >= len(as.Rhs) || types.ExprString(stripIndex(l)) != root {
				continue
			}
			if call, ok := ast.Unparen(as.Rhs[i]).(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "append" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

func stripIndex(e ast.Expr) ast.Expr {
	for {
		ix, ok := ast.Unparen(e).(*ast.IndexExpr)
		if !ok {
			return ast.Unparen(e)
		}
		e = ix.X
	}
}

// variableSlice reports whether e is a slice whose length is not fixed in the source: not a
// literal, not a package-level table, not a local assigned only literals.
func variableSlice(info *types.Info, fd *ast.FuncDecl, e ast.Expr) bool {
	e = ast.Unparen(e)
	if _, ok := typeUnder(info, e).(*types.Slice); !ok {
		return false
	}
	switch e := e.(type) {
	case *ast.CompositeLit:
		return false
	case *ast.Ident:
		v, ok := info.Uses[e].(*types.Var)
		if !ok {
			return false
		}
		if v.Parent() == v.Pkg().Scope() {
			return false // a package-level table
		}
		onlyLiterals, assigned := true, false
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					id, ok := l.(*ast.Ident)
					if !ok || (info.Defs[id] != v && info.Uses[id] != v) {
						continue
					}
					assigned = true
					if len(n.Rhs) != len(n.Lhs) {
						onlyLiterals = false
					} else if _, lit := ast.Unparen(n.Rhs[i]).(*ast.CompositeLit); !lit {
						onlyLiterals = false
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if info.Defs[id] != v {
						continue
					}
					assigned = true
					if i >= len(n.Values) {
						onlyLiterals = false
					} else if _, lit := ast.Unparen(n.Values[i]).(*ast.CompositeLit); !lit {
						onlyLiterals = false
					}
				}
			}
			return true
		})
		return !assigned || !onlyLiterals // a parameter, or assigned something other than literals
	}
	return true
}
