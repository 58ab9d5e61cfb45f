package evidence

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/cfg"
)

// RuleUnclosedResource is the rule of unclosedAnalyzer.
const RuleUnclosedResource = "unclosed-resource"

// closerMakers are the name prefixes of the standard library's functions and methods that open
// a resource the caller must close (os.Open, os.NewFile, gzip.NewReader, net.Dial, (*net.Dialer).
// DialContext, net.Listen, (*zip.File).Open): a call of that name whose result implements
// io.Closer makes a resource. HTTP response bodies are bodyclose's, SQL rows sqlclosecheck's.
var closerMakers = []string{"Open", "Create", "New", "Dial", "Listen"}

// memoryClosers are the packages whose resources hold only memory (a compressor's window and
// buffers): the garbage collector takes one left open on an error path, so only one the function
// never closes at all is reported (it is never flushed, or its buffers never return to a pool).
var memoryClosers = map[string]bool{"compress/gzip": true, "compress/flate": true, "compress/zlib": true, "compress/lzw": true}

// closerOwners are the standard library's calls that take over a closer they are given (closing
// it themselves, or through the wrapper they return). Other standard library calls only use the
// value (io.Copy, net.FileListener, which duplicates the descriptor); a call into any other
// package may keep it, so the value counts as handed on.
var closerOwners = map[string]bool{
	"crypto/tls.Client": true, "crypto/tls.Server": true, "crypto/tls.NewListener": true,
	"net/textproto.NewConn": true, "net/smtp.NewClient": true,
	"net/http/httputil.NewClientConn": true, "net/http/httputil.NewServerConn": true,
	"net/http.Serve": true, "net/http.ServeTLS": true, "(*net/http.Server).Serve": true, "(*net/http.Server).ServeTLS": true,
	"net/rpc.NewClient": true, "net/rpc.ServeConn": true, "(*net/rpc.Server).ServeConn": true,
	"net/rpc/jsonrpc.NewClient": true, "net/rpc/jsonrpc.ServeConn": true,
	"runtime.SetFinalizer": true, "runtime.AddCleanup": true,
}

// unclosedAnalyzer finds a resource a function opens (see closerMakers) and leaves open on a
// path to a return: it neither closes it on that path (x.Close(), or a defer that does), nor
// returns it, stores it (in a field, a map, a slice, a struct, another variable), sends it,
// gives it to a goroutine or closure, or passes it to a call that may keep it. The path where
// the maker's error (or the value) is checked to be non-nil/nil is the failure path, with
// nothing to close. Only what type-checks is judged: a call of unknown type makes nothing.
var unclosedAnalyzer = &analysis.Analyzer{
	Name:     RuleUnclosedResource,
	Doc:      "report resources (files, connections, compressed readers) a function opens and leaves open on a path to a return",
	Requires: []*analysis.Analyzer{ctrlflow.Analyzer},
	Run:      runUnclosed,
}

func runUnclosed(pass *analysis.Pass) (any, error) {
	cfgs := pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs)
	for _, fb := range funcBodies(pass) {
		s := closerScope{pass: pass, fn: fb.fn, body: fb.body, name: fb.name}
		if lit, ok := fb.fn.(*ast.FuncLit); ok {
			s.graph = cfgs.FuncLit(lit)
		} else {
			s.graph = cfgs.FuncDecl(fb.decl)
		}
		if s.graph != nil {
			s.check()
		}
	}
	return nil, nil
}

// closerScope is one function (a declaration or a literal) whose resources are judged.
type closerScope struct {
	pass  *analysis.Pass
	fn    ast.Node // *ast.FuncDecl or *ast.FuncLit
	body  *ast.BlockStmt
	graph *cfg.CFG
	name  string
}

// opened is one resource the scope opens: the maker's call, the variable holding the resource
// (nil when the result is dropped) and the maker's error variable.
type opened struct {
	call *ast.CallExpr
	stmt ast.Node
	obj  *types.Var
	err  *types.Var
	what string // the maker's name ("os.NewFile")
	typ  types.Type
	// memory is set when the resource holds only memory (see memoryClosers).
	memory bool
}

