package compare

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// This file holds the part of the base/head comparison (removed.go) that finds reads the change
// took out of the lock base held around them: a read moved before the Lock (or out of the with
// block), and an accessor that reads a field under its lock replaced by a direct read of the
// field.

// lockRegion is the span of a function's lines during which a lock is held.
type lockRegion struct {
	lock       string // the lock's expression: c.mu, self._lock
	start, end int    // lines, exclusive of the acquiring statement
}

var (
	lockNames   = map[string]bool{"Lock": true, "RLock": true, "acquire": true}
	unlockNames = map[string]bool{"Unlock": true, "RUnlock": true, "release": true}
)

// lockRegions finds where fn surely holds a lock: from a Lock call to the first Unlock on the
// same lock after it, at any depth (to the function's end for a deferred or missing Unlock),
// and the body of a with block on a lock.
func lockRegions(fn *irFunc) []lockRegion {
	var out []lockRegion
	for i, n := range fn.Nodes {
		if n.Kind == kindWith {
			for _, call := range n.Calls {
				if strings.Contains(strings.ToLower(call.Callee), "lock") {
					out = append(out, lockRegion{qualifier(call.Callee), n.HeadEnd, n.End + 1})
				}
			}
			if len(n.Calls) == 0 && strings.Contains(strings.ToLower(n.Text), "lock") {
				out = append(out, lockRegion{strings.TrimSpace(strings.TrimPrefix(n.Text, "with ")), n.HeadEnd, n.End + 1})
			}
			continue
		}
		if n.Kind != kindExpr {
			continue
		}
		for _, call := range n.Calls {
			if !lockNames[call.name()] || qualifier(call.Callee) == "" {
				continue
			}
			// the region ends at the first release on any path: a read after an early
			// Unlock (if x { mu.Unlock(); return }) may run without the lock
			lock := qualifier(call.Callee)
			end := fn.End + 1
			for _, m := range fn.Nodes[i+1:] {
				released := false
				for _, mc := range m.Calls {
					if unlockNames[mc.name()] && qualifier(mc.Callee) == lock && m.Kind != kindDefer {
						released = true
					}
				}
				if released {
					end = m.Line
					break
				}
			}
			out = append(out, lockRegion{lock, n.Line, end})
		}
	}
	return out
}

func inRegion(regions []lockRegion, lock string, line int) bool {
	for _, r := range regions {
		if r.lock == lock && line > r.start && line < r.end {
			return true
		}
	}
	return false
}

// locks reports reads of fields that base made under a lock and head makes outside it: a read
// moved out of the region the function still locks (at the changed line), or every read left
// when the change drops the lock from the function altogether (at the first read of each field:
// the lines that lost the lock are the removed ones above it).
func (c *sideComparison) locks(p *fnPair) {
	bRegions, hRegions := lockRegions(p.b), lockRegions(p.h)
	if len(hRegions) == 0 && len(bRegions) > 0 && !CalledLocked(p.h.Name) {
		if p.sf.fragment && lockDeclRemoved(c.s.Change, lastSegment(bRegions[0].lock)) {
			return // hunks only: the change deletes the lock itself, not just its use here
		}
		c.droppedLock(p, bRegions)
		c.accessors(p)
		return
	}
	for _, r := range bRegions {
		for _, field := range readsIn(p.b, r) {
			for j, hn := range p.h.Nodes {
				if !p.added[j] && !p.hChanged[j] || !slices.Contains(hn.Uses, field) || atomicUse(hn.Text, field) || inRegion(hRegions, r.lock, hn.Line) || !c.lockStillTaken(p, hRegions, r.lock) {
					continue
				}
				what := fmt.Sprintf("the lock %s around the read of %s", r.lock, field)
				tail := fmt.Sprintf(" in %s: head reads it at line %d (`%s`) outside the lock it still takes, so a concurrent writer can change it mid-read (a data race)", p.h.Name, useLine(hn, field), scan.Clip(hn.Text, 100))
				c.report(rules.RuleLockRemoved, voting.SeverityMedium, p.h.file.Path, useLine(hn, field), what, tail)
			}
		}
	}
	c.accessors(p)
}

