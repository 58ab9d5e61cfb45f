package evidence

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// RulePoolUseAfterPut is the rule of poolUseAfterPutAnalyzer.
const RulePoolUseAfterPut = "pool-use-after-put"

// poolUseAfterPutAnalyzer finds a value put back into a pool (see poolPuts, or a function of the
// package that puts its parameter there) while the function still uses it: it returns the value
// or memory taken from it (buf.Bytes(), a slice of it, a field's address) past a deferred Put, or
// uses either after the Put. The pool hands the value to the next caller, who overwrites what
// this one still reads.
var poolUseAfterPutAnalyzer = &analysis.Analyzer{
	Name:     RulePoolUseAfterPut,
	Doc:      "report a pooled value (or memory taken from it) used or returned after it is put back into its pool",
	Requires: []*analysis.Analyzer{buildssa.Analyzer},
	Run:      runPoolUseAfterPut,
}

// releasers are the package's functions that put a parameter back into a pool, by the index of
// that parameter.
type releasers map[*ssa.Function]int

func runPoolUseAfterPut(pass *analysis.Pass) (any, error) {
	fns := ssaFuncs(pass)
	rel := findReleasers(fns)
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				c, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				if v := rel.released(c); v != nil {
					reportUseAfterPut(pass, fn, c, v, rel)
				}
			}
		}
	}
	return nil, nil
}

// findReleasers finds the functions that put a parameter into a pool, directly or through another
// such function.
func findReleasers(fns []*ssa.Function) releasers {
	rel := releasers{}
	for changed := true; changed; {
		changed = false
		for _, fn := range fns {
			if _, ok := rel[fn]; ok {
				continue
			}
			for _, b := range fn.Blocks {
				for _, instr := range b.Instrs {
					c, ok := instr.(ssa.CallInstruction)
					if !ok {
						continue
					}
					if p, ok := rel.released(c).(*ssa.Parameter); ok && p.Parent() == fn {
						for i, q := range fn.Params {
							if q == p {
								rel[fn], changed = i, true
							}
						}
					}
				}
			}
		}
	}
	return rel
}

// released is the value the call puts back into a pool, nil when it puts none.
func (rel releasers) released(c ssa.CallInstruction) ssa.Value {
	com := c.Common()
	if com.IsInvoke() || len(com.Args) == 0 {
		return nil
	}
	if poolPuts[staticName(com)] {
		return unwrap(com.Args[len(com.Args)-1])
	}
	if f := com.StaticCallee(); f != nil {
		if i, ok := rel[f]; ok && i < len(com.Args) {
			return unwrap(com.Args[i])
		}
	}
	return nil
}

// reportUseAfterPut reports the returns (past a deferred put) or the uses (after a put) of v or
// of memory taken from it.
func reportUseAfterPut(pass *analysis.Pass, fn *ssa.Function, put ssa.CallInstruction, v ssa.Value, rel releasers) {
	taken := takenFrom(v)
	line := func(p token.Pos) int { return pass.Fset.Position(p).Line }
	name := putArg(pass, put.Common().Pos())
	if d, ok := put.(*ssa.Defer); ok {
		for _, b := range fn.Blocks {
			ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
			if !ok || !after(d, ret) {
				continue
			}
			for _, r := range ret.Results {
				if taken[unwrap(resultValue(ret, r))] && refersToMemory(r.Type()) {
					pass.Reportf(posOr(ret.Pos(), d.Pos()), "line %d: returns memory of the pooled value `%s`, which the deferred call at line %d puts back into its pool as the function returns; "+
						"the next caller that takes it from the pool overwrites what this caller still reads (two requests sharing one buffer)",
						line(posOr(ret.Pos(), d.Pos())), name, line(d.Pos()))
					return
				}
			}
		}
		return
	}
	if use := useAfter(put, v, taken, rel); use != nil {
		pass.Reportf(posOr(use.Pos(), put.Pos()), "line %d: uses the pooled value `%s` (or memory taken from it) after line %d put it back into its pool; "+
			"another goroutine may already have taken it and be writing to it", line(posOr(use.Pos(), put.Pos())), name, line(put.Pos()))
	}
}

