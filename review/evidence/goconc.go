package evidence

import (
	"go/token"
	"go/types"
	"go/version"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// This file holds the helpers shared by the SSA-based analyses of goroutines and pooled values
// (goconc_*.go): the functions of a package, reachability between blocks, and the names of the
// calls that synchronise or release, as data in one place.

// syncMethods are the names of the methods whose call orders what follows after other goroutines'
// work (sync.WaitGroup.Wait, errgroup.Group.Wait, sync.Cond.Wait, sync.Mutex.Lock and the like):
// an access after one is taken as synchronised.
var syncMethods = map[string]bool{"Wait": true, "Lock": true, "RLock": true, "Do": true}

// poolPuts are the calls that put a value back into a pool for reuse; a function of the package
// that hands its parameter to one of them releases it too.
var poolPuts = map[string]bool{
	"(*sync.Pool).Put":                                  true,
	"github.com/valyala/bytebufferpool.Put":             true,
	"(*github.com/valyala/bytebufferpool.Pool).Put":     true,
	"(*github.com/oxtoacart/bpool.BufferPool).Put":      true,
	"(*github.com/oxtoacart/bpool.BytePool).Put":        true,
	"(*github.com/oxtoacart/bpool.SizedBufferPool).Put": true,
}

// timerMakers are the calls that arm a timer the caller can neither stop nor reuse: one made on
// every iteration of a loop stays live until it fires (before Go 1.23, see timersCollected).
var timerMakers = map[string]bool{"time.After": true}

// timersCollected is the Go version from which an unreferenced timer is collected before it fires,
// so a time.After left behind costs nothing once its select is gone.
const timersCollected = "go1.23"

// ssaFuncs are the package's functions with a body outside tests: declarations, methods, function
// literals, and the literals of package-level variables (anonymous functions of init).
func ssaFuncs(pass *analysis.Pass) []*ssa.Function {
	s, ok := pass.ResultOf[buildssa.Analyzer].(*buildssa.SSA)
	if !ok || s == nil {
		return nil
	}
	seen := map[*ssa.Function]bool{}
	var out []*ssa.Function
	var add func(f *ssa.Function)
	add = func(f *ssa.Function) {
		if f == nil || seen[f] {
			return
		}
		seen[f] = true
		if f.Blocks != nil && (f.Pos() == token.NoPos || !inTestFile(pass.Fset, f.Pos())) {
			out = append(out, f)
		}
		for _, a := range f.AnonFuncs {
			add(a)
		}
	}
	for _, f := range s.SrcFuncs {
		add(f)
	}
	if s.Pkg != nil {
		add(s.Pkg.Func("init"))
	}
	return out
}

// staticName is the full name of the function a call statically calls ("time.After",
// "(*sync.Pool).Put"), or "" for a dynamic call or a builtin.
func staticName(c *ssa.CallCommon) string {
	if f := c.StaticCallee(); f != nil {
		if f.Object() != nil {
			if fn, ok := f.Object().(*types.Func); ok {
				return fn.FullName()
			}
		}
		return f.String()
	}
	return ""
}

// isSyncCall reports whether instr synchronises with other goroutines: a receive, a select, or a
// call of a method named in syncMethods.
func isSyncCall(instr ssa.Instruction) bool {
	switch in := instr.(type) {
	case *ssa.UnOp:
		return in.Op == token.ARROW
	case *ssa.Select:
		return true
	case ssa.CallInstruction:
		c := in.Common()
		if c.IsInvoke() {
			return syncMethods[c.Method.Name()]
		}
		if f := c.StaticCallee(); f != nil && f.Signature.Recv() != nil {
			return syncMethods[f.Name()]
		}
	}
	return false
}

// reachable reports whether a path leads from the end of block from to block to (to may be from
// itself, through a loop) without entering a block for which avoid reports true.
func reachable(from, to *ssa.BasicBlock, avoid func(*ssa.BasicBlock) bool) bool {
	seen := map[*ssa.BasicBlock]bool{}
	stack := append([]*ssa.BasicBlock(nil), from.Succs...)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] {
			continue
		}
		seen[b] = true
		if b == to {
			return true
		}
		if avoid != nil && avoid(b) {
			continue
		}
		stack = append(stack, b.Succs...)
	}
	return false
}

// instrIndex is the position of instr in its block.
func instrIndex(instr ssa.Instruction) int {
	for i, in := range instr.Block().Instrs {
		if in == instr {
			return i
		}
	}
	return -1
}

// after reports whether instruction b can run after instruction a in one call of their function.
func after(a, b ssa.Instruction) bool {
	if a.Block() == b.Block() && instrIndex(b) > instrIndex(a) {
		return true
	}
	return reachable(a.Block(), b.Block(), nil)
}

// posOr is p, or q when p is unknown.
func posOr(p, q token.Pos) token.Pos {
	if p.IsValid() {
		return p
	}
	return q
}

// timersLeak reports whether the package's module predates the collection of unreferenced timers
// (an unknown version counts as old: a tree without go.mod is from before modules).
func timersLeak(pass *analysis.Pass) bool {
	v := ""
	if pass.Module != nil {
		v = pass.Module.GoVersion
	}
	if v == "" {
		return true
	}
	return version.Compare("go"+v, timersCollected) < 0
}

// unwrap strips conversions to an interface or another type from v.
func unwrap(v ssa.Value) ssa.Value {
	for {
		switch c := v.(type) {
		case *ssa.MakeInterface:
			v = c.X
		case *ssa.ChangeType:
			v = c.X
		case *ssa.ChangeInterface:
			v = c.X
		default:
			return v
		}
	}
}
