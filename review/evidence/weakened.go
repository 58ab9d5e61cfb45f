package evidence

import (
	"fmt"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// This file compares base and head for protections the change removed or weakened: a check
// removed from the path to a sensitive call that head still makes, a bound query parameter
// turned into SQL text, a validation tag loosened, TLS or crypto settings downgraded, a channel's
// buffer removed where a sender can now block forever, a lock moved after the read it protected.
// Functions are matched by package path and name (FuncName) and checks by what they call or
// test, not by line, so line shifts and renames elsewhere do not matter. Each finding is at the
// head line that lost its protection, and is new by construction.

// treeSummary merges the summaries of one tree's packages.
type treeSummary struct {
	root  string
	funcs map[string]*funcSummary
	// callers and paramSinks are computed on first use.
	callers    map[string][]*funcSummary
	paramMemo  map[string]map[int][]sinkRef
	paramStack map[string]bool
}

func newTreeSummary(root string) *treeSummary {
	return &treeSummary{root: root, funcs: map[string]*funcSummary{}}
}

func (t *treeSummary) add(p *pkgSummary) {
	for k, f := range p.funcs {
		if _, dup := t.funcs[k]; !dup {
			t.funcs[k] = f
		}
	}
}

// loc is a finding's place, to supersede a finding of another rule at the same line.
type loc struct {
	path string
	line int
}

type comparison struct {
	base, head *treeSummary
	found      []scan.Finding
	// twins are findings of other rules the comparison's finding at the same place restates
	// with what changed: they are dropped from the new findings, the severity kept.
	twins map[loc][]string
	seen  map[string]bool
}

// weakened compares the base and head summaries. It returns the findings and, by place, the
// rules of the findings they supersede.
func weakened(base, head *treeSummary) ([]scan.Finding, map[loc][]string) {
	if base == nil || head == nil {
		return nil, nil
	}
	c := &comparison{base: base, head: head, twins: map[loc][]string{}, seen: map[string]bool{}}
	for _, k := range slices.Sorted(maps.Keys(head.funcs)) {
		hf, bf := head.funcs[k], base.funcs[k]
		if bf == nil {
			continue
		}
		c.guards(bf, hf)
		c.redirects(bf, hf)
		c.locks(bf, hf)
	}
	return c.found, c.twins
}

// sinkCWE is the weakness a missing check opens at each kind of sensitive call.
var sinkCWE = map[string]string{sinkFile: "CWE-22", sinkExec: "CWE-78", sinkURL: "CWE-918", sinkSQL: "CWE-89", sinkHTML: "CWE-79", sinkRedirect: "CWE-601"}

// gosecByCWE lists gosec's rules by the weakness they find. G107 (a request to a variable URL)
// is filed under CWE-88 by gosec, but is the request forgery a removed URL check opens.
var gosecByCWE = func() map[string][]string {
	m := map[string][]string{"CWE-918": {gosecRuleID("G107")}}
	for _, c := range gosecCatalog {
		if c.CWE != "" {
			m[c.CWE] = append(m[c.CWE], c.Rule)
		}
	}
	return m
}()

func (c *comparison) report(rule string, severity voting.Severity, pos token.Position, fn, msg string, twins ...string) {
	c.reportCWE(rule, severity, pos, fn, msg, "", twins...)
}

// reportCWE reports a finding whose weakness is cwe rather than its rule's: gosec's findings of
// that weakness at the same line are the same defect, and are superseded.
func (c *comparison) reportCWE(rule string, severity voting.Severity, pos token.Position, fn, msg, cwe string, twins ...string) {
	twins = append(twins, gosecByCWE[cwe]...)
	rel, err := filepath.Rel(c.head.root, pos.Filename)
	if err != nil || !filepath.IsLocal(rel) {
		return
	}
	c.twin(pos, twins...)
	f := scan.Finding{Rule: rule, Source: rules.SourceDebatebot, Severity: severity, Topic: weakenedByRule[rule].Topic,
		Path: filepath.ToSlash(rel), Line: pos.Line, Column: pos.Column, Func: fn, Message: msg, CWE: cwe}
	k := fmt.Sprintf("%s|%s|%d", rule, f.Path, f.Line)
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	c.found = append(c.found, f)
}

// twin records rules whose findings at pos the comparison's findings restate.
func (c *comparison) twin(pos token.Position, rules ...string) {
	rel, err := filepath.Rel(c.head.root, pos.Filename)
	if err != nil || len(rules) == 0 {
		return
	}
	l := loc{filepath.ToSlash(rel), pos.Line}
	c.twins[l] = append(c.twins[l], rules...)
}

// closure returns the variables names' values are computed from, names included, through the
// assignments that keep the value, and from a field path to its variable.
func closure(f *funcSummary, names []string) map[string]bool {
	edges := f.assign
	out := map[string]bool{}
	queue := append([]string(nil), names...)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if out[n] {
			continue
		}
		out[n] = true
		queue = append(queue, edges[n]...)
		if i := strings.LastIndexByte(n, '.'); i > 0 {
			queue = append(queue, n[:i])
		}
	}
	return out
}

