package compare

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// This file holds the parts of the base/head comparison (removed.go) that find guards,
// sanitisers and validators the change removed, in place or by inlining a function without them.

// severity of a removed protection: high when the function still reaches a security sink.
func protectionRule(ok bool) (string, voting.Severity) {
	if ok {
		return rules.RuleProtectionRemoved, voting.SeverityHigh
	}
	return rules.RuleCheckRemoved, voting.SeverityMedium
}

// exitWord says how a guard left.
func exitWord(fn *irFunc, i int) string {
	branch, word := "then", "it"
	if fn.Nodes[i].ElseExits {
		branch, word = "else", "otherwise it"
	}
	kids := fn.children(i)
	for k := len(kids) - 1; k >= 0; k-- {
		n := fn.Nodes[kids[k]]
		if n.Branch != branch {
			continue
		}
		switch n.Kind {
		case kindRaise:
			return word + " raised"
		case kindReturn:
			if n.Text == "return" {
				return word + " returned early"
			}
			return word + " returned `" + scan.Clip(n.Text, 80) + "`"
		case kindExit:
			return word + " skipped with " + n.Text
		}
		break
	}
	return "it guarded its body"
}

// guardKind says whether a base node is a guard and of which kind: "exit" (an if whose branch
// leaves), "assert", "bound" (an if that compares a size), "wrapper" (an if without else that
// tests for nil, None, null or a predicate and wraps statements).
func guardKind(fn *irFunc, i int) string {
	n := fn.Nodes[i]
	switch {
	case n.Kind == kindAssert:
		return "assert"
	case n.Kind != kindIf || n.Cond == nil || n.Text == "default":
		return ""
	case n.Exits:
		return "exit"
	case isBound(n.Cond.Text):
		return "bound"
	case !n.HasElse && isPresenceTest(n.Cond):
		return "wrapper"
	}
	return ""
}

// isBound reports whether a condition compares a size or a count.
func isBound(cond string) bool {
	ts := tokens(cond)
	cmp, size := false, false
	for _, t := range ts {
		switch t {
		case "<", ">", "<=", ">=":
			cmp = true
		case "len", "length", "size", "Len", "Size", "limit", "max", "Max", "MaxBytes":
			size = true
		}
	}
	return cmp && size
}

// isPresenceTest reports whether a condition tests that a value exists (x != nil, x is not
// None, x !== null, x) or satisfies a predicate.
func isPresenceTest(c *irCond) bool {
	for _, t := range c.Terms {
		ts := tokens(t)
		for _, x := range ts {
			switch x {
			case "nil", "None", "null", "undefined":
				return true
			}
		}
		if len(ts) == 1 || len(ts) == 3 && ts[1] == "." {
			return true // a bare name: truthiness
		}
	}
	return false
}

// condUses returns the names a condition reads, without noise.
func condUses(n *irNode) []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range n.Uses {
		if noise[u] || seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, u)
	}
	return out
}

// guarded are the values a removed guard protected that head still uses, and the protective
// call that fed its condition (errPath := z.CheckPath(to, f.Name) before if errPath != nil).
// A tested name head no longer has is followed to its definition in base: the guard tested
// what that definition read (parsed := urlParse(loc) before if parsed.host != ...).
func (c *sideComparison) guarded(p *fnPair, i int) (alive []string, feeder *irCall, feederNode int) {
	b := p.b
	feederNode = -1
	seen := map[string]bool{}
	keep := func(u string) {
		if p.headMentions[u] && !seen[u] && !noise[u] && !isImport(b, u) {
			seen[u] = true
			alive = append(alive, u)
		}
	}
	for _, u := range condUses(b.Nodes[i]) {
		if p.headMentions[u] {
			keep(u)
			continue
		}
		for j := i - 1; j >= 0; j-- {
			d := b.Nodes[j]
			if !slices.Contains(d.Defs, u) {
				continue
			}
			for k := range d.Calls {
				if ws, _ := protectionWords(d.Calls[k].Callee); feeder == nil && (len(ws) > 0 || c.protectiveByBody(d.Calls[k], b)) {
					feeder, feederNode = &d.Calls[k], j
				}
			}
			for _, a := range d.Uses {
				if !slices.Contains(d.Defs, a) {
					keep(a)
				}
			}
			break
		}
	}
	return dropRoots(alive), feeder, feederNode
}

