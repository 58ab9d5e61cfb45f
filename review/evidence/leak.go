package evidence

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/cfg"
)

// leakAnalyzer finds goroutines that send on an unbuffered channel the function that made it can
// stop receiving from: a function makes `ch := make(chan T)`, starts a goroutine that sends on it
// (a literal, or a function of the package given ch), and has a path from the go statement to a
// return that receives nothing from ch (a select that took its timeout or ctx.Done() case, an
// early error return). The sender then blocks forever. With a goroutine per loop iteration, one
// receive, or a receiving loop that can return early, leaves the other senders blocked.
//
// The control-flow graphs come from go/cfg (via the ctrlflow pass, which knows calls that do not
// return). A channel that escapes (passed elsewhere, stored, captured by another closure,
// reassigned) is left alone: someone else may receive from it.
var leakAnalyzer = &analysis.Analyzer{
	Name:       "goroutineleak",
	Doc:        "report goroutines that block forever sending on an unbuffered channel their creator can stop receiving from",
	Requires:   []*analysis.Analyzer{ctrlflow.Analyzer},
	Run:        runLeak,
	ResultType: reflect.TypeOf((*leakResult)(nil)),
}

// leak is one goroutine that can block forever.
type leak struct {
	Func string // the top-level function holding the go statement
	Chan string // the channel's variable
	Go   token.Pos
}

type leakResult struct{ leaks []leak }

type leakScope struct {
	pass  *analysis.Pass
	body  *ast.BlockStmt
	graph *cfg.CFG
	name  string
	decls map[*types.Func]*ast.FuncDecl
}

func runLeak(pass *analysis.Pass) (any, error) {
	cfgs := pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs)
	res := &leakResult{}
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					decls[fn] = fd
				}
			}
		}
	}
	for _, f := range nonTestFiles(pass) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := FuncName(fd)
			scopes := []leakScope{{pass: pass, body: fd.Body, graph: cfgs.FuncDecl(fd), name: name, decls: decls}}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok {
					scopes = append(scopes, leakScope{pass: pass, body: lit.Body, graph: cfgs.FuncLit(lit), name: name, decls: decls})
				}
				return true
			})
			for _, s := range scopes {
				if s.graph != nil {
					res.leaks = append(res.leaks, s.check()...)
				}
			}
		}
	}
	return res, nil
}

// unbufferedMake reports whether e is make(chan T) or make(chan T, 0).
func unbufferedMake(info *types.Info, e ast.Expr) bool {
	size, ok := chanMake(info, e)
	return ok && size == 0
}

// chanMake reports whether e is make(chan T[, n]), and n: 0 without a size, -1 when not constant.
func chanMake(info *types.Info, e ast.Expr) (int64, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return 0, false
	}
	if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "make" {
		return 0, false
	}
	if b, ok := info.Uses[call.Fun.(*ast.Ident)].(*types.Builtin); !ok || b.Name() != "make" {
		return 0, false
	}
	if _, ok := typeUnder(info, call.Args[0]).(*types.Chan); !ok {
		return 0, false
	}
	if len(call.Args) < 2 {
		return 0, true
	}
	if n, ok := constInt(info, call.Args[1]); ok {
		return n, true
	}
	return -1, true
}

// chanUse is what the scope does with one tracked channel.
type chanUse struct {
	obj      *types.Var
	def      *ast.Ident
	make     token.Pos
	escaped  bool
	senders  []*ast.GoStmt // goroutines with a blocking send on the channel
	receives []recvSite
}

// recvSite is a receive from the channel in the scope itself.
type recvSite struct {
	expr   ast.Node        // the <-ch expression, or the range statement over ch
	clause *ast.CommClause // the select case receiving, if any
	loop   ast.Stmt        // the innermost loop holding the receive (the range itself for a range over ch)
}

// commOf returns the select case whose communication holds the node on top of the stack.
func commOf(stack []ast.Node) *ast.CommClause {
	for i := len(stack) - 1; i > 0; i-- {
		if cc, ok := stack[i-1].(*ast.CommClause); ok && cc.Comm == stack[i] {
			return cc
		}
		if _, ok := stack[i].(ast.Stmt); ok {
			return nil
		}
	}
	return nil
}

// blockingSend reports whether the send on top of the stack blocks until received: a plain send,
// or the only case of a select without default.
func blockingSend(stack []ast.Node) bool {
	cc := commOf(stack)
	if cc == nil {
		return true
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if sel, ok := stack[i].(*ast.SelectStmt); ok {
			return len(sel.Body.List) == 1
		}
	}
	return false
}