// related reports whether a check at offset at vets a value a call uses: a string, number,
// URL or IP that the check reads, that the last assignment before it produced alongside what it
// reads (u for err in u, err := url.Parse(s)), or that what it reads (an error aside) was
// computed from (u for host := u.Hostname()), and that the call's input is computed from. Only
// one step back from the check: values that merely share an ancestor with the call's input (both
// read from one request, one repository) are not what the check vets.
func related(f *funcSummary, at int, checkVars, callVars []string) bool {
	g := map[string]bool{}
	for _, v := range checkVars {
		g[v] = true
		for _, s := range siblingsAt(f, v, at) {
			g[s] = true
		}
	}
	for v := range g {
		if f.errs[v] {
			continue
		}
		for _, src := range f.assign[v] {
			g[src] = true
		}
	}
	ss := closure(f, callVars)
	for n := range g {
		if ss[n] && f.value[n] {
			return true
		}
	}
	return false
}

// siblingsAt are the variables assigned with v by the last multi-value assignment of v before
// offset at.
func siblingsAt(f *funcSummary, v string, at int) []string {
	var last []string
	for _, m := range f.multi {
		if m.off < at && slices.Contains(m.names, v) {
			last = m.names
		}
	}
	return last
}

// argVars are the variables a call passes for parameter j of callee (all the variadic ones for
// the last parameter of a variadic function).
func argVars(callee *funcSummary, call callUse, j int) []string {
	if j >= len(call.args) {
		return nil
	}
	if !callee.variadic || j != len(callee.params)-1 {
		return call.args[j]
	}
	var out []string
	for _, a := range call.args[j:] {
		out = append(out, a...)
	}
	return out
}

// sinkRef is a sensitive call a parameter's value reaches: its kind, the chain of calls to it
// ("serve → os.ReadFile"), where it is and in which function.
type sinkRef struct {
	kind, chain, fn string
	at              token.Position
}

// effectiveSinks are a function's sensitive calls: its own, and its calls of functions that pass
// one of their parameters on to a sensitive call (through at most maxVia helpers). A call through
// a helper is ordered at the call, and reported at the sensitive call inside the helper.
func (t *treeSummary) effectiveSinks(f *funcSummary) []sinkUse {
	out := append([]sinkUse(nil), f.sinks...)
	for _, call := range f.calls {
		callee := t.funcs[call.callee]
		if callee == nil {
			continue
		}
		for j, refs := range t.paramSinks(call.callee) {
			vars := argVars(callee, call, j)
			for _, ref := range refs {
				out = append(out, sinkUse{kind: ref.kind, callee: callee.name + " → " + ref.chain, vars: vars,
					constant: len(vars) == 0, pos: call.pos, end: call.end, at: ref.at, atFunc: ref.fn})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].pos.Offset < out[j].pos.Offset })
	return out
}

// paramSinks maps a function's parameters to the sensitive calls their values reach.
func (t *treeSummary) paramSinks(key string) map[int][]sinkRef {
	if t.paramMemo == nil {
		t.paramMemo, t.paramStack = map[string]map[int][]sinkRef{}, map[string]bool{}
	}
	if m, ok := t.paramMemo[key]; ok {
		return m
	}
	f := t.funcs[key]
	if f == nil || t.paramStack[key] || len(t.paramStack) > maxVia {
		return nil
	}
	t.paramStack[key] = true
	defer delete(t.paramStack, key)
	out := map[int][]sinkRef{}
	add := func(vars []string, ref sinkRef) {
		reach := closure(f, vars)
		for i, p := range f.params {
			if reach[p] && !slices.ContainsFunc(out[i], func(r sinkRef) bool { return r.chain == ref.chain && r.kind == ref.kind }) {
				out[i] = append(out[i], ref)
			}
		}
	}
	for _, s := range f.sinks {
		if !s.constant {
			add(s.vars, sinkRef{kind: s.kind, chain: s.callee, fn: f.name, at: s.pos})
		}
	}
	for _, call := range f.calls {
		callee := t.funcs[call.callee]
		if callee == nil {
			continue
		}
		for j, refs := range t.paramSinks(call.callee) {
			for _, ref := range refs {
				add(argVars(callee, call, j), sinkRef{kind: ref.kind, chain: callee.name + " → " + ref.chain, fn: ref.fn, at: ref.at})
			}
		}
	}
	t.paramMemo[key] = out
	return out
}