// dropRoots leaves out a name's root when the name is there (req.subDir, not every use of req).
func dropRoots(names []string) []string {
	var out []string
	for _, n := range names {
		covered := false
		for _, m := range names {
			if strings.HasPrefix(m, n+".") {
				covered = true
			}
		}
		if !covered {
			out = append(out, n)
		}
	}
	return out
}

func isImport(fn *irFunc, name string) bool {
	_, ok := fn.file.Imports[name]
	return ok
}

// anchor returns the head node that lost the protection: the first one at or after the
// removal's place that uses one of the guarded values, else the first at or after it.
func anchor(p *fnPair, pos int, values []string) int {
	first := -1
	for j, n := range p.h.Nodes {
		if n.Line < pos {
			continue
		}
		if first < 0 || n.Line < p.h.Nodes[first].Line {
			first = j
		}
	}
	best := -1
	for j, n := range p.h.Nodes {
		if n.Line < pos {
			continue
		}
		for _, v := range values {
			if slices.Contains(n.Uses, v) || slices.Contains(n.Defs, v) {
				if best < 0 || n.Line < p.h.Nodes[best].Line {
					best = j
				}
			}
		}
	}
	if best >= 0 {
		return best
	}
	return first
}

// follow returns where a protection is lost when the head statement at only hands the guarded
// values to a function of the same file (return z.extractFile(f, to)): that function's first
// statement that uses them. Otherwise it returns the statement itself: a statement that is not
// a return and after which the function still uses the values (validate(label) before
// encode(label)) loses the protection where it is.
func (c *sideComparison) follow(p *fnPair, at int, values []string) (*irFunc, int, []string) {
	n := p.h.Nodes[at]
	if n.Kind != kindReturn && (n.Kind != kindExpr || usedAfter(p.h, at, values)) {
		return p.h, at, values
	}
	var top *irCall
	for k := range n.Calls {
		if n.Calls[k].Outer < 0 {
			if top != nil {
				return p.h, at, values
			}
			top = &n.Calls[k]
		}
	}
	if top == nil {
		return p.h, at, values
	}
	fn := c.head.resolve(top.Callee, p.h)
	if fn == nil || fn.file != p.h.file {
		return p.h, at, values
	}
	var params []string
	bound := fn.argParams(*top)
	for k, a := range top.Args {
		if k >= len(bound) {
			break
		}
		for w := range words(a) {
			if slices.Contains(values, w) {
				params = append(params, bound[k])
				break
			}
		}
	}
	for j, m := range fn.Nodes {
		for _, u := range append(append([]string{}, m.Uses...), m.Defs...) {
			if slices.Contains(params, u) {
				return fn, j, params
			}
		}
	}
	return p.h, at, values
}

// usedAfter reports whether a statement after the one at (in source order) reads or assigns
// one of values.
func usedAfter(fn *irFunc, at int, values []string) bool {
	for _, m := range fn.Nodes {
		if m.Line <= fn.Nodes[at].End {
			continue
		}
		for _, v := range values {
			if slices.Contains(m.Uses, v) || slices.Contains(m.Defs, v) {
				return true
			}
		}
	}
	return false
}

// condMovedTo reports whether a removed condition lives on: in the same function under the
// same text, anywhere the change adds a condition with the same words (a caller), or in a
// function head now calls (two levels down), with its parameters read as the call's arguments.
func (c *sideComparison) condMovedTo(p *fnPair, cond *irCond) bool {
	key := termKey(cond.Text)
	for _, n := range p.h.Nodes {
		if n.Cond != nil && termKey(n.Cond.Text) == key {
			return true
		}
	}
	cw := words(cond.Text)
	for _, other := range c.addedConds {
		if similarity(cw, words(other.Text)) >= 0.75 {
			return true
		}
	}
	for j, n := range p.h.Nodes {
		for _, call := range n.Calls {
			fn := c.head.resolve(call.Callee, p.h)
			if fn == nil {
				continue
			}
			// a new call, or a call to a function the change edited: the check may have moved
			// into it
			if (p.added[j] || p.hChanged[j]) && !c.calledInBase(p, call.Callee) || c.headTouched[fn] {
				if c.holdsCond(fn, call, cw, 2) {
					return true
				}
			}
		}
	}
	return false
}

// isGuardedName reports whether a name is one the removed guard i tested, or one the names it
// tested were computed from.
func isGuardedName(p *fnPair, i int, name string) bool {
	uses := condUses(p.b.Nodes[i])
	if slices.Contains(uses, name) {
		return true
	}
	for j := i - 1; j >= 0; j-- {
		d := p.b.Nodes[j]
		if shareName(d.Defs, uses) && slices.Contains(d.Uses, name) {
			return true
		}
	}
	return false
}

