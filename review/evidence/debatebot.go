package evidence

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/voting"
	"golang.org/x/tools/go/analysis"
)

// Rule ids of the project's own analyses.
const (
	RuleLockAfterRead = "lock-after-read"
	RuleQueryInLoop   = "query-in-loop"

	RuleGuardRemoved       = "guard-removed"
	RuleLockMovedAfterRead = "lock-moved-after-read"
)

func cweURL(n string) string { return "https://cwe.mitre.org/data/definitions/" + n + ".html" }

// debatebotAnalyzers are the checks of this package run by the driver like the vet passes.
var debatebotAnalyzers = []rules.Check{
	{Rule: RuleUnclosedResource, Title: "Resource opened and not closed on every path", Severity: voting.SeverityMedium, Topic: rules.TopicResource,
		CWE: "CWE-775", URL: cweURL("775"),
		Fix:      "close the resource on every path once it is open: defer x.Close() right after the error check (or return it to a caller who closes it)",
		Warrant:  "The function opens a file, connection or decompressor and can return without closing it, returning it or handing it to anything that could; the descriptor and its buffers stay held until the process exhausts its limit",
		Rebuttal: "unless the process exits right after, or a finalizer closes it", TradeOff: "none: a deferred Close costs nothing",
		Analyzer: unclosedAnalyzer},
	{Rule: RuleLockAfterRead, Title: "Field read before (or without) locking the mutex that guards it", Severity: voting.SeverityHigh, Topic: rules.TopicConcurrency,
		CWE: "CWE-362", URL: cweURL("362"),
		Fix:      "lock the mutex before the first read of the fields it guards (or read them after Lock)",
		Warrant:  "The field is written under the mutex elsewhere in the package; reading it before Lock, or without it, races with those writes, which the race detector reports and which can return torn or stale values",
		Rebuttal: "unless the value read cannot change while the method runs", TradeOff: "none: the lock is taken a few statements earlier",
		Analyzer: lockAnalyzer},
	{Rule: RuleQueryInLoop, Title: "Database query or remote call per loop iteration", Severity: voting.SeverityMedium, Topic: rules.TopicPerformance,
		CWE: "CWE-1050", URL: cweURL("1050"),
		Fix:      "fetch what the loop needs in one batched query or request before the loop (WHERE id IN (...) / = ANY($1), a batch endpoint), then look results up in a map",
		Warrant:  "One round trip per element makes latency and database load grow with the collection (the N+1 query pattern), even when the call is hidden in a helper",
		Rebuttal: "unless the collection is known to stay small", TradeOff: "batched code is a little more complex",
		Analyzer: queryLoopAnalyzer},
}

// weakenedCatalog are the rules of the base/head comparison (weakened.go); they run no analyzer.
var weakenedCatalog = []rules.Check{
	{Rule: RuleGuardRemoved, Title: "Check removed from the path to a sensitive call", Severity: voting.SeverityHigh, Topic: rules.TopicSecurity,
		CWE: "CWE-693", URL: cweURL("693"),
		Fix:      "restore the check before the call (or move it to every caller), and add a test that feeds the rejected input",
		Warrant:  "The base checked the value before it reached the call (a file, a URL, a query, a command); the head still makes the call but no longer checks, so input the check rejected now gets through",
		Rebuttal: "unless every caller now checks the value, or the value can no longer come from outside", TradeOff: "none: the check existed"},
	{Rule: RuleLockMovedAfterRead, Title: "Lock moved after the read it protected", Severity: voting.SeverityHigh, Topic: rules.TopicConcurrency,
		CWE: "CWE-362", URL: cweURL("362"), // the race the read out of its lock makes: one weakness with lock-after-read, which merges with it
		Fix:      "take the lock before the read again, as the base did",
		Warrant:  "The base read the field with the mutex held; the head reads it before locking, so the read races with writers holding the mutex",
		Rebuttal: "unless the field can no longer change concurrently", TradeOff: "none: the base's order worked"},
}

func debatebotChecks() []rules.Check {
	out := make([]rules.Check, len(debatebotAnalyzers))
	for i, c := range debatebotAnalyzers {
		c.Source = rules.SourceDebatebot
		out[i] = c
	}
	return out
}