// droppedLock reports a function from which the change took every lock while it still reads
// fields base read under one: once, at the first such read.
func (c *sideComparison) droppedLock(p *fnPair, bRegions []lockRegion) {
	var lock string
	var fields []string
	line := 0
	var first *irNode
	for _, r := range bRegions {
		for _, field := range readsIn(p.b, r) {
			for _, hn := range p.h.Nodes {
				if !slices.Contains(hn.Uses, field) || atomicUse(hn.Text, field) {
					continue
				}
				if !slices.Contains(fields, field) {
					fields = append(fields, field)
				}
				if l := useLine(hn, field); line == 0 || l < line {
					line, first, lock = l, hn, r.lock
				}
			}
		}
	}
	if first == nil {
		return
	}
	if len(fields) > 3 {
		fields = append(fields[:3], "...")
	}
	what := fmt.Sprintf("the lock %s around the reads of %s", lock, strings.Join(fields, ", "))
	tail := fmt.Sprintf(" in %s: head takes no lock there and still reads them (from line %d: `%s`), so a concurrent writer can change them mid-read (a data race)", p.h.Name, line, scan.Clip(first.Text, 100))
	c.report(rules.RuleLockRemoved, voting.SeverityMedium, p.h.file.Path, line, what, tail)
}

// useLine is the line of a statement where it reads field: the line of the call that takes it
// (a statement over several lines, a composite literal), else the statement's.
func useLine(n *irNode, field string) int {
	for _, call := range n.Calls {
		for _, a := range call.Args {
			if a == field || strings.HasPrefix(a, field+".") || strings.HasPrefix(a, field+"[") {
				return call.Line
			}
		}
		if strings.HasPrefix(call.Callee, field+".") {
			return call.Line
		}
	}
	return n.Line
}

// readsIn returns the dotted names on the lock's owner that fn reads inside the region, less
// the lock itself: c.count under c.mu, h.hmap under h (an embedded mutex, h.Lock()).
func readsIn(fn *irFunc, r lockRegion) []string {
	root := dottedRoot(r.lock)
	var read []string
	for _, n := range fn.Nodes {
		if n.Line <= r.start || n.Line >= r.end {
			continue
		}
		for _, u := range n.Uses {
			if !strings.HasPrefix(u, root+".") || slices.Contains(read, u) {
				continue
			}
			if r.lock != root && (u == r.lock || strings.HasPrefix(u, r.lock+".")) {
				continue // the lock, or a method of it
			}
			if r.lock == root && (lockNames[strings.TrimPrefix(u, root+".")] || unlockNames[strings.TrimPrefix(u, root+".")]) {
				continue
			}
			read = append(read, u)
		}
	}
	return read
}

// lockedSuffixes name a function its callers call with the lock held (removeLocked,
// _locked_update): dropping the lock from its body moved it to the callers.
var lockedSuffixes = []string{"Locked", "locked", "_locked", "_unlocked", "NoLock", "_nolock"}

// CalledLocked reports whether a function's name says its callers hold the lock.
func CalledLocked(name string) bool {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		name = name[i+1:]
	}
	for _, s := range lockedSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// atomicOps are the calls of sync/atomic's typed values (x.n.Load()); atomicCall matches a
// sync/atomic function given the field (atomic.LoadInt64(&x.n)), Python's and JavaScript's
// Atomics: a read through them gave the lock way to an atomic access.
var (
	atomicOps  = []string{"Load", "Store", "Add", "CompareAndSwap", "Swap", "And", "Or"}
	atomicCall = regexp.MustCompile(`\b(?:atomic|Atomics)\.\w+\(\s*&?\s*([\w.]+)`)
)