func (s leakScope) check() []leak {
	info := s.pass.TypesInfo
	uses := map[*types.Var]*chanUse{}
	// Channels made unbuffered in the scope itself (not in a nested literal).
	ast.Inspect(s.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 && unbufferedMake(info, n.Rhs[0]) {
				if id, ok := n.Lhs[0].(*ast.Ident); ok {
					if v, ok := info.ObjectOf(id).(*types.Var); ok && uses[v] == nil {
						uses[v] = &chanUse{obj: v, def: id, make: n.Rhs[0].Pos()}
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == 1 && len(n.Values) == 1 && unbufferedMake(info, n.Values[0]) {
				if v, ok := info.Defs[n.Names[0]].(*types.Var); ok {
					uses[v] = &chanUse{obj: v, def: n.Names[0], make: n.Values[0].Pos()}
				}
			}
		}
		return true
	})
	if len(uses) == 0 {
		return nil
	}
	// Classify every use of each channel.
	goOfLit := map[*ast.FuncLit]*ast.GoStmt{}
	var stack []ast.Node
	ast.Inspect(s.body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		if g, ok := n.(*ast.GoStmt); ok {
			if lit, ok := g.Call.Fun.(*ast.FuncLit); ok && litDepth(stack[:len(stack)-1]) == 0 {
				goOfLit[lit] = g
			}
		}
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		v, _ := info.Uses[id].(*types.Var)
		u := uses[v]
		if u == nil || id == u.def {
			return true
		}
		s.classify(u, id, stack, goOfLit)
		return true
	})
	var out []leak
	var x cfgIndex // built for the first sender, shared by the others
	for _, u := range sortedUses(uses) {
		if u.escaped || len(u.senders) == 0 {
			continue
		}
		if x.block == nil {
			x = indexCFG(s.graph, s.body)
		}
		for _, g := range u.senders {
			if l, msg, ok := s.leaks(x, u, g); ok {
				s.pass.Reportf(g.Pos(), "%s", msg)
				out = append(out, l)
			}
		}
	}
	return out
}

func sortedUses(m map[*types.Var]*chanUse) []*chanUse {
	out := make([]*chanUse, 0, len(m))
	for _, u := range m {
		out = append(out, u)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].make < out[j-1].make; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// litDepth counts the function literals on the stack (the scope's body is not one).
func litDepth(stack []ast.Node) int {
	n := 0
	for _, x := range stack {
		if _, ok := x.(*ast.FuncLit); ok {
			n++
		}
	}
	return n
}

func innermostLit(stack []ast.Node) *ast.FuncLit {
	for i := len(stack) - 1; i >= 0; i-- {
		if lit, ok := stack[i].(*ast.FuncLit); ok {
			return lit
		}
	}
	return nil
}

func (s leakScope) classify(u *chanUse, id *ast.Ident, stack []ast.Node, goOfLit map[*ast.FuncLit]*ast.GoStmt) {
	info := s.pass.TypesInfo
	parent := stack[len(stack)-2]
	lit := innermostLit(stack)
	var g *ast.GoStmt
	if lit != nil {
		g = goOfLit[lit]
		if g == nil || litDepth(stack) != 1 {
			u.escaped = true // captured by a closure that is not a goroutine started here
			return
		}
	}
	switch p := parent.(type) {
	case *ast.SendStmt:
		if p.Chan != id || g == nil {
			u.escaped = true // sent as a value, or sent on by the scope itself
			return
		}
		if blockingSend(stack[:len(stack)-1]) && !containsGo(u.senders, g) {
			u.senders = append(u.senders, g)
		}
		return
	case *ast.UnaryExpr:
		if p.Op != token.ARROW {
			break
		}
		if g != nil {
			return // the goroutine receives too: no effect on whether the scope receives
		}
		u.receives = append(u.receives, recvSite{expr: p, clause: commOf(stack[:len(stack)-1]), loop: innermostLoop(stack[:len(stack)-2])})
		return
	case *ast.RangeStmt:
		if p.X == id && g == nil {
			u.receives = append(u.receives, recvSite{expr: p, loop: p})
			return
		}
	case *ast.CallExpr:
		if b, ok := info.Uses[calleeIdent(p.Fun)].(*types.Builtin); ok && (b.Name() == "close" || b.Name() == "len" || b.Name() == "cap") {
			return
		}
		// go worker(ch): a function of this package that sends on its parameter.
		if len(stack) < 3 {
			break
		}
		if gs, ok := stack[len(stack)-3].(*ast.GoStmt); ok && gs.Call == p && g == nil {
			if fn := calleeFunc(info, p); fn != nil {
				if fd := s.decls[fn]; fd != nil {
					for i, a := range p.Args {
						if a == id && sendsOnParam(info, fd, i) {
							if !containsGo(u.senders, gs) {
								u.senders = append(u.senders, gs)
							}
							return
						}
					}
				}
			}
		}
	}
	u.escaped = true
}

func calleeIdent(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}

func containsGo(gs []*ast.GoStmt, g *ast.GoStmt) bool {
	for _, x := range gs {
		if x == g {
			return true
		}
	}
	return false
}

// innermostLoop returns the innermost for or range statement on the stack, nil if none.
func innermostLoop(stack []ast.Node) ast.Stmt {
	for i := len(stack) - 1; i >= 0; i-- {
		switch l := stack[i].(type) {
		case *ast.ForStmt:
			return l
		case *ast.RangeStmt:
			return l
		case *ast.FuncLit:
			return nil
		}
	}
	return nil
}

// sendsOnParam reports whether fd's body (outside literals) has a blocking send on its i-th
// parameter.
func sendsOnParam(info *types.Info, fd *ast.FuncDecl, i int) bool {
	var param types.Object
	k := 0
	for _, field := range fd.Type.Params.List {
		for _, name := range field.Names {
			if k == i {
				param = info.Defs[name]
			}
			k++
		}
		if len(field.Names) == 0 {
			k++
		}
	}
	if param == nil {
		return false
	}
	found := false
	var stack []ast.Node
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		stack = append(stack, n)
		if send, ok := n.(*ast.SendStmt); ok {
			if id, ok := ast.Unparen(send.Chan).(*ast.Ident); ok && info.Uses[id] == param && blockingSend(stack) {
				found = true
			}
		}
		return !found
	})
	return found
}