func (s *closerScope) check() {
	for _, o := range s.opens() {
		releases, escaped := s.uses(o)
		if escaped || len(releases) > 0 && o.memory {
			continue
		}
		exit, ok := s.leakPath(o, releases)
		if !ok && o.obj != nil {
			continue
		}
		fset := s.pass.Fset
		line := fset.Position(o.call.Pos()).Line
		how := fmt.Sprintf("the path that returns at line %d leaves it open", fset.Position(exit).Line)
		if o.obj == nil {
			how = "its result is dropped, so nothing can close it"
		} else if len(releases) == 0 {
			how = fmt.Sprintf("%s never closes it, returns it, stores it nor hands it on", s.name)
		}
		cost := "each call leaks a file descriptor or a connection until the process runs out of them"
		if o.memory {
			cost = "its decompression state and buffers stay held until the collector finds them (a writer left open also loses its last block)"
		}
		s.pass.Reportf(o.call.Pos(), "line %d: `%s(…)` opens a %s that is not closed on every path: %s; %s",
			line, o.what, types.TypeString(o.typ, types.RelativeTo(s.pass.Pkg)), how, cost)
	}
}

// opens finds the resources the scope itself (not a nested literal) opens.
func (s *closerScope) opens() []opened {
	var out []opened
	info := s.pass.TypesInfo
	ast.Inspect(s.body, func(n ast.Node) bool {
		switch st := n.(type) {
		case *ast.FuncLit:
			return false // judged as its own scope
		case *ast.ExprStmt:
			if call, ok := ast.Unparen(st.X).(*ast.CallExpr); ok {
				if what, typ, idx := closerMaker(info, call); idx >= 0 {
					out = append(out, opened{call: call, stmt: st, what: what, typ: typ, memory: inMemory(info, call)})
				}
			}
		case *ast.AssignStmt:
			if len(st.Rhs) != 1 {
				return true
			}
			call, ok := ast.Unparen(st.Rhs[0]).(*ast.CallExpr)
			if !ok {
				return true
			}
			what, typ, idx := closerMaker(info, call)
			if idx < 0 || idx >= len(st.Lhs) {
				return true
			}
			o := opened{call: call, stmt: st, what: what, typ: typ, obj: s.localVar(st.Lhs[idx]), memory: inMemory(info, call)}
			if o.obj == nil {
				return true // a field, a global, a result, a blank: stored or not ours to judge
			}
			if id, ok := st.Lhs[len(st.Lhs)-1].(*ast.Ident); ok && idx < len(st.Lhs)-1 {
				o.err, _ = info.ObjectOf(id).(*types.Var)
			}
			out = append(out, o)
		}
		return true
	})
	return out
}

// localVar is the variable of e when e names one declared in the scope's body (not a result,
// a parameter or a captured variable).
func (s *closerScope) localVar(e ast.Expr) *types.Var {
	id, ok := e.(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil
	}
	v, ok := s.pass.TypesInfo.ObjectOf(id).(*types.Var)
	if !ok || v.Pos() < s.body.Pos() || v.Pos() >= s.body.End() {
		return nil
	}
	return v
}

// closerMaker returns the name of the standard library maker call calls and the index of its
// result that is the resource, -1 when call makes none.
func closerMaker(info *types.Info, call *ast.CallExpr) (string, types.Type, int) {
	fn := calleeFunc(info, call)
	if fn == nil || fn.Pkg() == nil || !stdlibPath(fn.Pkg().Path()) {
		return "", nil, -1
	}
	made := false
	for _, p := range closerMakers {
		made = made || strings.HasPrefix(fn.Name(), p)
	}
	if !made {
		return "", nil, -1
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return "", nil, -1
	}
	for i := 0; i < sig.Results().Len(); i++ {
		if isCloser(sig.Results().At(i).Type()) {
			return types.ExprString(call.Fun), sig.Results().At(i).Type(), i
		}
	}
	return "", nil, -1
}

