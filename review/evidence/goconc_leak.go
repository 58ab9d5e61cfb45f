package evidence

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// RuleGoroutineLeak is the rule of goroutineLeakAnalyzer.
const RuleGoroutineLeak = "goroutine-leak"

// goroutineLeakAnalyzer finds an unbuffered channel that a function makes, that a goroutine it
// starts sends on (a plain send, not a select case), and that the function can stop waiting on:
// a path from the go statement returns without receiving from the channel (an early return, or
// the other case of a select: a timeout, ctx.Done()). The send then blocks forever and the
// goroutine leaks with all it holds. A channel handed to anything else (a call, a field, another
// literal not started as a goroutine, a result) may be received elsewhere and is left alone.
var goroutineLeakAnalyzer = &analysis.Analyzer{
	Name:     RuleGoroutineLeak,
	Doc:      "report a goroutine that sends on an unbuffered channel its starting function can return without receiving from",
	Requires: []*analysis.Analyzer{buildssa.Analyzer},
	Run:      runGoroutineLeak,
}

func runGoroutineLeak(pass *analysis.Pass) (any, error) {
	for _, fn := range ssaFuncs(pass) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				mk, ok := instr.(*ssa.MakeChan)
				if !ok || !unbuffered(mk) {
					continue
				}
				g, send, vals, ok := goSender(mk)
				if !ok {
					continue
				}
				if ret := returnWithoutReceive(fn, vals, g); ret != nil {
					line := func(p token.Pos) int { return pass.Fset.Position(p).Line }
					pass.Reportf(mk.Pos(), "line %d: the channel made here is unbuffered; the goroutine started at line %d sends on it (line %d), "+
						"but the path that returns at line %d no longer receives from it, so that send blocks forever and the goroutine leaks, with all it holds, on every such call",
						line(mk.Pos()), line(g.Pos()), line(posOr(send.Pos(), g.Pos())), line(posOr(ret.Pos(), fn.Pos())))
				}
			}
		}
	}
	return nil, nil
}

// unbuffered reports whether mk makes a channel of constant size 0.
func unbuffered(mk *ssa.MakeChan) bool {
	c, ok := mk.Size.(*ssa.Const)
	if !ok || c.Value == nil {
		return false
	}
	n, exact := constant.Int64Val(constant.ToInt(c.Value))
	return exact && n == 0
}

// chanVals are the values of mk's function that hold its channel: mk, and the loads of the
// variable it is kept in when it is kept in one that nothing else is assigned to (a variable a
// literal captures). cell is that variable; false when the channel is kept elsewhere too.
func chanVals(mk *ssa.MakeChan) (vals map[ssa.Value]bool, cell *ssa.Alloc, ok bool) {
	vals = map[ssa.Value]bool{mk: true}
	for _, r := range *mk.Referrers() {
		if st, isStore := r.(*ssa.Store); isStore && st.Val == mk {
			a, isAlloc := st.Addr.(*ssa.Alloc)
			if !isAlloc || cell != nil {
				return nil, nil, false
			}
			cell = a
		}
	}
	if cell == nil {
		return vals, nil, true
	}
	for _, r := range *cell.Referrers() {
		switch u := r.(type) {
		case *ssa.Store:
			if u.Val != mk || u.Addr != cell {
				return nil, nil, false
			}
		case *ssa.UnOp:
			if u.Op != token.MUL {
				return nil, nil, false
			}
			vals[u] = true
		case *ssa.MakeClosure, *ssa.DebugRef:
		default:
			return nil, nil, false
		}
	}
	return vals, cell, true
}

// goSender finds the goroutine that sends on mk's channel with a plain send, when the channel goes
// nowhere but receives, selects, sends, close and the goroutines the function starts.
func goSender(mk *ssa.MakeChan) (*ssa.Go, *ssa.Send, map[ssa.Value]bool, bool) {
	vals, cell, ok := chanVals(mk)
	if !ok {
		return nil, nil, nil, false
	}
	var g *ssa.Go
	var send *ssa.Send
	var users []ssa.Instruction
	for v := range vals {
		users = append(users, *v.Referrers()...)
	}
	if cell != nil {
		users = append(users, *cell.Referrers()...)
	}
	for _, r := range users {
		switch u := r.(type) {
		case *ssa.MakeClosure:
			started := startedBy(u)
			if started == nil {
				return nil, nil, nil, false
			}
			s, ok := sendsIn(u, mk, cell)
			if !ok {
				return nil, nil, nil, false
			}
			if s != nil && send == nil {
				g, send = started, s
			}
		default:
			if !chanUse(r, vals, cell) {
				return nil, nil, nil, false
			}
		}
	}
	return g, send, vals, send != nil
}

// chanUse reports whether instr only uses a channel (a receive, a select, a send, a builtin such
// as close or len) or keeps it in its own variable.
func chanUse(instr ssa.Instruction, vals map[ssa.Value]bool, cell *ssa.Alloc) bool {
	switch u := instr.(type) {
	case *ssa.UnOp:
		return u.Op == token.ARROW || u.Op == token.MUL && u.X == cell
	case *ssa.Select, *ssa.Send, *ssa.DebugRef:
		return true
	case *ssa.Store:
		return u.Addr == cell
	case ssa.CallInstruction:
		_, ok := u.Common().Value.(*ssa.Builtin)
		return ok
	}
	return false
}

