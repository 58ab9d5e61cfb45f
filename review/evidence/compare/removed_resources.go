package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// This file holds the parts of the base/head comparison (removed.go) that find what the change
// removed around resources and calls: a release, a context or deadline, a restricting setting,
// an end-of-options separator, a try/catch in a callback, a hop off the event loop.

// releases reports releases (Close, cancel, unlock, a with block) the change removed while the
// resource is still acquired in head.
func (c *sideComparison) releases(p *fnPair) {
	b, h := p.b, p.h
	for i, n := range b.Nodes {
		if n.Kind == kindWith && p.bChanged[i] {
			c.withRemoved(p, i)
		}
		for _, call := range n.Calls {
			if !p.sf.f.IsRemoved(call.Line) || p.headCalls[call.Callee] {
				continue
			}
			root, ok := c.releasedBy(call, b)
			if !ok || root == "" || c.releasedInHead(p, root) {
				continue
			}
			acq := -1
			pos := p.sf.lines.head(call.Line)
			for j, hn := range h.Nodes {
				if slices.Contains(hn.Defs, root) && hn.Line <= pos && (acq < 0 || hn.Line > h.Nodes[acq].Line) {
					acq = j
				}
			}
			source := ""
			if acq < 0 {
				// the resource is a loop's element: the loop's source must still be there
				for k := range b.Nodes {
					if b.Nodes[k].Kind == kindLoop && slices.Contains(b.Nodes[k].Defs, root) {
						for _, u := range b.Nodes[k].Uses {
							if p.headMentions[u] && !noise[u] && !isImport(b, u) {
								source = u
							}
						}
					}
				}
				if slices.Contains(h.Params, root) {
					source = "the caller (a parameter this function released)"
				}
				if source == "" {
					continue
				}
			}
			if c.handedOver(p, root) {
				continue
			}
			at := acq
			unconditional := len(b.ancestors(i)) == 0
			if !unconditional || acq < 0 {
				at = anchor(p, pos, nil)
			}
			if at < 0 {
				continue
			}
			what := fmt.Sprintf("the release `%s`", scan.Clip(call.Text, 100))
			var tail string
			if acq >= 0 {
				tail = fmt.Sprintf(" while head still acquires %s at line %d (`%s`) in %s", root, h.Nodes[acq].Line, scan.Clip(h.Nodes[acq].Text, 100), h.Name)
				if !unconditional {
					tail += fmt.Sprintf("; the path through line %d no longer releases it", h.Nodes[at].Line)
				}
			} else {
				tail = fmt.Sprintf(" of each %s taken from %s, which head still holds, before line %d (`%s`) in %s", root, source, h.Nodes[at].Line, scan.Clip(h.Nodes[at].Text, 100), h.Name)
			}
			tail += ": every call leaks it (file descriptors, connections, memory) until the process runs out"
			c.report(rules.RuleReleaseRemoved, voting.SeverityMedium, h.file.Path, h.Nodes[at].Line, what, tail)
		}
	}
}

// releasedBy names the resource a call of fn releases: the receiver of a release method
// (f.close()), the argument of a module's or a plain function's release (os.close(fd)), the
// function a context's constructor returned (cancel()), or the argument a function of the
// change's base releases in its body (_try_close(out), whose body calls out.close()).
func (c *sideComparison) releasedBy(call irCall, fn *irFunc) (string, bool) {
	if !releaseNames[call.name()] {
		if k := c.releasingArg(c.base, call, fn); k >= 0 {
			return dottedRoot(call.Args[k]), true
		}
		return "", false
	}
	recv := qualifier(call.Callee)
	root := dottedRoot(call.Callee)
	switch {
	case recv == "" && definedIn(fn, root):
		return root, true // cancel(): the function a context's constructor returned
	case (recv == "" || isImport(fn, root)) && len(call.Args) > 0:
		return dottedRoot(call.Args[0]), true // os.close(fd), fs.closeSync(fd)
	case recv == "":
		return "", false // a function called cleanup(), not a resource's release
	}
	return root, true
}

// releasingArg returns the index of the argument of a call whose parameter the called function
// (found in x) releases in its body (calls a release method on it), or -1. Only small
// functions count: a helper that closes what it is given, not a routine that does much else.
func (c *sideComparison) releasingArg(x *index, call irCall, from *irFunc) int {
	if len(call.Args) == 0 {
		return -1
	}
	fn := x.resolve(call.Callee, from)
	if fn == nil || len(fn.Nodes) > 12 {
		return -1
	}
	params := fn.argParams(call)
	for _, m := range fn.Nodes {
		for _, mc := range m.Calls {
			if !releaseNames[mc.name()] || qualifier(mc.Callee) == "" {
				continue
			}
			if k := slices.Index(params, dottedRoot(mc.Callee)); k >= 0 && k < len(call.Args) {
				return k
			}
		}
	}
	return -1
}

