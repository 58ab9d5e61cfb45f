package evidence

import (
	"fmt"
	"slices"
	"strings"

	"github.com/debatebot/debatebot/toulmin"
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

// locks reports reads of fields that base made under a lock and head makes outside it.
func (c *sideComparison) locks(p *fnPair) {
	bRegions, hRegions := lockRegions(p.b), lockRegions(p.h)
	for _, r := range bRegions {
		root := dottedRoot(r.lock)
		// the fields base read under the lock: dotted names on the lock's owner, not the
		// lock itself
		var read []string
		for _, n := range p.b.Nodes {
			if n.Line <= r.start || n.Line >= r.end {
				continue
			}
			for _, u := range n.Uses {
				if strings.HasPrefix(u, root+".") && !strings.HasPrefix(u, r.lock) && !slices.Contains(read, u) {
					read = append(read, u)
				}
			}
		}
		for _, field := range read {
			for j, hn := range p.h.Nodes {
				if !p.added[j] && !p.hChanged[j] || !slices.Contains(hn.Uses, field) || inRegion(hRegions, r.lock, hn.Line) || !c.lockStillTaken(p, hRegions, r.lock) {
					continue
				}
				// the read's own line when a call of the statement makes it (len(c.m) in a literal)
				line := hn.Line
				for _, call := range hn.Calls {
					if mentionsName(call.Text, field) {
						line = call.Line
						break
					}
				}
				what := fmt.Sprintf("the lock %s around the read of %s", r.lock, field)
				tail := fmt.Sprintf(" in %s: head reads it at line %d (`%s`) outside that lock, which head still takes, so a concurrent writer can change it mid-read (a data race)", p.h.Name, line, clip(hn.Text, 100))
				c.report(RuleLockRemoved, toulmin.SeverityMedium, p.h.file.Path, line, what, tail)
			}
		}
	}
	c.accessors(p)
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
func lockDeclRemoved(ch *Change, name string) bool {
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
						what := fmt.Sprintf("the call `%s`, which reads %s under %s", clip(call.Text, 80), strings.TrimPrefix(u, self+"."), strings.TrimPrefix(r.lock, self+"."))
						tail := fmt.Sprintf(" in %s: head reads %s directly at line %d, without the lock, so a concurrent writer can change it mid-read (a data race)", p.h.Name, direct, hn.Line)
						c.report(RuleLockRemoved, toulmin.SeverityMedium, p.h.file.Path, hn.Line, what, tail)
					}
				}
			}
		}
	}
}
