package evidence

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/compare"
	"golang.org/x/tools/go/analysis"
)

// This file holds the part of the lock analysis (lockorder.go) that infers which mutex guards a
// field, as RacerD and guarded-by inference do, and reports an access made without it: a field
// the package writes with a mutex of its struct held is guarded by that mutex; a function that
// reads or writes it on the same object without holding the mutex races with that write. An
// access is not judged when the function's callers hold the lock: its name says so
// (lookupLocked), or every call in the package is made with the lock held (or on an object the
// caller has just made), or it is unexported and never called directly (its callers are not
// known). An object the function has just made is not yet shared.

// unguardedAccess is one access to judge: the lock its object's field is guarded by.
type unguardedAccess struct {
	e      lockEvent
	mutex  string
	writer string
}

// reportUnguarded reports, once per function, object and field, an access to a guarded field
// without its mutex held. early holds the reads the lock-order check already reported (method,
// receiver, field).
func reportUnguarded(pass *analysis.Pass, funcs []*ast.FuncDecl, eventsOf map[*ast.BlockStmt][]lockEvent, guarded map[guardKey]string, early map[string]bool) {
	if len(guarded) == 0 {
		return
	}
	g := &guardScope{pass: pass, eventsOf: eventsOf, funcs: funcs}
	for _, fd := range funcs {
		name := FuncName(fd)
		done := map[string]bool{}
		for _, a := range g.unguarded(fd, guarded) {
			e := a.e
			k := name + "\x00" + e.base + "\x00" + e.member
			if done[k] || early[k] {
				continue
			}
			done[k] = true
			verb := "reads"
			if e.kind == evWrite {
				verb = "writes"
			}
			pass.Reportf(e.pos, "`%s` %s `%s.%s` without holding `%s.%s`; `%s.%s` is written with `%s` held (in `%s`), so this access races with that write",
				name, verb, e.base, e.member, e.base, a.mutex, e.base, e.member, a.mutex, a.writer)
		}
	}
}

type guardScope struct {
	pass     *analysis.Pass
	eventsOf map[*ast.BlockStmt][]lockEvent
	funcs    []*ast.FuncDecl
	// sites are the static calls of each function, indexed on first use.
	sites map[*ast.FuncDecl][]callSite
	// holds memoises callersHold's answers, made madeHere's.
	holds map[holdKey]bool
	made  map[*types.Var]bool
}

// madeHere reports whether v is a variable of body that it assigns a new object (allocatedHere),
// memoised.
func (g *guardScope) madeHere(body *ast.BlockStmt, v *types.Var) bool {
	if !(body.Pos() <= v.Pos() && v.Pos() < body.End()) {
		return false
	}
	made, ok := g.made[v]
	if !ok {
		made = allocatedHere(g.pass.TypesInfo, body, v)
		if g.made == nil {
			g.made = map[*types.Var]bool{}
		}
		g.made[v] = made
	}
	return made
}

type holdKey struct {
	fd         *ast.FuncDecl
	root       *types.Var
	path, lock string
}

// unguarded returns the accesses of fd's body to a guarded field made without its mutex, less
// those its callers protect.
func (g *guardScope) unguarded(fd *ast.FuncDecl, guarded map[guardKey]string) []unguardedAccess {
	events := g.eventsOf[fd.Body]
	held := map[string]bool{}
	locks := map[string]bool{} // the locks the function takes somewhere
	for _, e := range events {
		if e.kind == evLock {
			locks[e.base+"."+e.member] = true
		}
	}
	var out []unguardedAccess
	for _, e := range events {
		switch e.kind {
		case evLock:
			held[e.base+"."+e.member] = true
			continue
		case evUnlock:
			held[e.base+"."+e.member] = false
			continue
		}
		v, _ := e.root.(*types.Var)
		if v == nil || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
			continue // a package-level variable, or no variable: judged nowhere
		}
		for _, m := range mutexFields(e.owner) {
			writer := guarded[guardKey{e.owner, e.member, m}]
			lock := e.base + "." + m
			if writer == "" || held[lock] {
				continue
			}
			if g.madeHere(fd.Body, v) {
				break // an object made here, not yet shared
			}
			if !locks[lock] && g.callersHold(fd, v, strings.TrimPrefix(e.base, v.Name()), m, 0) {
				continue
			}
			out = append(out, unguardedAccess{e, m, writer})
			break
		}
	}
	return out
}

// callSite is a static call of a function of the package.
type callSite struct {
	caller *ast.FuncDecl
	call   *ast.CallExpr
}