// releasedInHead reports whether head releases root another way: a with block that binds it, a
// release call on it or with it as argument, a call of a function of head that releases it.
func (c *sideComparison) releasedInHead(p *fnPair, root string) bool {
	for _, n := range p.h.Nodes {
		if n.Kind == kindWith && slices.Contains(n.Defs, root) {
			return true
		}
		for _, call := range n.Calls {
			if !releaseNames[call.name()] {
				if k := c.releasingArg(c.head, call, p.h); k >= 0 && dottedRoot(call.Args[k]) == root {
					return true
				}
				continue
			}
			if dottedRoot(call.Callee) == root || len(call.Args) > 0 && dottedRoot(call.Args[0]) == root {
				return true
			}
		}
	}
	return false
}

func definedIn(fn *irFunc, name string) bool {
	for _, n := range fn.Nodes {
		if slices.Contains(n.Defs, name) {
			return true
		}
	}
	return false
}

// handedOver reports whether head passes the resource on to whoever releases it: it returns it
// where base did not, or passes it to a function of the change that releases its parameter.
func (c *sideComparison) handedOver(p *fnPair, root string) bool {
	for j, n := range p.h.Nodes {
		if n.Kind == kindReturn && slices.Contains(n.Uses, root) && (p.added[j] || p.hChanged[j]) {
			return true
		}
		for _, call := range n.Calls {
			if !p.added[j] && !p.hChanged[j] {
				continue
			}
			for k, a := range call.Args {
				if dottedRoot(a) != root {
					continue
				}
				if fn := c.head.resolve(call.Callee, p.h); fn != nil && k < len(fn.argParams(call)) {
					param := fn.argParams(call)[k]
					for _, m := range fn.Nodes {
						for _, mc := range m.Calls {
							if releaseNames[mc.name()] && dottedRoot(mc.Callee) == param {
								return true
							}
						}
					}
				}
			}
		}
	}
	return false
}

// withRemoved reports a Python with block the change removed while head still makes the call
// it managed, outside any with.
func (c *sideComparison) withRemoved(p *fnPair, i int) {
	bn := p.b.Nodes[i]
	for _, hn := range p.h.Nodes {
		if hn.Kind == kindWith && hn.Text == bn.Text {
			return
		}
	}
	for _, call := range bn.Calls {
		if call.Outer >= 0 {
			continue
		}
		for j, hn := range p.h.Nodes {
			if hn.Kind == kindWith || !p.hChanged[j] && !p.added[j] {
				continue
			}
			for _, hc := range hn.Calls {
				if hc.Text != call.Text {
					continue
				}
				inWith := false
				for _, a := range p.h.ancestors(j) {
					if p.h.Nodes[a].Kind == kindWith {
						inWith = true
					}
				}
				if inWith {
					continue
				}
				what := fmt.Sprintf("the `%s` block", scan.Clip(bn.Text, 100))
				tail := fmt.Sprintf(" that closed what `%s` opens; head calls it at line %d in %s without closing what it returns", scan.Clip(call.Text, 80), hn.Line, p.h.Name)
				c.report(rules.RuleReleaseRemoved, voting.SeverityMedium, p.h.file.Path, hn.Line, what, tail)
				return
			}
		}
	}
}

// stripContext returns the name of a call without its context suffix
// (NewRequestWithContext → NewRequest), or "" when it has none.
func stripContext(callee string) string {
	name := lastSegment(callee)
	for _, s := range ctxSuffixes {
		if strings.HasSuffix(name, s) && len(name) > len(s) {
			return strings.TrimSuffix(callee, s)
		}
	}
	return ""
}