// literalsMoved reports whether a statement head adds tests what a guard with literals tested:
// every literal of its condition and one of the values it guarded (a loop that returned on
// ent == ".." became slices.Contains(parts, "..")).
func literalsMoved(p *fnPair, n *irNode, values []string) bool {
	var lits []string
	for _, t := range tokens(n.Cond.Text) {
		if s := string(t); (s[0] == '"' || s[0] >= '0' && s[0] <= '9') && !trivialLiterals[s] {
			lits = append(lits, s)
		}
	}
	if len(lits) == 0 {
		return false
	}
	for j, hn := range p.h.Nodes {
		if !p.added[j] && !p.hChanged[j] {
			continue
		}
		w := words(hn.Text)
		all := true
		for _, l := range lits {
			all = all && w[l]
		}
		if !all {
			continue
		}
		for _, v := range values {
			for x := range words(v) {
				if w[x] {
					return true
				}
			}
		}
	}
	return false
}

// replacedBy reports whether head adds or rewrites, in the same function, a guard of its own on
// a name the removed guard tested, or in the run of the diff that removed it: the check was
// rewritten ([etag, data].count(None) != 1 → if data is None: raise), not removed.
func replacedBy(p *fnPair, i int) bool {
	uses := condUses(p.b.Nodes[i])
	blocks := changeBlocks(p.sf.f)
	run := blocks.old[p.b.Nodes[i].Line]
	for j, hn := range p.h.Nodes {
		if p.added[j] && hn.Kind == kindAssign && hn.Line >= p.sf.lines.head(p.b.Nodes[i].Line) {
			// the value is transformed in place instead (loc = loc.slice(0, pos) +
			// encodeUrl(loc.slice(pos))): a protection of another kind
			for _, d := range hn.Defs {
				if slices.Contains(hn.Uses, d) && p.headMentions[d] && isGuardedName(p, i, d) {
					return true
				}
			}
		}
		if !p.added[j] && !p.hChanged[j] || hn.Kind != kindIf && hn.Kind != kindAssert || !hn.Exits && hn.Kind != kindAssert {
			continue
		}
		if run != 0 && blocks.new[hn.Line] == run {
			return true
		}
		for _, u := range condUses(hn) {
			if slices.Contains(uses, u) && !isImport(p.h, u) {
				return true
			}
		}
	}
	return false
}

func (c *sideComparison) calledInBase(p *fnPair, callee string) bool { return p.baseCalls[callee] }

// holdsCond reports whether fn (or a function it calls) tests a condition with the words cw,
// its parameters read as the call's arguments.
func (c *sideComparison) holdsCond(fn *irFunc, call irCall, cw map[string]bool, depth int) bool {
	subst := map[string]map[string]bool{}
	for k, param := range fn.argParams(call) {
		if k < len(call.Args) {
			subst[param] = words(call.Args[k])
		}
	}
	for _, n := range fn.Nodes {
		if n.Cond != nil {
			w := map[string]bool{}
			for x := range words(n.Cond.Text) {
				if s, ok := subst[x]; ok {
					for y := range s {
						w[y] = true
					}
				}
				w[x] = true
			}
			if similarity(cw, w) >= 0.5 || subsetWords(cw, w) || subsetWords(splitWords(cw), splitWords(w)) {
				return true
			}
		}
		if depth > 0 {
			for _, cc := range n.Calls {
				if g := c.head.resolve(cc.Callee, fn); g != nil && g != fn && c.holdsCond(g, cc, cw, depth-1) {
					return true
				}
			}
		}
	}
	return false
}

// splitWords splits the identifiers of a word set into their lower-case name words
// (request.host → request, host; check_host_trust → check, host, trust): a check moved into a
// helper is often named after what it tested.
func splitWords(ws map[string]bool) map[string]bool {
	out := map[string]bool{}
	for w := range ws {
		if w[0] == '"' || w[0] >= '0' && w[0] <= '9' {
			out[w] = true
			continue
		}
		for _, x := range nameWords(w) {
			if !weakNameWords[x] {
				out[x] = true
			}
		}
	}
	return out
}

func subsetWords(a, b map[string]bool) bool {
	if len(a) == 0 {
		return false
	}
	for w := range a {
		if !b[w] {
			return false
		}
	}
	return true
}