// callSites indexes the static calls of the package's functions by callee.
func callSites(info *types.Info, funcs []*ast.FuncDecl) map[*ast.FuncDecl][]callSite {
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, fd := range funcs {
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			decls[fn] = fd
		}
	}
	out := map[*ast.FuncDecl][]callSite{}
	for _, fd := range funcs {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if fn := calleeFunc(info, call); fn != nil {
				if callee := decls[fn.Origin()]; callee != nil {
					out[callee] = append(out[callee], callSite{fd, call})
				}
			}
			return true
		})
	}
	return out
}

// callersHold reports whether fd's callers hold mutex m of root+path (root is fd's receiver or
// parameter) when they call it: by its name, by every static call, or because it is unexported
// and never called directly. depth bounds the walk up the callers.
func (g *guardScope) callersHold(fd *ast.FuncDecl, root *types.Var, path, m string, depth int) bool {
	k := holdKey{fd, root, path, m}
	if v, ok := g.holds[k]; ok {
		return v
	}
	v := g.callersHoldUncached(fd, root, path, m, depth)
	if g.holds == nil {
		g.holds = map[holdKey]bool{}
	}
	g.holds[k] = v
	return v
}

func (g *guardScope) callersHoldUncached(fd *ast.FuncDecl, root *types.Var, path, m string, depth int) bool {
	if compare.CalledLocked(fd.Name.Name) {
		return true
	}
	arg := paramIndex(g.pass.TypesInfo, fd, root)
	if arg < -1 {
		return false // a local variable: no caller can hold its lock
	}
	if g.sites == nil {
		g.sites = callSites(g.pass.TypesInfo, g.funcs)
	}
	sites := g.sites[fd]
	if len(sites) == 0 {
		return !fd.Name.IsExported()
	}
	if depth > 2 {
		return false
	}
	for _, s := range sites {
		if !g.siteHolds(s, arg, path, m, depth) {
			return false
		}
	}
	return true
}

// siteHolds reports whether a call passes an object whose lock m is held at the call, or that
// the caller has just made, or whose lock the caller's own callers hold. arg is the parameter
// the object is passed as, -1 for the receiver.
func (g *guardScope) siteHolds(s callSite, arg int, path, m string, depth int) bool {
	info := g.pass.TypesInfo
	var x ast.Expr
	switch {
	case arg == -1:
		sel, ok := ast.Unparen(s.call.Fun).(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x = sel.X
	case arg < len(s.call.Args):
		x = s.call.Args[arg]
	default:
		return false
	}
	x = ast.Unparen(x)
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = ast.Unparen(u.X)
	}
	if heldAt(g.eventsOf[s.caller.Body], types.ExprString(x)+path+"."+m, s.call.Pos()) {
		return true
	}
	v, _ := rootObject(info, x).(*types.Var)
	if v == nil {
		return false
	}
	if s.caller.Body.Pos() <= v.Pos() && v.Pos() < s.caller.Body.End() {
		return g.madeHere(s.caller.Body, v)
	}
	rest := strings.TrimPrefix(types.ExprString(x), v.Name())
	return g.callersHold(s.caller, v, rest+path, m, depth+1)
}

// paramIndex returns -1 when v is fd's receiver, i for its i-th parameter, -2 otherwise.
func paramIndex(info *types.Info, fd *ast.FuncDecl, v *types.Var) int {
	if fd.Recv != nil {
		for _, f := range fd.Recv.List {
			for _, n := range f.Names {
				if info.Defs[n] == v {
					return -1
				}
			}
		}
	}
	i := 0
	for _, f := range fd.Type.Params.List {
		if len(f.Names) == 0 {
			i++
		}
		for _, n := range f.Names {
			if info.Defs[n] == v {
				return i
			}
			i++
		}
	}
	return -2
}

// heldAt reports whether lock (base.mutex) is held at pos, replaying the body's events before
// it.
func heldAt(events []lockEvent, lock string, pos token.Pos) bool {
	held := false
	for _, e := range events {
		if e.pos >= pos {
			break
		}
		if (e.kind == evLock || e.kind == evUnlock) && e.base+"."+e.member == lock {
			held = e.kind == evLock
		}
	}
	return held
}

// rootObject returns the variable an expression starts from: entry in entry.Logger, c in
// (*c).items, nil for a call or a literal.
func rootObject(info *types.Info, e ast.Expr) types.Object {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return info.Uses[x]
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		default:
			return nil
		}
	}
}