// contexts reports calls that lost their context or deadline: the variant without a context
// (NewRequestWithContext → NewRequest), a context or timeout argument no longer passed, a
// timeout field no longer set on a literal that remains.
func (c *sideComparison) contexts(p *fnPair) {
	for i, j := range p.changedPairs() {
		bn, hn := p.b.Nodes[i], p.h.Nodes[j]
		for _, bc := range bn.Calls {
			ctxArg := -1
			for k, a := range bc.Args {
				if isContextArg(a) {
					ctxArg = k
				}
			}
			stripped := stripContext(bc.Callee)
			for _, hc := range hn.Calls {
				dropped := ""
				switch {
				case stripped != "" && hc.Callee == stripped && ctxArg >= 0 && !anyContext(hc.Args):
					dropped = fmt.Sprintf("`%s` became `%s`, which takes no context", bc.name(), hc.name())
				case hc.Callee == bc.Callee && ctxArg >= 0 && len(hc.Args) < len(bc.Args) && !anyContext(hc.Args) && !c.signatureDropsContext(hc, p.h):
					dropped = fmt.Sprintf("`%s` is no longer passed to `%s`", bc.Args[ctxArg], hc.Callee)
				}
				if dropped == "" {
					continue
				}
				inScope := ""
				if ctxArg >= 0 {
					if r := dottedRoot(bc.Args[ctxArg]); r != "" && p.headMentions[r] || slices.Contains(p.h.Params, r) {
						inScope = fmt.Sprintf(" although `%s` is still in scope", dottedRoot(bc.Args[ctxArg]))
					}
				}
				what := fmt.Sprintf("the context of `%s`", scan.Clip(bc.Text, 100))
				tail := fmt.Sprintf(": %s%s, so cancelling the caller or its deadline no longer stops it and a hung peer holds the goroutine, connection and memory (in %s)", dropped, inScope, p.h.Name)
				c.report(rules.RuleContextDropped, voting.SeverityMedium, p.h.file.Path, hn.Line, what, tail)
			}
		}
	}
}

// signatureDropsContext reports whether the functions of that name the change edited take no
// context any more: the API moved the context elsewhere (a client's field), and every call
// follows.
func (c *sideComparison) signatureDropsContext(call irCall, from *irFunc) bool {
	c.head.resolve(call.Callee, from) // brings in the callee's files when the trees are at hand
	edited := 0
	for _, fn := range c.head.byName[call.name()] {
		if !c.headTouched[fn] {
			continue
		}
		edited++
		for _, p := range fn.Params {
			if isContextArg(p) || strings.Contains(strings.ToLower(p), "ctx") || p == "context" {
				return false
			}
		}
	}
	return edited > 0
}

func anyContext(args []string) bool {
	for _, a := range args {
		if isContextArg(a) {
			return true
		}
	}
	return false
}

// fields reports configuration fields the change removed from a literal that head still
// builds: a timeout (context-dropped) or a setting that restricted behaviour (a CheckRedirect
// that refuses, an allow list, a limit).
func (c *sideComparison) fields(p *fnPair) {
	for i, bn := range p.b.Nodes {
		for _, f := range bn.Fields {
			if !p.sf.f.IsRemoved(f.Line) || f.Type == "" {
				continue
			}
			at, kept := -1, false
			for j, hn := range p.h.Nodes {
				for _, hf := range hn.Fields {
					if hf.Type != f.Type {
						continue
					}
					if hf.Key == f.Key {
						kept = true
					}
					if at < 0 && (p.pairs[i] == j || p.hChanged[j] || p.headPaired[j]) {
						at = j
					}
				}
				for _, d := range hn.Defs {
					if strings.HasSuffix(d, "."+f.Key) {
						kept = true
					}
				}
			}
			if kept || at < 0 {
				continue
			}
			hn := p.h.Nodes[at]
			switch {
			case isTimeoutKey(f.Key):
				what := fmt.Sprintf("the `%s` of the %s", f.Key, f.Type)
				tail := fmt.Sprintf(" built at line %d in %s: without it a slow or hung peer holds the connection and its goroutine for ever", hn.Line, p.h.Name)
				c.report(rules.RuleContextDropped, voting.SeverityMedium, p.h.file.Path, hn.Line, what, tail)
			case f.Rejects || restrictingField(f.Key, f.Value):
				hit, ok := c.flowSink(p.h, at, dropRoots(hn.Defs), true, 2)
				rule, sev := protectionRule(ok)
				what := fmt.Sprintf("the `%s` setting of the %s (`%s`)", f.Key, f.Type, scan.Clip(f.Value, 80))
				tail := fmt.Sprintf(" built at line %d in %s: it restricted what the %s does, and head builds it without", hn.Line, p.h.Name, f.Type) + sinkClause(hit, ok, p.h.file.Path)
				c.report(rule, sev, p.h.file.Path, hn.Line, what, tail)
			}
		}
	}
	// An end-of-options "--" dropped from a command's arguments (or from the list it is given).
	for i, j := range p.changedPairs() {
		for _, bc := range p.b.Nodes[i].Calls {
			bt := tokens(bc.Text)
			if indexOfLexeme(bt, `"--"`) < 0 {
				continue
			}
			for _, hc := range p.h.Nodes[j].Calls {
				if hc.Callee != bc.Callee || !dropsDashDash(bt, tokens(hc.Text)) {
					continue
				}
				hit, ok := c.sinkAfter(p.h, j)
				if callSink(bc, p.b.file.Imports) == exposeExec {
					hit, ok = sinkHit{j, exposeExec, hc.Text, hc.Line, p.h.file.Path}, true
				}
				rule, sev := protectionRule(ok)
				what := fmt.Sprintf("the end-of-options separator \"--\" from `%s`", scan.Clip(bc.Text, 100))
				tail := fmt.Sprintf(" in %s: an argument that starts with - (from a URL, a revision, a file name) is now read as an option of the command", p.h.Name) + sinkClause(hit, ok, p.h.file.Path)
				c.report(rule, sev, p.h.file.Path, p.h.Nodes[j].Line, what, tail)
			}
		}
	}
}

