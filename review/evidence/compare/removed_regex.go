package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// This file holds the part of the base/head comparison (removed.go) that finds a regular
// expression the change made super-linear: a backtracking engine (JavaScript's, Python's re)
// matching a repetition of alternatives that can match the same characters, or a repetition
// nested in another over the same characters, tries exponentially many ways to split an input
// that fails to match (ReDoS). Go's regexp is linear and is not checked. Go's regexp/syntax
// cannot be used to read the pattern: it merges (.|\s) into one class, which hides the
// ambiguity, so the pattern is read here, as far as needed to see its repetitions.

// charSet approximates a set of characters: the 128 ASCII ones, and whether any other.
type charSet struct {
	lo, hi uint64
	other  bool
}

func (s *charSet) add(r rune) {
	switch {
	case r < 64:
		s.lo |= 1 << uint(r)
	case r < 128:
		s.hi |= 1 << uint(r-64)
	default:
		s.other = true
	}
}

func (s *charSet) addRange(a, b rune) {
	for r := a; r <= b && r < 128; r++ {
		s.add(r)
	}
	if b >= 128 {
		s.other = true
	}
}

func (s charSet) union(t charSet) charSet {
	return charSet{s.lo | t.lo, s.hi | t.hi, s.other || t.other}
}

func (s charSet) overlaps(t charSet) bool {
	return s.lo&t.lo != 0 || s.hi&t.hi != 0 || s.other && t.other
}

func (s charSet) negate() charSet { return charSet{^s.lo, ^s.hi, true} }

func escapeClass(c byte) (charSet, bool) {
	var s charSet
	switch c {
	case 'd', 'D':
		s.addRange('0', '9')
	case 'w', 'W':
		s.addRange('0', '9')
		s.addRange('a', 'z')
		s.addRange('A', 'Z')
		s.add('_')
	case 's', 'S':
		for _, r := range " \t\n\r\f\v" {
			s.add(r)
		}
		s.other = true // \u00a0 and the other Unicode spaces
	default:
		return s, false
	}
	if c >= 'A' && c <= 'Z' {
		s = s.negate()
	}
	return s, true
}

// reItem is one atom of a pattern with its quantifier.
type reItem struct {
	set      charSet    // what a single-character atom matches
	alts     [][]reItem // a group's alternatives
	group    bool
	zero     bool // an anchor or a lookaround: matches no character
	min, max int  // max -1: unbounded
}

type reParser struct {
	s   string
	pos int
}

func (p *reParser) alt() [][]reItem {
	alts := [][]reItem{p.seq()}
	for p.pos < len(p.s) && p.s[p.pos] == '|' {
		p.pos++
		alts = append(alts, p.seq())
	}
	return alts
}

func (p *reParser) seq() []reItem {
	var out []reItem
	for p.pos < len(p.s) && p.s[p.pos] != '|' && p.s[p.pos] != ')' {
		it := p.atom()
		it.min, it.max = 1, 1
		p.quant(&it)
		out = append(out, it)
	}
	return out
}

func (p *reParser) quant(it *reItem) {
	if p.pos >= len(p.s) {
		return
	}
	switch p.s[p.pos] {
	case '*':
		it.min, it.max = 0, -1
		p.pos++
	case '+':
		it.min, it.max = 1, -1
		p.pos++
	case '?':
		it.min, it.max = 0, 1
		p.pos++
	case '{':
		end := strings.IndexByte(p.s[p.pos:], '}')
		if end < 0 {
			return
		}
		lo, hi, comma := strings.Cut(p.s[p.pos+1:p.pos+end], ",")
		n, err := strconv.Atoi(lo)
		if lo == "" && comma {
			n, err = 0, nil // Python's {,n} (literal text in JavaScript, rare there)
		}
		if err != nil {
			return
		}
		it.min, it.max = n, n
		if comma {
			it.max = -1
			if m, err := strconv.Atoi(hi); err == nil {
				it.max = m
			}
		}
		p.pos += end + 1
	default:
		return
	}
	if p.pos < len(p.s) && (p.s[p.pos] == '?' || p.s[p.pos] == '+') {
		p.pos++ // lazy or possessive: the same ways to split, tried in another order
	}
}

// atom reads one atom of the pattern: a group, a character class, an escape, a dot, an anchor or
// a literal character.
func (p *reParser) atom() reItem {
	c := p.s[p.pos]
	p.pos++
	var it reItem
	switch c {
	case '(':
		return p.group()
	case '[':
		return p.class()
	case '\\':
		if p.pos >= len(p.s) {
			it.set.add('\\')
			break
		}
		e := p.s[p.pos]
		p.pos++
		if cs, ok := escapeClass(e); ok {
			it.set = cs
		} else if e == 'b' || e == 'B' || e == 'A' || e == 'Z' || e == 'z' {
			it.zero = true
		} else {
			it.set.add(p.escaped(e))
		}
	case '.':
		it.set = charSet{}
		it.set.add('\n')
		it.set = it.set.negate()
	case '^', '$':
		it.zero = true
	default:
		it.set.add(rune(c))
	}
	return it
}