// takenFrom is v and the values that refer to its memory: slices of it, its fields' and
// elements' addresses, and results of its methods that are slices, pointers or maps
// (bytes.Buffer.Bytes), transitively.
func takenFrom(v ssa.Value) map[ssa.Value]bool {
	out := map[ssa.Value]bool{v: true}
	work := []ssa.Value{v}
	for len(work) > 0 {
		x := work[0]
		work = work[1:]
		if x.Referrers() == nil {
			continue
		}
		for _, r := range *x.Referrers() {
			var y ssa.Value
			switch u := r.(type) {
			case *ssa.Slice:
				y = u
			case *ssa.FieldAddr:
				y = u
			case *ssa.IndexAddr:
				y = u
			case *ssa.ChangeType:
				y = u
			case *ssa.Call:
				if !u.Call.IsInvoke() && len(u.Call.Args) > 0 && u.Call.Args[0] == x && u.Call.Signature().Recv() != nil && refersToMemory(u.Type()) {
					y = u
				}
			}
			if y != nil && !out[y] {
				out[y] = true
				work = append(work, y)
			}
		}
	}
	return out
}

// refersToMemory reports whether a value of type t refers to memory it does not own a copy of.
func refersToMemory(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Slice, *types.Pointer, *types.Map:
		return true
	}
	return false
}

// useAfter is an instruction that can run after put and uses one of the values taken, without
// taking them anew on the way; nil when there is none. Other puts of the value are not uses.
func useAfter(put ssa.CallInstruction, v ssa.Value, taken map[ssa.Value]bool, rel releasers) ssa.Instruction {
	defs := map[*ssa.BasicBlock]bool{}
	for x := range taken {
		if in, ok := x.(ssa.Instruction); ok {
			defs[in.Block()] = true
		}
	}
	pb, pi := put.Block(), instrIndex(put)
	for x := range taken {
		for _, u := range *x.Referrers() {
			if _, ok := u.(*ssa.DebugRef); ok || u == put {
				continue
			}
			if c, ok := u.(ssa.CallInstruction); ok && rel.released(c) == v {
				continue
			}
			ub := u.Block()
			if ub == pb && instrIndex(u) > pi {
				return u
			}
			if defs[ub] {
				continue // reached again only by taking the value anew
			}
			if reachable(pb, ub, func(b *ssa.BasicBlock) bool { return defs[b] }) {
				return u
			}
		}
	}
	return nil
}

// resultValue is the value a return gives back as r: in a function with deferred calls the
// results go through variables, so r is a load of the value last stored there before the return.
func resultValue(ret *ssa.Return, r ssa.Value) ssa.Value {
	load, ok := r.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return r
	}
	slot, ok := load.X.(*ssa.Alloc)
	if !ok || load.Block() != ret.Block() {
		return r
	}
	instrs := ret.Block().Instrs
	for i := instrIndex(load) - 1; i >= 0; i-- {
		if st, ok := instrs[i].(*ssa.Store); ok && st.Addr == slot {
			return st.Val
		}
	}
	return r
}

// putArg is the source of the value a put at lparen (its call's opening parenthesis) gives back:
// its last argument ("b" in putBuffer(b) or pool.Put(b)).
func putArg(pass *analysis.Pass, lparen token.Pos) string {
	name := "value"
	for _, f := range pass.Files {
		if lparen < f.Pos() || lparen > f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && c.Lparen == lparen && len(c.Args) > 0 {
				name = clip(types.ExprString(c.Args[len(c.Args)-1]), 40)
			}
			return n == nil || n.Pos() <= lparen && lparen < n.End()
		})
	}
	return name
}