func indexOfLexeme(ts []lexeme, x lexeme) int {
	for i, t := range ts {
		if t == x {
			return i
		}
	}
	return -1
}

// dropsDashDash reports whether head's tokens are base's without one "--" argument (and its
// comma).
func dropsDashDash(base, head []lexeme) bool {
	for i, t := range base {
		if t != `"--"` {
			continue
		}
		for _, cut := range [][2]int{{i, i + 2}, {i - 1, i + 1}} {
			if cut[0] < 0 || cut[1] > len(base) || cut[1]-cut[0] != 2 {
				continue
			}
			if base[cut[0]] != "," && base[cut[1]-1] != "," {
				continue
			}
			rest := append(append([]lexeme{}, base[:cut[0]]...), base[cut[1]:]...)
			if equalLexemes(rest, head) {
				return true
			}
		}
	}
	return false
}

// tryRemoved reports a try/catch the change removed around a call that head still makes in a
// callback, where nothing up the stack catches what it throws.
func (c *sideComparison) tryRemoved(p *fnPair) {
	for _, i := range p.removed {
		if p.b.Nodes[i].Kind != kindTry {
			continue
		}
		for _, kn := range p.b.Nodes {
			if kn.Branch != "try" || kn.Parent != i {
				continue
			}
			for _, call := range kn.Calls {
				if call.Outer >= 0 {
					continue
				}
				for j, hn := range p.h.Nodes {
					if !hn.Callback || !nodeHasCall(hn, call.Text) {
						continue
					}
					caught := false
					for _, a := range p.h.ancestors(j) {
						if p.h.Nodes[a].Kind == kindTry {
							caught = true
						}
					}
					if caught {
						continue
					}
					what := fmt.Sprintf("the try/catch around `%s`", scan.Clip(call.Text, 100))
					tail := fmt.Sprintf(" in a callback of %s: what it throws there is caught by nothing and ends the process instead of reaching the caller's error handling", p.h.Name)
					c.report(rules.RuleErrorHandlingRemoved, voting.SeverityMedium, p.h.file.Path, hn.Line, what, tail)
				}
			}
		}
	}
}

func nodeHasCall(n *irNode, text string) bool {
	for _, c := range n.Calls {
		if c.Text == text {
			return true
		}
	}
	return false
}

// offload reports a blocking call that head makes directly in an async function where base ran
// it off the event loop (asyncio.to_thread, run_in_executor).
func (c *sideComparison) offload(p *fnPair) {
	if !p.h.Async {
		return
	}
	for i, j := range p.changedPairs() {
		for _, bc := range p.b.Nodes[i].Calls {
			k, ok := offloadCalls[bc.name()]
			if !ok || k >= len(bc.Args) {
				continue
			}
			target := bc.Args[k]
			for _, hc := range p.h.Nodes[j].Calls {
				if hc.Callee != target {
					continue
				}
				what := fmt.Sprintf("`%s`, which ran `%s` in a worker thread", bc.Callee, target)
				tail := fmt.Sprintf(": head calls it directly in the async %s, so while it blocks (file system, network) the event loop serves no other request", p.h.Name)
				c.report(rules.RuleOffloadRemoved, voting.SeverityMedium, p.h.file.Path, p.h.Nodes[j].Line, what, tail)
			}
		}
	}
}