// guards reports guards the change removed from a function with no equivalent left.
func (c *sideComparison) guards(p *fnPair) {
	b, h := p.b, p.h
	for _, i := range p.removed {
		n := b.Nodes[i]
		kind := guardKind(b, i)
		if kind == "" || c.condMovedTo(p, n.Cond) || kind != "wrapper" && replacedBy(p, i) {
			continue
		}
		if kind == "exit" && (fastPath(b, i) || shortcutKept(p, i)) || filtersReplacedLoop(p, i) {
			continue
		}
		alive, feeder, feederNode := c.guarded(p, i)
		if len(alive) == 0 || literalsMoved(p, n, alive) {
			continue
		}
		// derived: head has none of the names the guard tested, only what they were computed
		// from; the check may have gone with the computation, so it is reported only when what
		// it protected reaches a sink
		derived := feeder == nil && !anyMentioned(p, condUses(n))
		if feeder != nil && c.callMovedTo(p, *feeder, feederNode) {
			continue
		}
		pos := p.sf.lines.head(n.Line)
		at := -1
		if kind == "wrapper" {
			at = c.unwrapped(p, i)
			if at < 0 {
				continue
			}
		} else {
			at = anchor(p, pos, alive)
		}
		if at < 0 {
			continue
		}
		via := ""
		fn, node, values := h, at, alive
		if kind != "wrapper" {
			if fn, node, values = c.follow(p, at, alive); fn != h {
				via = fmt.Sprintf(", reached through line %d (`%s`)", h.Nodes[at].Line, scan.Clip(h.Nodes[at].Text, 80))
			}
		}
		hit, ok := c.flowSink(fn, node, values, false, 2)
		if derived && !ok {
			continue
		}
		rule, sev := protectionRule(ok)
		line := fn.Nodes[node].Line
		if fn == h && kind != "wrapper" {
			line = inDiffLine(p, pos, line)
		}
		what := fmt.Sprintf("the check `if %s` (%s)", scan.Clip(condText(n), 120), exitWord(b, i))
		switch kind {
		case "assert":
			what = fmt.Sprintf("the assertion `%s`", scan.Clip(n.Text, 120))
		case "bound":
			what = fmt.Sprintf("the bound `if %s`", scan.Clip(condText(n), 120))
		case "wrapper":
			what = fmt.Sprintf("the check `if %s` around the statements it guarded", scan.Clip(condText(n), 120))
		}
		if feeder != nil {
			what += fmt.Sprintf(" on the result of `%s`", scan.Clip(feeder.Text, 100))
		}
		what += " from " + h.Name
		tail := fmt.Sprintf(": it guarded line %d (`%s`)%s, and head tests nothing equivalent (no condition with the same terms there, in a caller, or in a function it now calls)", fn.Nodes[node].Line, scan.Clip(fn.Nodes[node].Text, 100), via) + sinkClause(hit, ok, fn.file.Path)
		c.report(rule, sev, fn.file.Path, line, what, tail)
	}
}

// inDiffLine is where a removed guard's finding is cited: the line it guarded when the diff
// shows it, else the first head statement at or after where the guard was, when the diff shows
// that one (a review comment can sit only on a line of the diff; the message names the line
// guarded either way).
func inDiffLine(p *fnPair, pos, guarded int) int {
	f := p.sf.f
	if inHunks(f, guarded) {
		return guarded
	}
	first := -1
	for _, n := range p.h.Nodes {
		if n.Line >= pos && (first < 0 || n.Line < first) {
			first = n.Line
		}
	}
	if first > 0 && first < guarded && inHunks(f, first) {
		return first
	}
	return guarded
}

// inHunks reports whether the new-side line n is on a hunk of the file's diff.
func inHunks(f *change.File, n int) bool {
	for _, h := range f.Hunks {
		if n >= h.NewStart && n < h.NewStart+h.NewLines {
			return true
		}
	}
	return false
}

// filtersReplacedLoop reports whether a guard filters the elements of a loop whose source the
// change replaced (for k in re.findall(s): if not k: continue → for k in parts): the elements
// come from elsewhere now, and the filtering may be where they are built.
func filtersReplacedLoop(p *fnPair, i int) bool {
	parent := p.b.Nodes[i].Parent
	if parent < 0 || p.b.Nodes[parent].Kind != kindLoop || !p.bChanged[parent] {
		return false
	}
	return shareName(condUses(p.b.Nodes[i]), p.b.Nodes[parent].Defs)
}

