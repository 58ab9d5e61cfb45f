package evidence

import (
	"fmt"
	"go/token"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// RuleCapturedRace is the rule of capturedRaceAnalyzer.
const RuleCapturedRace = "captured-var-race"

// capturedRaceAnalyzer finds a local variable that a function literal run as a goroutine (go
// func(){…}(), or go f() for a literal f) assigns while another goroutine may use it: the same
// literal started twice (two go statements one after the other, or one in a loop over a variable
// declared outside it), two literals both started, or the starting function itself reading or
// assigning the variable after the go statement with nothing synchronising in between (a receive,
// a select, a Wait or a Lock). A literal that locks anything is taken as synchronised.
var capturedRaceAnalyzer = &analysis.Analyzer{
	Name:     RuleCapturedRace,
	Doc:      "report a captured variable assigned by a goroutine's function literal while another goroutine (or the function that started it) uses it without synchronisation",
	Requires: []*analysis.Analyzer{buildssa.Analyzer},
	Run:      runCapturedRace,
}

// goWrite is one assignment of a captured variable by a goroutine's literal.
type goWrite struct {
	g   *ssa.Go
	mc  *ssa.MakeClosure
	pos token.Pos
}

func runCapturedRace(pass *analysis.Pass) (any, error) {
	for _, fn := range ssaFuncs(pass) {
		writes := map[*ssa.Alloc][]goWrite{}
		var order []*ssa.Alloc
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				g, ok := instr.(*ssa.Go)
				if !ok {
					continue
				}
				mc, ok := g.Call.Value.(*ssa.MakeClosure)
				if !ok {
					continue
				}
				for alloc, pos := range closureWrites(mc) {
					if writes[alloc] == nil {
						order = append(order, alloc)
					}
					writes[alloc] = append(writes[alloc], goWrite{g: g, mc: mc, pos: pos})
				}
			}
		}
		for _, alloc := range order {
			if why, ok := raceWith(alloc, writes[alloc]); ok {
				w := writes[alloc][0]
				line := func(p token.Pos) int { return pass.Fset.Position(p).Line }
				pass.Reportf(w.pos, "line %d: `%s` is captured by the goroutine started at line %d and assigned here, while %s; "+
					"unsynchronised access to one variable from two goroutines is a data race: the value read can be stale or torn (an error lost, a nil seen), and the race detector fails the test that runs it",
					line(w.pos), alloc.Comment, line(w.g.Pos()), why(line))
			}
		}
	}
	return nil, nil
}

// closureWrites are the variables of the starting function that the literal of mc assigns, with
// the first assignment's position; none when the literal locks anything.
func closureWrites(mc *ssa.MakeClosure) map[*ssa.Alloc]token.Pos {
	anon, ok := mc.Fn.(*ssa.Function)
	if !ok || locks(anon) {
		return nil
	}
	out := map[*ssa.Alloc]token.Pos{}
	for i, fv := range anon.FreeVars {
		alloc, ok := mc.Bindings[i].(*ssa.Alloc)
		if !ok || fv.Referrers() == nil {
			continue
		}
		for _, r := range *fv.Referrers() {
			if st, ok := r.(*ssa.Store); ok && st.Addr == fv {
				if _, seen := out[alloc]; !seen {
					out[alloc] = posOr(st.Pos(), anon.Pos())
				}
			}
		}
	}
	return out
}

// locks reports whether fn calls a Lock method (its assignments are then taken as guarded).
func locks(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if c, ok := instr.(ssa.CallInstruction); ok && isSyncCall(c) {
				return true
			}
		}
	}
	return false
}

// raceWith says with what the goroutines' assignments of alloc race, if they do.
func raceWith(alloc *ssa.Alloc, ws []goWrite) (func(line func(token.Pos) int) string, bool) {
	for i := range ws {
		for j := range ws {
			if i == j || ws[i].g == ws[j].g || !after(ws[i].g, ws[j].g) {
				continue
			}
			a, b := ws[i], ws[j]
			if a.mc.Fn == b.mc.Fn {
				return func(line func(token.Pos) int) string {
					return fmt.Sprintf("the go statement at line %d starts the same literal again, and the two run at once", line(b.g.Pos()))
				}, true
			}
			return func(line func(token.Pos) int) string {
				return fmt.Sprintf("the goroutine started at line %d assigns it too (line %d), and the two run at once", line(b.g.Pos()), line(b.pos))
			}, true
		}
	}
	for _, w := range ws {
		g := w.g
		if alloc.Block() != nil && alloc.Block() != g.Block() && reachable(g.Block(), g.Block(), func(b *ssa.BasicBlock) bool { return b == alloc.Block() }) {
			return func(func(token.Pos) int) string {
				return "the go statement runs on every iteration of a loop, so the goroutines of several iterations assign the one variable at once"
			}, true
		}
		if use := unsyncedUse(alloc, g); use != nil {
			return func(line func(token.Pos) int) string {
				return fmt.Sprintf("the function that started it uses the variable at line %d with nothing (a receive, a Wait, a Lock) in between", line(posOr(use.Pos(), g.Pos())))
			}, true
		}
	}
	return nil, false
}

// unsyncedUse is a read or assignment of alloc by its own function that can run after g with no
// synchronising instruction (see isSyncCall) on the way.
func unsyncedUse(alloc *ssa.Alloc, g *ssa.Go) ssa.Instruction {
	if alloc.Referrers() == nil {
		return nil
	}
	syncs := func(b *ssa.BasicBlock, from, to int) bool {
		for _, in := range b.Instrs[from:to] {
			if isSyncCall(in) {
				return true
			}
		}
		return false
	}
	gi := instrIndex(g)
	for _, r := range *alloc.Referrers() {
		switch u := r.(type) {
		case *ssa.UnOp:
			if u.Op != token.MUL {
				continue
			}
		case *ssa.Store:
			if u.Addr != alloc {
				continue
			}
		default:
			continue
		}
		b := r.Block()
		if b == g.Block() && instrIndex(r) > gi {
			if !syncs(b, gi+1, instrIndex(r)) {
				return r
			}
			continue
		}
		if syncs(g.Block(), gi+1, len(g.Block().Instrs)) || syncs(b, 0, instrIndex(r)) {
			continue
		}
		if reachable(g.Block(), b, func(x *ssa.BasicBlock) bool { return syncs(x, 0, len(x.Instrs)) }) {
			return r
		}
	}
	return nil
}