// presentGuards are the checks in effect before a call in f: f's own checks before it, and
// every check of the functions f calls before it (through at most maxVia helpers).
func (t *treeSummary) presentGuards(f *funcSummary, before token.Position) map[string]bool {
	out := map[string]bool{}
	for _, g := range f.guards {
		if g.pos.Offset < before.Offset {
			out[g.id] = true
			for _, c := range g.calls {
				out[c] = true
			}
		}
	}
	seen := map[string]bool{f.key: true}
	var inside func(key string, depth int)
	inside = func(key string, depth int) {
		callee := t.funcs[key]
		if callee == nil || seen[key] || depth > maxVia {
			return
		}
		seen[key] = true
		for _, g := range callee.guards {
			out[g.id] = true
			for _, c := range g.calls {
				out[c] = true
			}
		}
		for _, call := range callee.calls {
			inside(call.callee, depth+1)
		}
	}
	for _, call := range f.calls {
		if call.pos.Offset < before.Offset {
			inside(call.callee, 1)
		}
	}
	return out
}

func (t *treeSummary) callersOf(key string) []*funcSummary {
	if t.callers == nil {
		t.callers = map[string][]*funcSummary{}
		for _, f := range t.funcs {
			for _, call := range f.calls {
				if !slices.Contains(t.callers[call.callee], f) {
					t.callers[call.callee] = append(t.callers[call.callee], f)
				}
			}
		}
	}
	return t.callers[key]
}

func guardIDs(f *funcSummary) map[string]bool {
	out := map[string]bool{}
	for _, g := range f.guards {
		out[g.id] = true
		for _, c := range g.calls {
			out[c] = true
		}
	}
	return out
}

func (c *comparison) guards(bf, hf *funcSummary) {
	hSinks := c.head.effectiveSinks(hf)
	bSinks := c.base.effectiveSinks(bf)
	// One finding per kind of sensitive call and function, at the first head call that lost its
	// check.
	done := map[string]bool{}
	for _, bs := range bSinks {
		if bs.constant || done[bs.kind] {
			continue
		}
		var protecting []guardUse
		for _, g := range bf.guards {
			// A check before the call on a value the call uses, or one applied inside the call's
			// arguments (fmt.Fprintf(w, f, html.EscapeString(s))).
			nested := bs.pos.Offset <= g.pos.Offset && g.pos.Offset < bs.end.Offset
			if g.pos.Offset < bs.end.Offset && (g.kinds == nil || g.kinds[bs.kind]) && (nested || related(bf, g.pos.Offset, g.vars, bs.vars)) {
				protecting = append(protecting, g)
			}
		}
		if len(protecting) == 0 {
			continue
		}
		// A check is kept when head still makes it before one of the corresponding calls (calls
		// given the same variables are told apart by nothing but their order, which a change
		// shifts).
		var cands []sinkUse
		for _, hs := range matchSinks(hSinks, bSinks, bs) {
			if !hs.constant {
				cands = append(cands, hs)
			}
		}
		if len(cands) == 0 {
			continue
		}
		var lost []guardUse
		presents := make([]map[string]bool, len(cands)) // the checks before each candidate, computed once
		for _, g := range protecting {
			kept := false
			for k, hs := range cands {
				if presents[k] == nil {
					presents[k] = c.head.presentGuards(hf, hs.end)
				}
				present := presents[k]
				kept = present[g.id] || slices.ContainsFunc(g.calls, func(id string) bool { return present[id] })
				if kept {
					break
				}
			}
			if !kept {
				lost = append(lost, g)
			}
		}
		hs := cands[0]
		if len(lost) == 0 || c.replaced(bf, hf, hs, lost) || c.callersGuard(hf, lost) {
			continue
		}
		done[bs.kind] = true
		strong := slices.ContainsFunc(lost, func(g guardUse) bool { return g.strong })
		sev := voting.SeverityMedium
		if strong {
			sev = voting.SeverityHigh
		}
		at, fn, where := hs.pos, hf.name, ""
		if hs.atFunc != "" {
			// Through a helper: at the sensitive call inside it, naming the function that lost
			// the check.
			at, fn, where = hs.at, hs.atFunc, " in "+hf.name
		}
		c.reportCWE(RuleGuardRemoved, sev, at, fn, fmt.Sprintf("the change removed %s%s from the path to %s (%s): the base checked the value before this call, the head passes it unchecked",
			describeGuards(lost), where, hs.callee, sinkRisk[hs.kind]), sinkCWE[hs.kind])
	}
}