// anyMentioned reports whether head reads or assigns one of the names.
func anyMentioned(p *fnPair, names []string) bool {
	for _, n := range names {
		if p.headMentions[n] {
			return true
		}
	}
	return false
}

func condText(n *irNode) string {
	if n.Cond != nil {
		return n.Cond.Text
	}
	return n.Text
}

// fastPath reports whether an early exit hands back what its condition tested (if cached:
// return cached) or a positive verdict (if ok: return true): a shortcut or a predicate's
// branch, not a guard of what follows.
func fastPath(fn *irFunc, i int) bool {
	n := fn.Nodes[i]
	if n.Rejects {
		return false
	}
	kids := fn.children(i)
	for k := len(kids) - 1; k >= 0; k-- {
		last := fn.Nodes[kids[k]]
		if last.Branch != "then" {
			continue
		}
		if last.Kind != kindReturn {
			return false
		}
		if last.Text == "return true" || last.Text == "return True" {
			return true
		}
		for _, u := range condUses(n) {
			if slices.Contains(last.Uses, u) {
				return true
			}
		}
		return false
	}
	return false
}

// shortcutKept reports whether a removed early exit did, before leaving, only what head still
// does after it (the same calls, same arguments): a shortcut past the function's general path,
// not a refusal; without it every case takes that path and its checks.
func shortcutKept(p *fnPair, i int) bool {
	b := p.b
	if b.Nodes[i].Rejects {
		return false
	}
	var calls []string
	for _, k := range b.children(i) {
		n := b.Nodes[k]
		switch {
		case n.Branch != "then":
			continue
		case n.Kind == kindReturn && n.Text == "return":
			continue
		case n.Kind != kindExpr || len(n.Calls) == 0:
			return false
		}
		for _, c := range n.Calls {
			calls = append(calls, c.Text)
		}
	}
	if len(calls) == 0 {
		return false
	}
	pos := p.sf.lines.head(b.Nodes[i].Line)
	for _, c := range calls {
		kept := false
		for _, hn := range p.h.Nodes {
			kept = kept || hn.Line >= pos && slices.ContainsFunc(hn.Calls, func(hc irCall) bool { return hc.Text == c })
		}
		if !kept {
			return false
		}
	}
	return true
}

// unwrapped returns the head node of the first statement a removed wrapper guarded that head
// runs without it (no condition added around it), or -1.
func (c *sideComparison) unwrapped(p *fnPair, i int) int {
	for _, k := range p.b.children(i) {
		if p.b.Nodes[k].Branch != "then" {
			continue
		}
		text := p.b.Nodes[k].Text
		for j, hn := range p.h.Nodes {
			if hn.Text != text || hn.Kind != p.b.Nodes[k].Kind {
				continue
			}
			guardedAgain := false
			for _, a := range p.h.ancestors(j) {
				if p.added[a] && p.h.Nodes[a].Cond != nil {
					guardedAgain = true
				}
			}
			if !guardedAgain {
				return j
			}
		}
	}
	return -1
}

// protectiveByBody reports whether a call's function (found in the change's base) protects by
// what it does: a small function that mentions ".." (rejects or strips parent segments), or a
// prefix comparison it refuses on or returns. A function that merely validates its own
// arguments (raise on a bad length) protects nothing its caller passes on.
func (c *sideComparison) protectiveByBody(call irCall, from *irFunc) bool {
	fn := c.base.resolve(call.Callee, from)
	if fn == nil {
		return false
	}
	small := len(fn.Nodes) <= 15
	for _, n := range fn.Nodes {
		for _, s := range n.Strs {
			if small && parentSegment(s) {
				return true
			}
		}
		if n.Kind == kindIf && n.Rejects || n.Kind == kindReturn {
			for _, cc := range n.Calls {
				switch cc.name() {
				case "HasPrefix", "startswith", "startsWith", "commonpath", "is_relative_to", "IsLocal":
					return true
				}
			}
		}
	}
	return false
}