func atomicUse(text, field string) bool {
	for _, op := range atomicOps {
		if strings.Contains(text, field+"."+op+"(") {
			return true
		}
	}
	for _, m := range atomicCall.FindAllStringSubmatch(text, -1) {
		if m[1] == field {
			return true
		}
	}
	return false
}

// holdsLock reports whether head still takes the lock somewhere in the function.
func holdsLock(regions []lockRegion, lock string) bool {
	for _, r := range regions {
		if r.lock == lock {
			return true
		}
	}
	return false
}

// accessors reports a call to an accessor that reads a field under its lock (func (sp) Count()
// { sp.mu.Lock(); defer sp.mu.Unlock(); return sp.count }) replaced by a direct read of the
// field (sp.count).
func (c *sideComparison) accessors(p *fnPair) {
	for i, j := range p.changedPairs() {
		bn, hn := p.b.Nodes[i], p.h.Nodes[j]
		for _, call := range bn.Calls {
			recv := qualifier(call.Callee)
			if recv == "" || nodeCalls(hn, call.Callee) {
				continue
			}
			fn := c.base.resolve(call.Callee, p.b)
			if fn == nil {
				continue
			}
			self := fn.Recv
			if self == "" && len(fn.Params) > 0 && fn.Params[0] == "self" {
				self = "self"
			}
			if self == "" {
				self = "this"
			}
			regions := lockRegions(fn)
			for _, r := range regions {
				if dottedRoot(r.lock) != self {
					continue
				}
				for _, n := range fn.Nodes {
					if n.Kind != kindReturn || n.Line <= r.start || n.Line >= r.end {
						continue
					}
					for _, u := range n.Uses {
						if !strings.HasPrefix(u, self+".") || strings.HasPrefix(u, r.lock) {
							continue
						}
						direct := recv + strings.TrimPrefix(u, self)
						if !slices.Contains(hn.Uses, direct) {
							continue
						}
						what := fmt.Sprintf("the call `%s`, which reads %s under %s", scan.Clip(call.Text, 80), strings.TrimPrefix(u, self+"."), strings.TrimPrefix(r.lock, self+"."))
						tail := fmt.Sprintf(" in %s: head reads %s directly at line %d, without the lock, so a concurrent writer can change it mid-read (a data race)", p.h.Name, direct, hn.Line)
						c.report(rules.RuleLockRemoved, voting.SeverityMedium, p.h.file.Path, hn.Line, what, tail)
					}
				}
			}
		}
	}
}

// lockStillTaken reports whether head still takes the lock: in the function, or in another
// function of the change on the same field of the same kind of owner (c.mu in one method, c.mu
// in another): the lock still guards writers, so a read without it races with them.
func (c *sideComparison) lockStillTaken(p *fnPair, regions []lockRegion, lock string) bool {
	if holdsLock(regions, lock) {
		return true
	}
	root := dottedRoot(lock)
	field := strings.TrimPrefix(lock, root)
	if field == "" {
		return false
	}
	if p.sf.fragment {
		// hunks only: the other functions are not seen; the lock stays unless the change
		// deletes its declaration
		return !lockDeclRemoved(c.s.Change, lastSegment(lock))
	}
	for _, fn := range c.head.byKey {
		for _, r := range lockRegions(fn) {
			if strings.TrimPrefix(r.lock, dottedRoot(r.lock)) == field {
				return true
			}
		}
	}
	return false
}

// lockDeclRemoved reports whether the change deletes a line that declares the lock field name
// (mu sync.Mutex, self.mu = threading.Lock(), this.mu = new Mutex()).
func lockDeclRemoved(ch *change.Change, name string) bool {
	for _, f := range ch.Files {
		for _, l := range f.DeletedLines() {
			t := strings.TrimSpace(l.Text)
			if strings.HasPrefix(t, name+" ") || strings.Contains(t, "."+name+" =") {
				return true
			}
		}
	}
	return false
}