// group reads a group after its '(': its alternatives, up to and past the ')'. A lookaround
// matches no characters; non-capturing and named groups are read as plain groups.
func (p *reParser) group() reItem {
	it := reItem{group: true}
	if strings.HasPrefix(p.s[p.pos:], "?") {
		switch {
		case strings.HasPrefix(p.s[p.pos:], "?:"):
			p.pos += 2
		case strings.HasPrefix(p.s[p.pos:], "?=") || strings.HasPrefix(p.s[p.pos:], "?!"):
			p.pos += 2
			it.zero = true
		case strings.HasPrefix(p.s[p.pos:], "?<=") || strings.HasPrefix(p.s[p.pos:], "?<!"):
			p.pos += 3
			it.zero = true
		case strings.HasPrefix(p.s[p.pos:], "?P<") || strings.HasPrefix(p.s[p.pos:], "?<"):
			if end := strings.IndexByte(p.s[p.pos:], '>'); end >= 0 {
				p.pos += end + 1
			}
		}
	}
	it.alts = p.alt()
	if p.pos < len(p.s) && p.s[p.pos] == ')' {
		p.pos++
	}
	return it
}

// class reads a character class after its '[', up to and past the ']': its characters,
// ranges and escaped classes, negated by a leading '^'.
func (p *reParser) class() reItem {
	var it reItem
	negate := p.pos < len(p.s) && p.s[p.pos] == '^'
	if negate {
		p.pos++
	}
	first := true
	for p.pos < len(p.s) && (p.s[p.pos] != ']' || first) {
		first = false
		r := rune(p.s[p.pos])
		p.pos++
		if r == '\\' && p.pos < len(p.s) {
			e := p.s[p.pos]
			p.pos++
			if cs, ok := escapeClass(e); ok {
				it.set = it.set.union(cs)
				continue
			}
			r = p.escaped(e)
		}
		if p.pos+1 < len(p.s) && p.s[p.pos] == '-' && p.s[p.pos+1] != ']' {
			hi := rune(p.s[p.pos+1])
			p.pos += 2
			if hi == '\\' && p.pos < len(p.s) {
				p.pos++
				hi = p.escaped(p.s[p.pos-1])
			}
			it.set.addRange(r, hi)
			continue
		}
		it.set.add(r)
	}
	p.pos++ // ]
	if negate {
		it.set = it.set.negate()
	}
	return it
}

// escaped reads the character an escape stands for, e the byte after the backslash: \xHH and
// \uHHHH read their digits.
func (p *reParser) escaped(e byte) rune {
	digits := map[byte]int{'x': 2, 'u': 4}[e]
	if digits > 0 && p.pos+digits <= len(p.s) {
		if v, err := strconv.ParseUint(p.s[p.pos:p.pos+digits], 16, 32); err == nil {
			p.pos += digits
			return rune(v)
		}
	}
	return rune(unescapeChar(e))
}