// parentSegment reports whether a literal names the parent directory: "..", a path or pattern
// with a ../ or /.. segment, or a regular expression for one (\.\.), not a "..." or ".. note::".
func parentSegment(s string) bool {
	return s == ".." || strings.Contains(s, "../") || strings.Contains(s, "/..") || strings.Contains(s, `..\`) || strings.Contains(s, `\.\.`)
}

// isProtective reports whether a call protects a value, by its function's body or its name.
func (c *sideComparison) isProtective(call irCall, from *irFunc) (bool, bool) {
	ws, strong := protectionWords(call.Callee)
	if len(ws) > 0 {
		return true, strong
	}
	return c.protectiveByBody(call, from), false
}

// callMovedTo reports whether a removed call lives on: head still makes it with the same
// arguments, or makes a new call to a function (of the change) that makes it, or replaces it
// with a call of a related name on the same values (isPrivateIPRange(ip) → ip.IsPrivate()).
func (c *sideComparison) callMovedTo(p *fnPair, call irCall, node int) bool {
	if p.headCallTexts[call.Text] || c.inlinedIntoCallee(p, call) {
		return true
	}
	name := call.name()
	for j, n := range p.h.Nodes {
		for _, hc := range n.Calls {
			fn := c.head.resolve(hc.Callee, p.h)
			// a new call, or a call to a function the change edited: the call may have moved
			// into it
			if (p.added[j] || p.hChanged[j] || !c.calledInBase(p, hc.Callee) || fn != nil && c.headTouched[fn]) && fn != nil && callsName(c, fn, name, 2) {
				return true
			}
			if p.added[j] || p.hChanged[j] {
				if relatedNames(call.Callee, hc.Callee) {
					return true
				}
			}
		}
	}
	return false
}

// inlinedIntoCallee reports whether the function a removed call named is gone from head and its
// checks now live in a function head passes the same value to and that the change edited
// (accept_ranges = _clean_accept_ranges(accept_ranges) removed, its tests now at the top of
// _process_range_request(environ, accept_ranges)).
func (c *sideComparison) inlinedIntoCallee(p *fnPair, call irCall) bool {
	gone := c.base.resolve(call.Callee, p.b)
	if gone == nil || c.head.find(call.Callee, p.h) != nil {
		return false
	}
	var conds []map[string]bool
	for _, n := range gone.Nodes {
		if n.Cond != nil {
			w := map[string]bool{}
			for x := range words(n.Cond.Text) {
				w[x] = true
			}
			conds = append(conds, w)
		}
	}
	if len(conds) == 0 {
		return false
	}
	params := gone.argParams(call)
	for _, n := range p.h.Nodes {
		for _, hc := range n.Calls {
			fn := c.head.resolve(hc.Callee, p.h)
			if fn == nil || !c.headTouched[fn] {
				continue
			}
			// the gone function's conditions, its parameters read as this call's arguments
			held := 0
			for _, w := range conds {
				renamed := map[string]bool{}
				for x := range w {
					renamed[x] = true
					for k, param := range params {
						if x == param && k < len(call.Args) {
							delete(renamed, x)
							for y := range words(call.Args[k]) {
								renamed[y] = true
							}
						}
					}
				}
				if c.holdsCond(fn, hc, renamed, 0) {
					held++
				}
			}
			if held*2 >= len(conds) {
				return true
			}
		}
	}
	return false
}

// callsName reports whether fn (or a function it calls) calls a function named name.
func callsName(c *sideComparison, fn *irFunc, name string, depth int) bool {
	for _, n := range fn.Nodes {
		for _, cc := range n.Calls {
			if cc.name() == name {
				return true
			}
			if depth > 0 {
				if g := c.head.resolve(cc.Callee, fn); g != nil && g != fn && callsName(c, g, name, depth-1) {
					return true
				}
			}
		}
	}
	return false
}

// weakNameWords say little about what a function does.
var weakNameWords = map[string]bool{"is": true, "get": true, "to": true, "set": true, "new": true, "do": true, "has": true, "the": true, "a": true, "of": true, "from": true, "with": true, "by": true}

// relatedNames reports whether two callees share a meaningful word of their names.
func relatedNames(a, b string) bool {
	aw := map[string]bool{}
	for _, w := range nameWords(lastSegment(a)) {
		if !weakNameWords[w] {
			aw[w] = true
		}
	}
	for _, w := range nameWords(lastSegment(b)) {
		if aw[w] {
			return true
		}
	}
	return false
}

// protectiveCalls reports sanitisers and validators the change stopped calling on a value head
// still uses: unwrapped in place (clean(x) → x) or removed with their statement.
func (c *sideComparison) protectiveCalls(p *fnPair) {
	b, h := p.b, p.h
	// unwrapped in place
	for i, j := range p.changedPairs() {
		bn, hn := b.Nodes[i], h.Nodes[j]
		for _, call := range bn.Calls {
			prot, strong := c.isProtective(call, b)
			if !prot || nodeCalls(hn, call.Callee) || p.headCallTexts[call.Text] {
				continue
			}
			present := false
			for _, a := range call.Args {
				if a != "" && strings.Contains(hn.Text, a) {
					present = true
				}
			}
			if !present || c.callMovedTo(p, call, i) {
				continue
			}
			hit, ok := c.flowSink(h, j, argNames(bn, call), false, 2)
			rule, sev := protectionRule(ok || strong)
			what := fmt.Sprintf("the call `%s` around `%s`", call.name(), scan.Clip(strings.Join(call.Args, ", "), 80))
			tail := fmt.Sprintf(" in %s: head passes the value on unprotected (`%s`)", h.Name, scan.Clip(hn.Text, 100)) + sinkClause(hit, ok, h.file.Path)
			c.report(rule, sev, h.file.Path, hn.Line, what, tail)
		}
	}
	// removed with their statement
	for _, i := range p.removed {
		bn := b.Nodes[i]
		if bn.Kind == kindIf || bn.Kind == kindAssert {
			continue // a guard's own calls are the guard's (see guards)
		}
		for _, call := range bn.Calls {
			prot, strong := c.isProtective(call, b)
			if !prot || call.Outer >= 0 || c.callMovedTo(p, call, i) || c.testedByRemovedGuard(p, i) {
				continue
			}
			var values []string
			for _, u := range bn.Uses {
				for _, a := range call.Args {
					if strings.Contains(a, u) && p.headMentions[u] && !noise[u] && !isImport(b, u) && !slices.Contains(values, u) {
						values = append(values, u)
					}
				}
			}
			for _, d := range bn.Defs {
				if p.headMentions[d] && !slices.Contains(values, d) {
					values = append(values, d)
				}
			}
			values = dropRoots(values)
			sort.Strings(values)
			if len(values) == 0 {
				continue
			}
			at := anchor(p, p.sf.lines.head(bn.Line), values)
			if at < 0 {
				continue
			}
			fn, node, fvalues := c.follow(p, at, values)
			hit, ok := c.flowSink(fn, node, fvalues, false, 2)
			rule, sev := protectionRule(ok || strong)
			what := fmt.Sprintf("the call `%s` from %s", scan.Clip(call.Text, 120), h.Name)
			tail := fmt.Sprintf(": it protected %s before line %d (`%s`), and head no longer calls it nor anything that does", strings.Join(values, ", "), fn.Nodes[node].Line, scan.Clip(fn.Nodes[node].Text, 100)) + sinkClause(hit, ok, fn.file.Path)
			c.report(rule, sev, fn.file.Path, fn.Nodes[node].Line, what, tail)
		}
	}
}

// argNames returns the names a call's arguments read (dotted names without their roots).
func argNames(n *irNode, call irCall) []string {
	var out []string
	for _, u := range n.Uses {
		if noise[u] || slices.Contains(out, u) {
			continue
		}
		for _, a := range call.Args {
			if mentionsName(a, u) {
				out = append(out, u)
				break
			}
		}
	}
	return dropRoots(out)
}

// testedByRemovedGuard reports whether a removed statement's result is only tested by a guard
// the change removed too (the guard's finding names the call).
func (c *sideComparison) testedByRemovedGuard(p *fnPair, i int) bool {
	for _, k := range p.removed {
		if k <= i || guardKind(p.b, k) == "" {
			continue
		}
		for _, d := range p.b.Nodes[i].Defs {
			if slices.Contains(p.b.Nodes[k].Uses, d) {
				return true
			}
		}
	}
	return false
}

func nodeCalls(n *irNode, callee string) bool {
	for _, c := range n.Calls {
		if c.Callee == callee {
			return true
		}
	}
	return false
}

// inlined reports guards and bounds of a function whose body the change inlined into its
// caller without them (the call removed, its statements now in the caller).
func (c *sideComparison) inlined(p *fnPair) {
	for _, i := range p.removed {
		for _, call := range p.b.Nodes[i].Calls {
			callee := c.base.resolve(call.Callee, p.b)
			if callee == nil || callee == p.b || c.calledInHead(p, call.Callee) {
				continue
			}
			c.inlinedBody(p, i, call, callee)
		}
	}
	for i, j := range p.changedPairs() {
		for _, call := range p.b.Nodes[i].Calls {
			if nodeCalls(p.h.Nodes[j], call.Callee) || c.calledInHead(p, call.Callee) {
				continue
			}
			if callee := c.base.resolve(call.Callee, p.b); callee != nil && callee != p.b {
				c.inlinedBody(p, i, call, callee)
			}
		}
	}
}

func (c *sideComparison) calledInHead(p *fnPair, callee string) bool { return p.headCalls[callee] }

// inlinedBody reports the guards of callee, which base called and head no longer does, that
// head left out when it inlined the callee's body: each at the head statement that took the
// place of the callee's statement before the guard.
func (c *sideComparison) inlinedBody(p *fnPair, i int, call irCall, callee *irFunc) {
	rename := inlinedRenamer(callee, call)
	match, ok := inlinedMatch(p, callee, rename)
	if !ok {
		return
	}
	kept := inlinedKeptConds(p, callee, rename)
	for k, n := range callee.Nodes {
		kind := guardKind(callee, k)
		if kind == "" || kind == "wrapper" || kept[k] {
			continue
		}
		// the head statement that took the place of the callee's statement before the guard
		at := -1
		for prev := k - 1; prev >= 0; prev-- {
			if j, ok := match[prev]; ok {
				at = j
				break
			}
		}
		if at < 0 {
			continue
		}
		hit, ok := c.sinkAfter(p.h, at)
		rule, sev := protectionRule(ok)
		what := fmt.Sprintf("the %s `%s` of %s", map[string]string{"exit": "check", "bound": "bound", "assert": "assertion"}[kind], scan.Clip(condText(n), 120), callee.Name)
		tail := fmt.Sprintf(" when it inlined %s into %s: the inlined code at line %d (`%s`) runs without it", callee.Name, p.h.Name, p.h.Nodes[at].Line, scan.Clip(p.h.Nodes[at].Text, 100)) + sinkClause(hit, ok, p.h.file.Path)
		c.report(rule, sev, p.h.file.Path, p.h.Nodes[at].Line, what, tail)
	}
}

// inlinedRenamer returns the words of a text of callee as they read once inlined at call:
// each parameter replaced by the words of its argument.
func inlinedRenamer(callee *irFunc, call irCall) func(text string) map[string]bool {
	subst := map[string]map[string]bool{}
	for k, param := range callee.argParams(call) {
		if k < len(call.Args) {
			subst[param] = words(call.Args[k])
		}
	}
	return func(text string) map[string]bool {
		out := map[string]bool{}
		for w := range words(text) {
			if s, ok := subst[w]; ok {
				for x := range s {
					out[x] = true
				}
				continue
			}
			out[w] = true
		}
		return out
	}
}

// inlinedMatch matches each simple statement of callee (renamed) with the most similar
// changed or added statement of head not matched yet; ok says most of them have a
// counterpart: the callee's body moved into head.
func inlinedMatch(p *fnPair, callee *irFunc, rename func(string) map[string]bool) (match map[int]int, ok bool) {
	match = map[int]int{}
	used := map[int]bool{}
	var simple, matched int
	for k, n := range callee.Nodes {
		if n.Kind == kindIf || n.Kind == kindLoop {
			continue
		}
		simple++
		best, bestSim := -1, 0.5
		for j, hn := range p.h.Nodes {
			if used[j] || !p.hChanged[j] && !p.added[j] {
				continue
			}
			if s := similarity(rename(n.Text), words(hn.Text)); s > bestSim || s == bestSim && best < 0 {
				best, bestSim = j, s
			}
		}
		if best >= 0 {
			match[k], used[best] = best, true
			matched++
		}
	}
	return match, simple > 0 && matched*2 >= simple
}

// inlinedKeptConds returns the statements of callee whose condition (renamed) head kept: each
// paired, the most similar first, with a distinct condition of head at least half alike.
func inlinedKeptConds(p *fnPair, callee *irFunc, rename func(string) map[string]bool) map[int]bool {
	type gd struct {
		k   int
		sim float64
		j   int
	}
	var cands []gd
	for k, n := range callee.Nodes {
		if n.Cond == nil || n.Kind == kindLoop {
			continue
		}
		for j, hn := range p.h.Nodes {
			if hn.Cond == nil {
				continue
			}
			if s := similarity(rename(n.Cond.Text), words(hn.Cond.Text)); s >= 0.5 {
				cands = append(cands, gd{k, s, j})
			}
		}
	}
	sort.SliceStable(cands, func(x, y int) bool { return cands[x].sim > cands[y].sim })
	usedHead := map[int]bool{}
	kept := map[int]bool{}
	for _, cd := range cands {
		if kept[cd.k] || usedHead[cd.j] {
			continue
		}
		kept[cd.k], usedHead[cd.j] = true, true
	}
	return kept
}
