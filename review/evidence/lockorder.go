package evidence

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sort"

	"golang.org/x/tools/go/analysis"
)

// lockAnalyzer finds a method that reads a field of its receiver before locking the mutex that
// guards the field. A field is taken to be guarded by a mutex field of the same struct when the
// package writes it somewhere with that mutex held (after Lock, before Unlock, in source order);
// a method that locks the mutex itself but reads the field first races with those writes. An
// access made without the mutex anywhere else (after the unlock, with no lock at all, on another
// object) is reported too, unless the function's callers hold it (lockguard.go).
//
// The result also records, per method, which receiver fields are read before and after each
// lock, for the base/head comparison (a lock moved after the read it protected).
var lockAnalyzer = &analysis.Analyzer{
	Name:       "lockafterread",
	Doc:        "report methods that read a mutex-guarded field of their receiver before locking the mutex",
	Run:        runLock,
	ResultType: reflect.TypeOf((*lockResult)(nil)),
}

// fieldOrder is how one method orders reads of a receiver field and locks of one mutex.
type fieldOrder struct {
	Field, Mutex string
	// EarlyRead is the first read of the field before the method's first Lock of the mutex.
	EarlyRead token.Pos
	// LockedRead says the method reads the field with the mutex held.
	LockedRead bool
}

type lockResult struct {
	// orders are keyed by method (FuncName).
	orders map[string][]fieldOrder
}

// lockEvent is a lock, an unlock or a field access in a function's body, in source order.
type lockEvent struct {
	pos    token.Pos
	kind   int // evLock, evUnlock, evRead, evWrite
	base   string
	member string // the mutex for locks, the field for accesses
	owner  *types.Named
	rlock  bool
	// obj is the variable the access goes through, when base is one (sp in sp.count); root is
	// the variable base starts from (entry in entry.Logger.Formatter).
	obj, root types.Object
}

const (
	evLock = iota
	evUnlock
	evRead
	evWrite
)

// mutexFields returns the names of a struct's fields that are sync.Mutex or sync.RWMutex (by
// value or pointer, named or embedded).
func mutexFields(n *types.Named) []string {
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	var out []string
	for i := 0; i < st.NumFields(); i++ {
		if isMutexType(st.Field(i).Type()) {
			out = append(out, st.Field(i).Name())
		}
	}
	return out
}

func isMutexType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok {
		return false
	}
	if n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync" {
		return n.Obj().Name() == "Mutex" || n.Obj().Name() == "RWMutex"
	}
	return isLocker(n)
}

// isLocker reports whether a named struct type of the program is a lock of its own: it holds
// a sync mutex and declares Lock() and Unlock() itself (a wrapper around a sync.Mutex that can
// be disabled). A type that only embeds a mutex (its Lock is the mutex's) is not one.
func isLocker(n *types.Named) bool {
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	holds := false
	for i := 0; i < st.NumFields(); i++ {
		if f, ok := st.Field(i).Type().(*types.Named); ok && f.Obj().Pkg() != nil && f.Obj().Pkg().Path() == "sync" &&
			(f.Obj().Name() == "Mutex" || f.Obj().Name() == "RWMutex") {
			holds = true
		}
	}
	if !holds {
		return false
	}
	found := 0
	for i := 0; i < n.NumMethods(); i++ {
		m := n.Method(i)
		if m.Name() != "Lock" && m.Name() != "Unlock" {
			continue
		}
		sig, ok := m.Type().(*types.Signature)
		if !ok || sig.Params().Len() != 0 || sig.Results().Len() != 0 {
			return false
		}
		found++
	}
	return found == 2
}

// lockCall says what a call to fn does to a lock: evLock (rlock for RLock), evUnlock, or -1.
// The locks are sync's mutexes and the program's own lockers (isLocker).
func lockCall(fn *types.Func) (kind int, rlock bool) {
	switch fn.Name() {
	case "Lock", "RLock", "Unlock", "RUnlock":
	default:
		return -1, false
	}
	recv := recvNamed(fn)
	if recv == nil || !isMutexType(recv) {
		return -1, false
	}
	switch fn.Name() {
	case "Lock":
		return evLock, false
	case "RLock":
		return evLock, true
	case "Unlock", "RUnlock":
		return evUnlock, false
	}
	return -1, false
}

// unguardable are field types that need no mutex: sync and sync/atomic values, channels.
func unguardable(t types.Type) bool {
	if _, ok := t.Underlying().(*types.Chan); ok {
		return true
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && (n.Obj().Pkg().Path() == "sync" || n.Obj().Pkg().Path() == "sync/atomic")
}

func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := t.(*types.Named)
	if n != nil {
		n = n.Origin()
	}
	return n
}