// inMemory reports whether the maker call opens a resource of memory only (memoryClosers).
func inMemory(info *types.Info, call *ast.CallExpr) bool {
	fn := calleeFunc(info, call)
	return fn != nil && fn.Pkg() != nil && memoryClosers[fn.Pkg().Path()]
}

// isCloser reports whether t has a method Close() error.
func isCloser(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Close")
	m, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := m.Type().(*types.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 && sig.Results().At(0).Type().String() == "error"
}

// stdlibPath reports whether path is a standard library package's (no dot in its first element).
func stdlibPath(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// uses walks the uses of the resource's variable after it is opened: the positions that release
// it (a Close call, or the defer statement that will), and whether it escapes the scope.
func (s *closerScope) uses(o opened) (releases []token.Pos, escaped bool) {
	if o.obj == nil {
		return nil, false
	}
	info := s.pass.TypesInfo
	var stack []ast.Node
	ast.Inspect(s.body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok || info.Uses[id] != o.obj || id.Pos() < o.stmt.End() {
			return true
		}
		release, escapes := s.useKind(stack)
		deferred, inLit := closureOf(stack)
		switch {
		case escapes || inLit && (deferred == nil || !release):
			escaped = escaped || escapes || inLit && deferred == nil
		case release && deferred != nil:
			releases = append(releases, deferred.Pos())
		case release:
			releases = append(releases, id.Pos())
		}
		return true
	})
	return releases, escaped
}

// useKind says what the use of the variable on top of stack does with it: releases it (a Close
// call, or the method value Close), or lets it escape (returned, stored, sent, aliased, passed to
// a call that may keep it). Other uses (a method call, a comparison, an argument of a standard
// library call that only uses it) neither.
func (s *closerScope) useKind(stack []ast.Node) (release, escapes bool) {
	child := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr, *ast.StarExpr:
		case *ast.TypeAssertExpr:
			if p.X != child {
				return false, false
			}
		case *ast.SelectorExpr:
			return p.Sel.Name == "Close", false
		case *ast.CallExpr:
			if p.Fun == child {
				return false, false
			}
			return false, s.mayKeep(p)
		case *ast.AssignStmt:
			for _, l := range p.Lhs {
				if l == child {
					return false, false // reassigned
				}
			}
			return false, !(len(p.Lhs) == 1 && isBlank(p.Lhs[0]))
		case *ast.ReturnStmt, *ast.CompositeLit, *ast.KeyValueExpr, *ast.SendStmt, *ast.ValueSpec, *ast.GoStmt:
			return false, true
		case *ast.UnaryExpr:
			if p.Op == token.AND {
				return false, true
			}
		default:
			return false, false
		}
		child = stack[i]
	}
	return false, false
}