// cfgIndex locates the graph's nodes.
type cfgIndex struct {
	block map[ast.Node]*cfg.Block
	at    map[ast.Node]int
	comms map[ast.Node]bool
}

func indexCFG(g *cfg.CFG, body *ast.BlockStmt) cfgIndex {
	x := cfgIndex{block: map[ast.Node]*cfg.Block{}, at: map[ast.Node]int{}, comms: map[ast.Node]bool{}}
	for _, b := range g.Blocks {
		for i, n := range b.Nodes {
			x.block[n], x.at[n] = b, i
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if cc, ok := n.(*ast.CommClause); ok && cc.Comm != nil {
			x.comms[cc.Comm] = true
		}
		return true
	})
	return x
}

// nodeHolding returns the graph node holding pos (not a select's communication, which the graph
// evaluates before choosing a case).
func (x cfgIndex) nodeHolding(g *cfg.CFG, pos token.Pos) ast.Node {
	for _, b := range g.Blocks {
		for _, n := range b.Nodes {
			if !x.comms[n] && n.Pos() <= pos && pos < n.End() {
				return n
			}
		}
	}
	return nil
}

// leaks reports whether the goroutine g, a sender on u, can block forever; x indexes the
// scope's graph.
func (s leakScope) leaks(x cfgIndex, u *chanUse, g *ast.GoStmt) (leak, string, bool) {
	goBlock := x.block[g]
	if goBlock == nil || !goBlock.Live {
		return leak{}, "", false
	}
	l := leak{Func: s.name, Chan: u.obj.Name(), Go: g.Pos()}
	fset := s.pass.Fset
	line := func(p token.Pos) int { return fset.Position(p).Line }
	// Receive points: graph nodes evaluating a receive, select cases receiving, ranges over ch.
	recvNodes := map[ast.Node]bool{}
	recvBlocks := map[*cfg.Block]bool{}
	for _, r := range u.receives {
		switch {
		case r.clause != nil:
			for _, b := range s.graph.Blocks {
				if b.Kind == cfg.KindSelectCaseBody && b.Stmt == r.clause {
					recvBlocks[b] = true
				}
			}
		case isRange(r.expr):
			for _, b := range s.graph.Blocks {
				if b.Kind == cfg.KindRangeLoop && b.Stmt == r.expr {
					recvBlocks[b] = true
				}
			}
		default:
			if n := x.nodeHolding(s.graph, r.expr.Pos()); n != nil {
				recvNodes[n] = true
			}
		}
	}
	makeNode := x.nodeHolding(s.graph, u.make)
	// Several goroutines share the channel when the go statement runs again without the make
	// running first (a channel made per iteration has one sender).
	multi := false
	if makeNode != nil && x.block[makeNode] != nil {
		mb := x.block[makeNode]
		if mb == goBlock && x.at[makeNode] < x.at[g] {
			multi = false
		} else {
			multi = cycleAvoiding(goBlock, mb)
		}
	}
	if len(u.receives) == 0 {
		return l, fmt.Sprintf("the goroutine sends on `%s`, an unbuffered channel made at line %d that `%s` never receives from: the send blocks forever and the goroutine leaks",
			u.obj.Name(), line(u.make), s.name), true
	}
	headers := map[*cfg.Block]bool{}
	if multi {
		inLoop := false
		for _, r := range u.receives {
			if r.loop != nil {
				inLoop = true
				if h := cfgLoopHeader(s.graph, r.loop); h != nil {
					headers[h] = true
				}
			}
		}
		if !inLoop {
			return l, fmt.Sprintf("a goroutine is started per iteration (line %d) to send on `%s`, an unbuffered channel made at line %d, but `%s` receives from it once: every other sender blocks forever",
				line(g.Pos()), u.obj.Name(), line(u.make), s.name), true
		}
	}
	stop := func(b *cfg.Block) bool { return recvBlocks[b] || headers[b] }
	if ret := searchReturn(goBlock, x.at[g]+1, recvNodes, stop); ret.IsValid() {
		return l, fmt.Sprintf("the goroutine sends on `%s`, an unbuffered channel made at line %d, but `%s` can return at line %d without receiving from it: the send blocks forever and the goroutine leaks",
			u.obj.Name(), line(u.make), s.name, line(ret)), true
	}
	if multi {
		// From each receive inside a loop, a return that does not go back through the loop's
		// header leaves the senders not yet received from blocked.
		for _, r := range u.receives {
			h := cfgLoopHeader(s.graph, r.loop)
			if h == nil {
				continue
			}
			var start *cfg.Block
			from := 0
			switch {
			case r.clause != nil:
				for b := range recvBlocks {
					if b.Stmt == r.clause {
						start = b
					}
				}
			case isRange(r.expr):
				for _, b := range s.graph.Blocks {
					if b.Kind == cfg.KindRangeBody && b.Stmt == r.expr {
						start = b
					}
				}
			default:
				if n := x.nodeHolding(s.graph, r.expr.Pos()); n != nil {
					start, from = x.block[n], x.at[n]+1
				}
			}
			if start == nil {
				continue
			}
			if ret := searchReturn(start, from, nil, func(b *cfg.Block) bool { return b == h }); ret.IsValid() {
				return l, fmt.Sprintf("goroutines are started per iteration (line %d) to send on `%s`, an unbuffered channel made at line %d, but `%s` can return at line %d after receiving from only some of them: the rest block forever",
					line(g.Pos()), u.obj.Name(), line(u.make), s.name, line(ret)), true
			}
		}
	}
	return leak{}, "", false
}