func weakenedChecks() []rules.Check {
	out := make([]rules.Check, len(weakenedCatalog))
	for i, c := range weakenedCatalog {
		c.Source = rules.SourceDebatebot
		out[i] = c
	}
	return out
}

var weakenedByRule = func() map[string]rules.Check {
	m := map[string]rules.Check{}
	for _, c := range weakenedChecks() {
		m[c.Rule] = c
	}
	return m
}()

// inTestFile reports whether pos is in a _test.go file: the project's analyses judge production
// code, as gosec does by default.
func inTestFile(fset *token.FileSet, pos token.Pos) bool {
	f := fset.File(pos)
	return f != nil && strings.HasSuffix(f.Name(), "_test.go")
}

// nonTestFiles are the package's files that are not tests.
func nonTestFiles(pass *analysis.Pass) []*ast.File {
	out := make([]*ast.File, 0, len(pass.Files))
	for _, f := range pass.Files {
		if !inTestFile(pass.Fset, f.Pos()) {
			out = append(out, f)
		}
	}
	return out
}

// funcBody is one function of a package's non-test files: a declaration, or a function literal
// inside one, named by its declaration.
type funcBody struct {
	decl *ast.FuncDecl
	fn   ast.Node // decl, or the *ast.FuncLit
	body *ast.BlockStmt
	name string
}

// funcBodies lists the functions of pass's non-test files with a body, each declaration followed
// by the literals inside it.
func funcBodies(pass *analysis.Pass) []funcBody {
	var out []funcBody
	for _, f := range nonTestFiles(pass) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := FuncName(fd)
			out = append(out, funcBody{decl: fd, fn: fd, body: fd.Body, name: name})
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok {
					out = append(out, funcBody{decl: fd, fn: lit, body: lit.Body, name: name})
				}
				return true
			})
		}
	}
	return out
}

// calleeFunc returns the function or method a call statically calls, nil for a call through a
// function value, a conversion or a builtin. Interface methods are returned (their receiver is
// an interface).
func calleeFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok { // explicit instantiation f[T](...)
		fun = ix.X
	}
	if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[f]; ok {
			if fn, ok := sel.Obj().(*types.Func); ok {
				return fn
			}
			return nil
		}
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

// funcPkgPath is the import path of fn's package ("" for methods of universe types such as
// error.Error).
func funcPkgPath(fn *types.Func) string {
	if fn == nil || fn.Pkg() == nil {
		return ""
	}
	return fn.Pkg().Path()
}

// isPkgFunc reports whether fn is the package-level function pkg.name (one of names).
func isPkgFunc(fn *types.Func, pkg string, names ...string) bool {
	if fn == nil || funcPkgPath(fn) != pkg {
		return false
	}
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		return false
	}
	for _, n := range names {
		if fn.Name() == n {
			return true
		}
	}
	return false
}

// recvNamed returns the named type of a method's receiver (through a pointer), nil for
// functions and interface methods of unnamed interfaces.
func recvNamed(fn *types.Func) *types.Named {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := t.(*types.Named)
	return n
}

// isMethodOf reports whether fn is a method of the type pkg.typ (by pointer or value) named one
// of names.
func isMethodOf(fn *types.Func, pkg, typ string, names ...string) bool {
	n := recvNamed(fn)
	if n == nil || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != pkg || n.Obj().Name() != typ {
		return false
	}
	for _, name := range names {
		if fn.Name() == name {
			return true
		}
	}
	return false
}

// shortFunc names fn as a reader would write it: "sql.DB.Query", "filepath.Clean", "h.lookup".
func shortFunc(fn *types.Func) string {
	if n := recvNamed(fn); n != nil {
		pkg := ""
		if n.Obj().Pkg() != nil {
			pkg = n.Obj().Pkg().Name() + "."
		}
		return pkg + n.Obj().Name() + "." + fn.Name()
	}
	if fn.Pkg() != nil {
		return fn.Pkg().Name() + "." + fn.Name()
	}
	return fn.Name()
}

// constInt reports whether e is an integer constant, and its value.
func constInt(info *types.Info, e ast.Expr) (int64, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return 0, false
	}
	v := constant.ToInt(tv.Value)
	if v.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(v)
}