// lockEvents lists the locks, unlocks and field accesses of a body in source order, leaving out
// function literals (they run at another time), deferred calls, and unlocks on a path that
// leaves the block (`mu.Unlock(); return` in an if does not end the locked region after it).
func lockEvents(info *types.Info, body *ast.BlockStmt) []lockEvent {
	var out []lockEvent
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		switch n.(type) {
		case *ast.FuncLit, *ast.DeferStmt:
			return false
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.CallExpr:
			fn := calleeFunc(info, n)
			sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
			if fn == nil || !ok {
				return true
			}
			kind, rlock := lockCall(fn)
			if kind == evUnlock && leavesBlock(stack, body) {
				return true
			}
			if kind < 0 {
				return true
			}
			base, mutex, owner := mutexOf(info, sel)
			if owner != nil {
				out = append(out, lockEvent{pos: n.Pos(), kind: kind, base: base, member: mutex, owner: owner, rlock: rlock})
			}
		case *ast.SelectorExpr:
			s, ok := info.Selections[n]
			if !ok || s.Kind() != types.FieldVal || len(s.Index()) != 1 {
				return true
			}
			owner := namedOf(s.Recv())
			f, _ := s.Obj().(*types.Var)
			if owner == nil || f == nil || isMutexType(f.Type()) || unguardable(f.Type()) || atomicOperand(info, stack) {
				return true
			}
			kind := evRead
			if isWrite(info, stack) {
				kind = evWrite
			}
			var obj types.Object
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok {
				obj = info.Uses[id]
			}
			out = append(out, lockEvent{pos: n.Pos(), kind: kind, base: types.ExprString(n.X), member: f.Name(), owner: owner, obj: obj, root: rootObject(info, n.X)})
		}
		return true
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	return out
}

// atomicOperand reports whether the selector on top of the stack is the address given to a
// sync/atomic function (atomic.AddInt64(&c.n, 1)): an atomic access needs no lock.
func atomicOperand(info *types.Info, stack []ast.Node) bool {
	if len(stack) < 3 {
		return false
	}
	u, ok := stack[len(stack)-2].(*ast.UnaryExpr)
	if !ok || u.Op != token.AND {
		return false
	}
	call, ok := stack[len(stack)-3].(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := calleeFunc(info, call)
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "sync/atomic"
}

// mutexOf resolves the receiver of a Lock/Unlock call to the struct value holding the mutex and
// the mutex field's name: c.mu.Lock() is (c, mu); c.Lock() with an embedded mutex is (c, Mutex).
func mutexOf(info *types.Info, sel *ast.SelectorExpr) (base, mutex string, owner *types.Named) {
	if inner, ok := ast.Unparen(sel.X).(*ast.SelectorExpr); ok {
		if s, ok := info.Selections[inner]; ok && s.Kind() == types.FieldVal && len(s.Index()) == 1 {
			return types.ExprString(inner.X), inner.Sel.Name, namedOf(s.Recv())
		}
	}
	if s, ok := info.Selections[sel]; ok && len(s.Index()) == 2 {
		owner := namedOf(s.Recv())
		if owner != nil {
			if st, ok := owner.Underlying().(*types.Struct); ok {
				return types.ExprString(sel.X), st.Field(s.Index()[0]).Name(), owner
			}
		}
	}
	return "", "", nil
}

// leavesBlock reports whether the statement on the stack is in a nested block that ends by
// leaving it (return, break, continue, goto, panic).
func leavesBlock(stack []ast.Node, body *ast.BlockStmt) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		var list []ast.Stmt
		switch b := stack[i].(type) {
		case *ast.BlockStmt:
			if b == body {
				return false
			}
			list = b.List
		case *ast.CaseClause:
			list = b.Body
		case *ast.CommClause:
			list = b.Body
		default:
			continue
		}
		if len(list) == 0 {
			return false
		}
		switch last := list[len(list)-1].(type) {
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
	return false
}

// isWrite reports whether the selector on top of the stack is written: assigned (itself, an
// element or a field of it), incremented, deleted from, its address taken, or the receiver of a
// pointer method.
func isWrite(info *types.Info, stack []ast.Node) bool {
	child := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		parent := stack[i]
		switch p := parent.(type) {
		case *ast.IndexExpr:
			if p.X != child {
				return false
			}
		case *ast.SelectorExpr:
			if p.X != child {
				return false
			}
			if s, ok := info.Selections[p]; ok && s.Kind() == types.MethodVal {
				// a pointer method on a value writes it; on a pointer (or an interface)
				// the field itself is only read
				if t := info.TypeOf(child.(ast.Expr)); t != nil {
					if _, isPtr := t.Underlying().(*types.Pointer); isPtr || types.IsInterface(t) {
						return false
					}
				}
				if sig, ok := s.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
					_, ptr := sig.Recv().Type().(*types.Pointer)
					return ptr
				}
			}
		case *ast.ParenExpr, *ast.StarExpr:
		case *ast.AssignStmt:
			for _, l := range p.Lhs {
				if l == child {
					return true
				}
			}
			return false
		case *ast.IncDecStmt:
			return true
		case *ast.UnaryExpr:
			return p.Op == token.AND
		case *ast.CallExpr:
			if id, ok := p.Fun.(*ast.Ident); ok && id.Name == "delete" && len(p.Args) > 0 && p.Args[0] == child {
				return true
			}
			return false
		default:
			return false
		}
		child = parent
	}
	return false
}