func isRange(n ast.Node) bool { _, ok := n.(*ast.RangeStmt); return ok }

// cfgLoopHeader is the block that decides whether a loop runs again.
func cfgLoopHeader(g *cfg.CFG, loop ast.Stmt) *cfg.Block {
	if loop == nil {
		return nil
	}
	var body *cfg.Block
	for _, b := range g.Blocks {
		if b.Stmt != loop {
			continue
		}
		switch b.Kind {
		case cfg.KindForLoop, cfg.KindRangeLoop:
			return b
		case cfg.KindForBody:
			body = b // a for loop without a condition loops back to its body
		}
	}
	return body
}

// cycleAvoiding reports whether b can run again after itself without passing through avoid (a go
// statement in a loop that does not make a new channel per iteration).
func cycleAvoiding(b, avoid *cfg.Block) bool {
	seen := map[*cfg.Block]bool{}
	queue := append([]*cfg.Block(nil), b.Succs...)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == b {
			return true
		}
		if seen[n] || n == avoid {
			continue
		}
		seen[n] = true
		queue = append(queue, n.Succs...)
	}
	return false
}

// searchReturn looks for a return reachable from node index from of block start that passes no
// node of barrier and enters no block stop accepts; it returns the return's position.
func searchReturn(start *cfg.Block, from int, barrier map[ast.Node]bool, stop func(*cfg.Block) bool) token.Pos {
	type item struct {
		b    *cfg.Block
		from int
	}
	seen := map[*cfg.Block]bool{}
	queue := []item{{start, from}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		blocked := false
		for _, n := range it.b.Nodes[min(it.from, len(it.b.Nodes)):] {
			if barrier[n] {
				blocked = true
				break
			}
			if r, ok := n.(*ast.ReturnStmt); ok {
				return r.Pos()
			}
		}
		if blocked {
			continue
		}
		for _, s := range it.b.Succs {
			if !seen[s] && !stop(s) {
				seen[s] = true
				queue = append(queue, item{s, 0})
			}
		}
	}
	return token.NoPos
}