// startedBy is the go statement that starts the literal of mc, nil when it is used otherwise.
func startedBy(mc *ssa.MakeClosure) *ssa.Go {
	var g *ssa.Go
	for _, r := range *mc.Referrers() {
		switch u := r.(type) {
		case *ssa.Go:
			if u.Call.Value != mc {
				return nil
			}
			g = u
		case *ssa.DebugRef:
		default:
			return nil
		}
	}
	return g
}

// sendsIn is the plain send on mk's channel in the literal of mc (nil when it has none); false
// when the literal hands the channel on or assigns its variable.
func sendsIn(mc *ssa.MakeClosure, mk *ssa.MakeChan, cell *ssa.Alloc) (*ssa.Send, bool) {
	anon, ok := mc.Fn.(*ssa.Function)
	if !ok {
		return nil, false
	}
	var send *ssa.Send
	for i, fv := range anon.FreeVars {
		if b := mc.Bindings[i]; b != mk && (cell == nil || b != cell) || fv.Referrers() == nil {
			continue
		}
		vals := map[ssa.Value]bool{fv: true}
		for _, r := range *fv.Referrers() {
			if u, ok := r.(*ssa.UnOp); ok && u.Op == token.MUL && mc.Bindings[i] == cell {
				vals[u] = true
			}
		}
		for v := range vals {
			for _, r := range *v.Referrers() {
				if u, ok := r.(*ssa.Send); ok && send == nil {
					send = u
				}
				if u, ok := r.(*ssa.UnOp); ok && u.Op == token.MUL && u.X == fv {
					continue
				}
				if !chanUse(r, vals, nil) {
					return nil, false
				}
			}
		}
	}
	return send, true
}

// returnWithoutReceive is a return of fn that a path from g reaches without receiving from mk.
func returnWithoutReceive(fn *ssa.Function, vals map[ssa.Value]bool, g *ssa.Go) *ssa.Return {
	received := receiptBlocks(fn, vals)
	for _, in := range g.Block().Instrs[instrIndex(g)+1:] {
		if u, ok := in.(*ssa.UnOp); ok && u.Op == token.ARROW && vals[u.X] {
			return nil
		}
	}
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || received[b] {
			continue
		}
		if b == g.Block() || reachable(g.Block(), b, func(x *ssa.BasicBlock) bool { return received[x] }) {
			return ret
		}
	}
	return nil
}

// receiptBlocks are the blocks of fn that receive from mk: a receive (or a range over it), or
// the case of a select that receives from it.
func receiptBlocks(fn *ssa.Function, vals map[ssa.Value]bool) map[*ssa.BasicBlock]bool {
	out := map[*ssa.BasicBlock]bool{}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch u := instr.(type) {
			case *ssa.UnOp:
				if u.Op == token.ARROW && vals[u.X] {
					out[b] = true
				}
			case *ssa.If:
				if body := selectCase(u, vals); body != nil {
					out[body] = true
				}
			}
		}
	}
	return out
}

// selectCase is the block of the select case that receives from the channel vals hold when
// cond tests that a select chose it, nil otherwise.
func selectCase(cond *ssa.If, vals map[ssa.Value]bool) *ssa.BasicBlock {
	sel, k := selectTest(cond)
	if sel == nil {
		return nil
	}
	if st := sel.States[k]; st.Dir == types.RecvOnly && vals[st.Chan] {
		return cond.Block().Succs[0]
	}
	return nil
}

// selectTest is the select and the case index k when cond tests that the select chose case k
// (if t == k, t the select's index); nil otherwise.
func selectTest(cond *ssa.If) (*ssa.Select, int) {
	eq, ok := cond.Cond.(*ssa.BinOp)
	if !ok || eq.Op != token.EQL {
		return nil, 0
	}
	ex, ok := eq.X.(*ssa.Extract)
	k, ok2 := eq.Y.(*ssa.Const)
	if !ok || !ok2 || ex.Index != 0 || k.Value == nil {
		return nil, 0
	}
	sel, ok := ex.Tuple.(*ssa.Select)
	if !ok {
		return nil, 0
	}
	i, exact := constant.Int64Val(constant.ToInt(k.Value))
	if !exact || i < 0 || int(i) >= len(sel.States) {
		return nil, 0
	}
	return sel, int(i)
}

// selectBodies are the first blocks of the cases of sel, by case index.
func selectBodies(fn *ssa.Function, sel *ssa.Select) map[int]*ssa.BasicBlock {
	out := map[int]*ssa.BasicBlock{}
	for _, b := range fn.Blocks {
		if cond, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok {
			if s, k := selectTest(cond); s == sel {
				out[k] = b.Succs[0]
			}
		}
	}
	return out
}