// sinkSig identifies a sensitive call across trees: its callee and the variables it is given.
func sinkSig(s sinkUse) string {
	vars := append([]string(nil), s.vars...)
	sort.Strings(vars)
	return s.callee + "(" + strings.Join(slices.Compact(vars), ",") + ")"
}

// matchSinks are head's calls that correspond to a base sensitive call: the same callee given
// the same variables; else the calls of that callee (else of that kind) that base does not make
// as they are, the calls the change rewrote. A head call that base already made unprotected is
// never one of them.
func matchSinks(head, base []sinkUse, bs sinkUse) []sinkUse {
	inBase := map[string]bool{}
	for _, b := range base {
		inBase[sinkSig(b)] = true
	}
	sig := sinkSig(bs)
	var exact, same, kind []sinkUse
	for _, hs := range head {
		hsig := sinkSig(hs)
		switch {
		case hsig == sig:
			exact = append(exact, hs)
		case inBase[hsig]:
		case hs.callee == bs.callee:
			same = append(same, hs)
		case hs.kind == bs.kind:
			kind = append(kind, hs)
		}
	}
	switch {
	case len(exact) > 0:
		return exact
	case len(same) > 0:
		return same
	}
	return kind
}

// replaced reports whether head checks the value another way before the call: a check of its
// own that base did not have, or a call (before it, with a related argument) of a function base
// did not call that checks; as strong a check as the strongest lost.
func (c *comparison) replaced(bf, hf *funcSummary, hs sinkUse, lost []guardUse) bool {
	needStrong := slices.ContainsFunc(lost, func(g guardUse) bool { return g.strong })
	old := guardIDs(bf)
	for _, g := range hf.guards {
		if g.pos.Offset >= hs.end.Offset || old[g.id] || (needStrong && !g.strong) {
			continue
		}
		if (g.kinds == nil || g.kinds[hs.kind]) && related(hf, g.pos.Offset, g.vars, hs.vars) {
			return true
		}
	}
	called := map[string]bool{}
	for _, call := range bf.calls {
		called[call.callee] = true
	}
	for _, call := range hf.calls {
		if call.pos.Offset >= hs.pos.Offset || called[call.callee] {
			continue
		}
		var args []string
		for _, a := range call.args {
			args = append(args, a...)
		}
		if !related(hf, call.pos.Offset, args, hs.vars) {
			continue
		}
		for id := range c.head.presentGuards(&funcSummary{key: "", calls: []callUse{call}}, hs.pos) {
			if strings.HasPrefix(id, "call:") || !needStrong {
				return true
			}
		}
	}
	return false
}

// callersGuard reports whether the check moved to the callers: f has callers in the loaded
// packages, and each checks (the same check, or a check of what it passes) before calling f.
func (c *comparison) callersGuard(f *funcSummary, lost []guardUse) bool {
	callers := c.head.callersOf(f.key)
	if len(callers) == 0 {
		return false
	}
	ids := map[string]bool{}
	for _, g := range lost {
		ids[g.id] = true
		for _, call := range g.calls {
			ids[call] = true
		}
	}
	for _, caller := range callers {
		for _, call := range caller.calls {
			if call.callee != f.key {
				continue
			}
			var args []string
			for _, a := range call.args {
				args = append(args, a...)
			}
			guarded := false
			for _, g := range caller.guards {
				if g.pos.Offset >= call.end.Offset {
					continue
				}
				same := ids[g.id] || slices.ContainsFunc(g.calls, func(id string) bool { return ids[id] })
				if same || (g.strong && related(caller, g.pos.Offset, g.vars, args)) {
					guarded = true
					break
				}
			}
			if !guarded {
				return false
			}
		}
	}
	return true
}