// mayKeep reports whether call may keep a resource it is given: a call into another package than
// the standard library, a function value, a conversion or append, or one of closerOwners.
func (s *closerScope) mayKeep(call *ast.CallExpr) bool {
	fn := calleeFunc(s.pass.TypesInfo, call)
	if fn == nil || fn.Pkg() == nil || !stdlibPath(fn.Pkg().Path()) {
		return true
	}
	return closerOwners[fn.FullName()]
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// closureOf reports whether the use on top of stack is inside a function literal of the scope,
// and the defer statement that calls that literal, if one does.
func closureOf(stack []ast.Node) (deferred *ast.DeferStmt, inLit bool) {
	for i := len(stack) - 1; i > 0; i-- {
		lit, ok := stack[i].(*ast.FuncLit)
		if !ok {
			continue
		}
		if i >= 2 {
			if call, ok := stack[i-1].(*ast.CallExpr); ok && call.Fun == lit {
				if d, ok := stack[i-2].(*ast.DeferStmt); ok {
					return d, true
				}
			}
		}
		return nil, true
	}
	return nil, false
}

// leakPath finds a path of the scope's control-flow graph from the opening of o to a return
// that passes no release, and returns where it leaves the function. The branch where the maker's
// error is non-nil (or the resource nil) is not followed: there is nothing to close on it.
func (s *closerScope) leakPath(o opened, releases []token.Pos) (token.Pos, bool) {
	releasing := func(n ast.Node) bool {
		for _, r := range releases {
			if n.Pos() <= r && r < n.End() {
				return true
			}
		}
		return false
	}
	start, at := s.blockOf(o.call.Pos())
	if start == nil {
		return token.NoPos, false
	}
	for _, n := range start.Nodes[at+1:] {
		if releasing(n) {
			return token.NoPos, false
		}
	}
	seen := map[*cfg.Block]bool{}
	var walk func(b *cfg.Block, from int) (token.Pos, bool)
	walk = func(b *cfg.Block, from int) (token.Pos, bool) {
		for _, n := range b.Nodes[from:] {
			if releasing(n) {
				return token.NoPos, false
			}
		}
		if len(b.Succs) == 0 {
			return s.exitOf(b)
		}
		for i, next := range b.Succs {
			if seen[next] || failureBranch(s.pass.TypesInfo, b, i, o) {
				continue
			}
			seen[next] = true
			if pos, ok := walk(next, 0); ok {
				return pos, true
			}
		}
		return token.NoPos, false
	}
	return walk(start, at+1)
}

// blockOf returns the live block holding the node at pos, and the node's index in it.
func (s *closerScope) blockOf(pos token.Pos) (*cfg.Block, int) {
	for _, b := range s.graph.Blocks {
		if !b.Live {
			continue
		}
		for i, n := range b.Nodes {
			if n.Pos() <= pos && pos < n.End() {
				return b, i
			}
		}
	}
	return nil, 0
}

// exitOf says where block b, which has no successor, leaves the function: at its return, or at
// the end of the body when it runs off it; a block that ends in a call that does not return
// (panic, log.Fatal) leaves nothing open that matters.
func (s *closerScope) exitOf(b *cfg.Block) (token.Pos, bool) {
	if len(b.Nodes) == 0 {
		return s.body.Rbrace, b.Live
	}
	last := b.Nodes[len(b.Nodes)-1]
	if r, ok := last.(*ast.ReturnStmt); ok {
		return r.Pos(), true
	}
	if n := len(s.body.List); n > 0 && last.End() == s.body.List[n-1].End() && !isPanic(last) {
		return s.body.Rbrace, true
	}
	return token.NoPos, false
}

func isPanic(n ast.Node) bool {
	es, ok := n.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	return ok && id.Name == "panic"
}

// failureBranch reports whether the i-th successor of b is the branch on which o's maker
// failed: b ends in `err != nil` (or `v == nil`) and i is its true branch, or in `err == nil`
// (`v != nil`) and i is its false branch.
func failureBranch(info *types.Info, b *cfg.Block, i int, o opened) bool {
	if len(b.Nodes) == 0 || len(b.Succs) != 2 {
		return false
	}
	cond, ok := ast.Unparen(asExpr(b.Nodes[len(b.Nodes)-1])).(*ast.BinaryExpr)
	if !ok || cond.Op != token.EQL && cond.Op != token.NEQ {
		return false
	}
	x, y := ast.Unparen(cond.X), ast.Unparen(cond.Y)
	if isNilIdent(info, x) {
		x, y = y, x
	}
	id, ok := x.(*ast.Ident)
	if !ok || !isNilIdent(info, y) {
		return false
	}
	obj := info.Uses[id]
	switch {
	case o.err != nil && obj == o.err:
		return (cond.Op == token.NEQ) == (i == 0)
	case o.obj != nil && obj == o.obj:
		return (cond.Op == token.EQL) == (i == 0)
	}
	return false
}

func asExpr(n ast.Node) ast.Expr {
	e, _ := n.(ast.Expr)
	return e
}

func isNilIdent(info *types.Info, e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	_, isNil := info.Uses[id].(*types.Nil)
	return isNil
}
