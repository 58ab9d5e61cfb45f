package evidence

import (
	"go/token"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// RuleTimerPerIteration is the rule of timerPerIterationAnalyzer.
const RuleTimerPerIteration = "timer-per-iteration"

// timerPerIterationAnalyzer finds a timer made by time.After (see timerMakers) on every iteration
// of a loop that waits on it in a select with other cases: each wakeup by another case leaves
// the timer live until it fires, so a busy loop piles up timers (and the deadline restarts on
// every iteration). Loops are the control-flow graph's cycles, so a loop made with goto counts.
// Modules from Go 1.23 on are left alone (see timersCollected).
var timerPerIterationAnalyzer = &analysis.Analyzer{
	Name:     RuleTimerPerIteration,
	Doc:      "report time.After evaluated on every iteration of a loop that waits on it in a select with other cases",
	Requires: []*analysis.Analyzer{buildssa.Analyzer},
	Run:      runTimerPerIteration,
}

func runTimerPerIteration(pass *analysis.Pass) (any, error) {
	if !timersLeak(pass) {
		return nil, nil
	}
	for _, fn := range ssaFuncs(pass) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				c, ok := instr.(*ssa.Call)
				if !ok || !timerMakers[staticName(&c.Call)] {
					continue
				}
				sel, timer := waitingSelect(c)
				if sel == nil || !reachable(b, b, nil) || !(after(c, sel) && after(sel, c)) || !otherCaseLoops(fn, sel, timer, b) {
					continue
				}
				line := func(p token.Pos) int { return pass.Fset.Position(p).Line }
				pass.Reportf(c.Pos(), "line %d: %s makes a new timer on every iteration of the loop that waits on it in the select at line %d; "+
					"each time another case wins, the timer stays live until it fires, so a busy loop piles up timers (and memory) for the whole duration",
					line(c.Pos()), staticName(&c.Call), line(posOr(sel.Pos(), c.Pos())))
			}
		}
	}
	return nil, nil
}

// waitingSelect is the select that receives from the channel v (directly or through a variable
// merged at a join) among other cases, nil when there is none; with the values holding v.
func waitingSelect(v ssa.Value) (*ssa.Select, map[ssa.Value]bool) {
	seen := map[ssa.Value]bool{}
	work := []ssa.Value{v}
	for len(work) > 0 {
		x := work[0]
		work = work[1:]
		if seen[x] || x.Referrers() == nil {
			continue
		}
		seen[x] = true
		for _, r := range *x.Referrers() {
			switch u := r.(type) {
			case *ssa.Phi:
				work = append(work, u)
			case *ssa.ChangeType:
				work = append(work, u)
			case *ssa.Select:
				if len(u.States) > 1 || !u.Blocking {
					return u, seen
				}
			}
		}
	}
	return nil, nil
}

// otherCaseLoops reports whether a case of sel other than the timer's (or its default) goes on
// to the block that makes the timer again: a wakeup that leaves the timer behind.
func otherCaseLoops(fn *ssa.Function, sel *ssa.Select, timer map[ssa.Value]bool, maker *ssa.BasicBlock) bool {
	if !sel.Blocking {
		return true
	}
	for k, body := range selectBodies(fn, sel) {
		if !timer[sel.States[k].Chan] && (body == maker || reachable(body, maker, nil)) {
			return true
		}
	}
	return false
}