// funcAt finds the summary of the function name declared in the file at path (relative to the
// tree's root).
func (t *treeSummary) funcAt(path, name string) *funcSummary {
	for _, f := range t.funcs {
		if f.name != name {
			continue
		}
		if rel, err := filepath.Rel(t.root, f.pos.Filename); err == nil && filepath.ToSlash(rel) == path {
			return f
		}
	}
	return nil
}

// callersCheck reports whether f has callers in the loaded packages and each checks what it
// passes (a known check or validator on a value the call is given) before each call of f.
func (t *treeSummary) callersCheck(f *funcSummary) bool {
	callers := t.callersOf(f.key)
	if len(callers) == 0 {
		return false
	}
	for _, caller := range callers {
		for _, call := range caller.calls {
			if call.callee != f.key {
				continue
			}
			var args []string
			for _, a := range call.args {
				args = append(args, a...)
			}
			if !slices.ContainsFunc(caller.guards, func(g guardUse) bool {
				return g.strong && g.pos.Offset < call.pos.Offset && related(caller, g.pos.Offset, g.vars, args)
			}) {
				return false
			}
		}
	}
	return true
}

// describeGuards names lost checks, leaving out a call that a lost if's condition makes.
func describeGuards(lost []guardUse) string {
	inIf := map[string]bool{}
	for _, g := range lost {
		if strings.HasPrefix(g.id, "if:") {
			for _, call := range g.calls {
				inIf[call] = true
			}
		}
	}
	var names []string
	for _, g := range lost {
		if strings.HasPrefix(g.id, "call:") && inIf[g.id] {
			continue
		}
		if !slices.Contains(names, g.desc) {
			names = append(names, g.desc)
		}
	}
	switch len(names) {
	case 0:
		return "a check"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

type clientAgg struct {
	client        bool // an http.Client literal
	clientPos     token.Position
	checkRedirect bool
}

func aggregateClient(settings []clientSetting) clientAgg {
	var a clientAgg
	for _, s := range settings {
		switch s.field {
		case "client":
			if !a.client {
				a.client, a.clientPos = true, s.pos
			}
		case "CheckRedirect":
			a.checkRedirect = true
		}
	}
	return a
}

// redirects finds an http.Client whose redirect policy the change removed.
func (c *comparison) redirects(bf, hf *funcSummary) {
	if len(hf.client) == 0 || len(bf.client) == 0 {
		return
	}
	b, h := aggregateClient(bf.client), aggregateClient(hf.client)
	if b.checkRedirect && !h.checkRedirect && h.client {
		c.reportCWE(RuleGuardRemoved, voting.SeverityHigh, h.clientPos, hf.name,
			"the change removed the http.Client's CheckRedirect policy: the client now follows redirects wherever the server sends them, and the request (its body, its signature) goes along (server-side request forgery, CWE-918)", "CWE-918")
	}
}

func (c *comparison) locks(bf, hf *funcSummary) {
	for _, h := range hf.locks {
		if h.earlyRead.Line == 0 {
			continue
		}
		for _, b := range bf.locks {
			if b.field == h.field && b.mutex == h.mutex && b.lockedRead && b.earlyRead.Line == 0 {
				c.report(RuleLockMovedAfterRead, voting.SeverityHigh, h.earlyRead, hf.name,
					fmt.Sprintf("the change moves the read of %s before %s.Lock(): the base read it with %s held", h.field, h.mutex, h.mutex), RuleLockAfterRead)
				break
			}
		}
	}
}

// mergeWeakened adds the comparison's findings to the new findings, dropping the findings of other
// rules they restate at the same place (keeping the higher severity), and orders them.
func mergeWeakened(fresh, weak []scan.Finding, twins map[loc][]string) []scan.Finding {
	if len(weak) == 0 {
		return fresh
	}
	at := map[loc]int{}
	for i, w := range weak {
		if _, ok := at[loc{w.Path, w.Line}]; !ok {
			at[loc{w.Path, w.Line}] = i
		}
	}
	out := fresh[:0:0]
	for _, f := range fresh {
		l := loc{f.Path, f.Line}
		if slices.Contains(twins[l], f.Rule) {
			if i, ok := at[l]; ok && f.Severity.Rank() > weak[i].Severity.Rank() {
				weak[i].Severity = f.Severity
			}
			continue
		}
		out = append(out, f)
	}
	out = append(out, weak...)
	sortFindings(out)
	return out
}