func unescapeChar(e byte) byte {
	switch e {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return e
}

// first returns the characters a sequence can start with, and whether it can match nothing.
func first(seq []reItem) (charSet, bool) {
	var s charSet
	for _, it := range seq {
		f, nullable := itemFirst(it)
		s = s.union(f)
		if !nullable {
			return s, false
		}
	}
	return s, true
}

func itemFirst(it reItem) (charSet, bool) {
	if it.zero {
		return charSet{}, true
	}
	var f charSet
	nullable := it.min == 0
	if it.group {
		for _, a := range it.alts {
			af, an := first(a)
			f = f.union(af)
			nullable = nullable || an
		}
		return f, nullable
	}
	return it.set, nullable
}

// catastrophic returns why a pattern backtracks exponentially, "" when it does not: a
// repetition of alternatives two of which can start with the same character ((.|\s)*), or a
// repetition of a group that ends in a repetition over characters it can start with ((\w+\s?)*,
// (a+)+).
func catastrophic(pattern string) string {
	p := &reParser{s: pattern}
	var why string
	var walk func(seq []reItem)
	walk = func(seq []reItem) {
		for _, it := range seq {
			if !it.group || why != "" {
				continue
			}
			if it.max == -1 && !it.zero {
				for i := 0; i < len(it.alts) && why == ""; i++ {
					fi, _ := first(it.alts[i])
					for j := i + 1; j < len(it.alts); j++ {
						if fj, _ := first(it.alts[j]); fi.overlaps(fj) {
							why = "a repetition of alternatives that can match the same characters"
							break
						}
					}
				}
				if why == "" && innerAmbiguous(it.alts) {
					why = "a repetition nested in another over the same characters"
				}
			}
			for _, a := range it.alts {
				walk(a)
			}
		}
	}
	for _, a := range p.alt() {
		walk(a)
	}
	return why
}

// reLevel is one step of the way from a repetition down to an item nested in it: the sequence
// that holds the item (or the group holding it) and the index in it.
type reLevel struct {
	seq []reItem
	at  int
}

// innerAmbiguous reports whether an iteration of a repeated group holds an unbounded repetition
// that can take a second way around on the same characters: from the end of the inner repetition
// to the end of the iteration, then from the start of the next iteration back to the inner one,
// every item that must match can match characters of the inner repetition. Then a run of those
// characters splits between the two loops in exponentially many ways ((\w+\s?)*, (a(b+a)?)* with
// a among b's characters); a separator the inner repetition cannot match ((,\w+)*) breaks the
// cycle.
func innerAmbiguous(alts [][]reItem) bool {
	var path []reLevel
	var walk func(seq []reItem) bool
	walk = func(seq []reItem) bool {
		for k, it := range seq {
			path = append(path, reLevel{seq, k})
			if it.max == -1 && !it.zero {
				set, _ := itemFirst(reItem{set: it.set, alts: it.alts, group: it.group, min: 1, max: 1})
				if cyclePassable(path, set) {
					return true
				}
			}
			if it.group && !it.zero {
				for _, a := range it.alts {
					if walk(a) {
						return true
					}
				}
			}
			path = path[:len(path)-1]
		}
		return false
	}
	for _, a := range alts {
		if walk(a) {
			return true
		}
	}
	return false
}

// cyclePassable reports whether the items after the innermost level's item, up every level to
// the end of the iteration, and those before each level's item, from the start of the iteration
// down, can all match characters of set (or nothing).
func cyclePassable(path []reLevel, set charSet) bool {
	for _, l := range path {
		if !seqPassable(l.seq[l.at+1:], set) || !seqPassable(l.seq[:l.at], set) {
			return false
		}
	}
	return true
}

func seqPassable(seq []reItem, set charSet) bool {
	for _, it := range seq {
		if it.zero || it.min == 0 {
			continue
		}
		if it.group {
			ok := false
			for _, a := range it.alts {
				if seqPassable(a, set) {
					ok = true
					break
				}
			}
			if !ok {
				return false
			}
			continue
		}
		if !it.set.overlaps(set) {
			return false
		}
	}
	return true
}

// regexps reports regular expressions head makes catastrophic where base's counterpart was
// not (or where base had none at that place).
func (c *sideComparison) regexps(p *fnPair) {
	if change.LanguageOf(p.h.file.Path) == "go" {
		return // RE2: linear
	}
	bases := map[int]int{}
	for i, j := range p.sortedPairs() {
		bases[j] = i
	}
	for j, hn := range p.h.Nodes {
		if !p.added[j] && !p.hChanged[j] {
			continue
		}
		for _, re := range hn.Regexps {
			why := catastrophic(re)
			if why == "" {
				continue
			}
			was := false
			if i, ok := bases[j]; ok {
				for _, bre := range p.b.Nodes[i].Regexps {
					if bre == re || catastrophic(bre) != "" {
						was = true
					}
				}
			}
			if was {
				continue
			}
			c.reportRegexp(p.h.file.Path, hn.Line, re, why, p.h.Name)
		}
	}
}

// fileRegexps reports the patterns compiled outside functions (a module's constants, built by
// joining others) that head makes catastrophic where base's pattern of the same name was not.
func (c *sideComparison) fileRegexps(sf *sideFile) {
	bases := map[string][]string{}
	for _, r := range sf.base.Regexps {
		bases[r.Name] = append(bases[r.Name], r.Pattern)
	}
	for _, r := range sf.head.Regexps {
		why := catastrophic(r.Pattern)
		if why == "" {
			continue
		}
		was := false
		for _, b := range bases[r.Name] {
			if b == r.Pattern || catastrophic(b) != "" {
				was = true
			}
		}
		if !was {
			where := r.Name
			if where == "" {
				where = "the module"
			}
			c.reportRegexp(sf.head.Path, r.Line, r.Pattern, why, where)
		}
	}
}

func (c *sideComparison) reportRegexp(path string, line int, re, why, where string) {
	what := fmt.Sprintf("a regular expression super-linear: /%s/ has %s", scan.Clip(re, 100), why)
	tail := fmt.Sprintf(" (in %s): on an input that almost matches, a backtracking engine tries exponentially many ways to split it, and one request can hold the process for minutes (ReDoS)", where)
	c.report(rules.RuleRegexBacktracking, voting.SeverityMedium, path, line, what, tail)
}
