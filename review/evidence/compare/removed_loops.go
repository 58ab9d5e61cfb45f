package compare

import (
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// This file holds the part of the base/head comparison (removed.go) that finds work the change
// moved into a loop: a call base made once (or once per outer iteration) that head makes on
// every iteration of a loop, with inputs that do not depend on that loop. The hoisting base did
// is what the change removed. In JavaScript a callback passed to an array's iteration method
// (xs.some(f), xs.map(f)) is a loop over xs whose variables are the callback's parameters
// (jsIterationMethods).

// loopDepth returns the loops that enclose node i, innermost first.
func loopDepth(fn *irFunc, i int) []int {
	var out []int
	for _, a := range fn.ancestors(i) {
		if fn.Nodes[a].Kind == kindLoop {
			out = append(out, a)
		}
	}
	return out
}

// variant returns the names that vary with the iterations of loop when node at runs: the
// loop's variables, what the loop's statements compute from them (carried to later
// iterations), except names a statement before at redefines from invariant inputs in the same
// iteration (labels := LabelSet{} is fresh and the same on every iteration).
func variant(fn *irFunc, loop, at int) map[string]bool {
	v := map[string]bool{}
	for _, d := range fn.Nodes[loop].Defs {
		v[d] = true
	}
	reads := func(n *irNode) bool {
		for _, u := range n.Uses {
			if v[u] {
				return true
			}
		}
		return false
	}
	inside := func(i int) bool { return i > loop && fn.within(i, loop) }
	// a value a call returns inside the loop may differ on each iteration (chunk =
	// reader(16384)); a constructor's does not
	fresh := func(n *irNode) bool {
		for _, call := range n.Calls {
			if !constructors[call.name()] {
				return false
			}
		}
		return true
	}
	for i, n := range fn.Nodes {
		if inside(i) && !fresh(n) {
			for _, d := range n.Defs {
				v[d] = true
			}
		}
	}
	// carried: what any statement of the loop computes from its variables
	for changed := true; changed; {
		changed = false
		for i, n := range fn.Nodes {
			if !inside(i) || !reads(n) {
				continue
			}
			for _, d := range n.Defs {
				if !v[d] {
					v[d], changed = true, true
				}
			}
		}
	}
	for _, d := range fn.Nodes[loop].Defs {
		v[d] = true
	}
	// in this iteration, up to at, in order: a fresh definition from invariant inputs makes a
	// name invariant, a definition from variant inputs variant again
	for i, n := range fn.Nodes {
		if i >= at {
			break
		}
		if !inside(i) {
			continue
		}
		if reads(n) || !fresh(n) {
			for _, d := range n.Defs {
				v[d] = true
			}
			continue
		}
		if n.Kind != kindAssign {
			continue
		}
		for _, d := range n.Defs {
			if redefines(n.Text, d) {
				delete(v, d)
			}
		}
	}
	return v
}

// constructors make a new, empty value: the same on every iteration.
var constructors = map[string]bool{"make": true, "new": true, "dict": true, "list": true, "set": true, "Object": true, "Map": true, "Set": true, "Array": true}

// redefines reports whether an assignment's text binds name afresh (name := ..., name = ...,
// var/let/const name = ...), not through an index or a field.
func redefines(text, name string) bool {
	for _, kw := range []string{"var ", "let ", "const "} {
		text = strings.TrimPrefix(text, kw)
	}
	rest, ok := strings.CutPrefix(text, name)
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	return strings.HasPrefix(rest, ":=") || strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==")
}

func (f *irFunc) within(i, p int) bool {
	for _, a := range f.ancestors(i) {
		if a == p {
			return true
		}
	}
	return false
}

// costly reports whether a call does work worth hoisting: a sink (I/O, a query), or a function
// of the change that reaches one, has a loop or a dozen statements.
func (c *sideComparison) costly(call irCall, from *irFunc) bool {
	if callSink(call, from.file.Imports) != "" {
		return true
	}
	fn := c.head.resolve(call.Callee, from)
	if fn == nil {
		return false
	}
	if len(fn.Nodes) >= 12 || len(c.sinks(fn, 1)) > 0 {
		return true
	}
	for _, n := range fn.Nodes {
		if n.Kind == kindLoop {
			return true
		}
	}
	return false
}

// intoLoops reports calls the change moved into a loop whose iterations do not change their
// inputs.
func (c *sideComparison) intoLoops(p *fnPair) {
	depthIn := map[string]int{} // the deepest loop depth base calls each callee at
	for i, n := range p.b.Nodes {
		d := len(loopDepth(p.b, i))
		for _, call := range n.Calls {
			if old, ok := depthIn[call.Callee]; !ok || d > old {
				depthIn[call.Callee] = d
			}
		}
	}
	for j, hn := range p.h.Nodes {
		if !p.added[j] && !p.hChanged[j] {
			continue
		}
		loops := loopDepth(p.h, j)
		for _, call := range hn.Calls {
			was, ok := depthIn[call.Callee]
			if !ok || len(loops) <= was || call.Outer >= 0 || !c.costly(call, p.h) {
				continue
			}
			// the loops head added around the call: the innermost len(loops)-was of them
			inner := loops[:len(loops)-was]
			invariant := true
			for _, l := range inner {
				v := variant(p.h, l, j)
				for _, a := range call.Args {
					for name := range v {
						if mentionsName(a, name) {
							invariant = false
						}
					}
				}
				if v[dottedRoot(call.Callee)] {
					invariant = false
				}
			}
			if !invariant {
				continue
			}
			loop := p.h.Nodes[inner[len(inner)-1]]
			what := fmt.Sprintf("the hoisting of `%s`", scan.Clip(call.Text, 100))
			tail := fmt.Sprintf(" in %s: head calls it on every iteration of the loop at line %d (`%s`) with inputs that loop does not change, repeating the same work per item", p.h.Name, loop.Line, scan.Clip(loop.Text, 80))
			c.report(rules.RuleWorkIntoLoop, voting.SeverityMedium, p.h.file.Path, hn.Line, what, tail)
		}
	}
}