type guardKey struct {
	owner        *types.Named
	field, mutex string
}

// lockEvidence collects the package's functions (and, among them, its methods), the lock events
// of every body (function literals' too), and the fields written with a mutex of the same struct
// held, each with the function that writes it under the lock.
func lockEvidence(pass *analysis.Pass) (methods, funcs []*ast.FuncDecl, eventsOf map[*ast.BlockStmt][]lockEvent, guarded map[guardKey]string) {
	info := pass.TypesInfo
	guarded = map[guardKey]string{}
	bodies := funcBodies(pass)
	for _, b := range bodies {
		if b.fn != b.decl {
			continue // a literal: its declaration is listed already
		}
		if b.decl.Recv != nil {
			methods = append(methods, b.decl)
		}
		funcs = append(funcs, b.decl)
	}
	eventsOf = make(map[*ast.BlockStmt][]lockEvent, len(bodies))
	for _, b := range bodies {
		eventsOf[b.body] = lockEvents(info, b.body)
		held := map[string]bool{}
		for _, e := range eventsOf[b.body] {
			switch e.kind {
			case evLock:
				held[e.base+"."+e.member] = true
			case evUnlock:
				held[e.base+"."+e.member] = false
			case evWrite:
				for _, m := range mutexFields(e.owner) {
					k := guardKey{e.owner, e.member, m}
					if held[e.base+"."+m] && guarded[k] == "" {
						guarded[k] = b.name
					}
				}
			}
		}
	}
	return methods, funcs, eventsOf, guarded
}

func runLock(pass *analysis.Pass) (any, error) {
	info := pass.TypesInfo
	res := &lockResult{orders: map[string][]fieldOrder{}}
	methods, funcs, eventsOf, guarded := lockEvidence(pass)
	early := map[string]bool{} // method, receiver, field of the reads reported before the lock
	for _, fd := range methods {
		if len(fd.Recv.List) != 1 || len(fd.Recv.List[0].Names) != 1 {
			continue
		}
		recv := fd.Recv.List[0].Names[0].Name
		owner := namedOf(info.TypeOf(fd.Recv.List[0].Type))
		if owner == nil {
			continue
		}
		mutexes := mutexFields(owner)
		if len(mutexes) == 0 {
			continue
		}
		events := eventsOf[fd.Body]
		name := FuncName(fd)
		for _, m := range mutexes {
			var lock token.Pos
			held := false
			orders := map[string]*fieldOrder{}
			var fields []string
			for _, e := range events {
				if e.base != recv {
					continue
				}
				switch {
				case (e.kind == evLock || e.kind == evUnlock) && e.member == m:
					held = e.kind == evLock
					if held && !lock.IsValid() {
						lock = e.pos
					}
				case e.kind == evRead && e.owner == owner:
					o := orders[e.member]
					if o == nil {
						o = &fieldOrder{Field: e.member, Mutex: m}
						orders[e.member] = o
						fields = append(fields, e.member)
					}
					if held {
						o.LockedRead = true
					} else if !lock.IsValid() && !o.EarlyRead.IsValid() {
						o.EarlyRead = e.pos
					}
				}
			}
			if !lock.IsValid() {
				continue // the caller holds the lock, or the method needs none
			}
			for _, f := range fields {
				o := orders[f]
				res.orders[name] = append(res.orders[name], *o)
				writer := guarded[guardKey{owner, f, m}]
				if !o.EarlyRead.IsValid() || writer == "" {
					continue
				}
				early[name+"\x00"+recv+"\x00"+f] = true
				pass.Reportf(o.EarlyRead, "`%s` reads `%s.%s` before `%s.%s.Lock()` at line %d; `%s.%s` is written with `%s.%s` held (in `%s`), so this read races with that write",
					name, recv, f, recv, m, pass.Fset.Position(lock).Line, recv, f, recv, m, writer)
			}
		}
	}
	reportUnguarded(pass, funcs, eventsOf, guarded, early)
	return res, nil
}

// allocatedHere reports whether v is assigned a new value in body (a composite literal, its
// address, new(T)): an object the function made is not yet shared.
func allocatedHere(info *types.Info, body *ast.BlockStmt, v *types.Var) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || found || len(as.Lhs) != len(as.Rhs) {
			return !found
		}
		for i, l := range as.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || info.ObjectOf(id) != v {
				continue
			}
			switch r := ast.Unparen(as.Rhs[i]).(type) {
			case *ast.CompositeLit:
				found = true
			case *ast.UnaryExpr:
				_, found = r.X.(*ast.CompositeLit)
			case *ast.CallExpr:
				if b, ok := info.Uses[calleeIdent(r.Fun)].(*types.Builtin); ok && b.Name() == "new" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

func calleeIdent(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}
