package compare

import (
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// This file holds the parts of the base/head comparison (removed.go) that find conditions the
// change weakened: a term dropped where that loosens the check, a separator dropped from a
// prefix check.

// weakened reports conditions that lost a term where the loss loosens them: a disjunct of a
// guard's refusal, a conjunct of an action's or an assertion's condition.
func (c *sideComparison) weakened(p *fnPair) {
	for i, j := range p.changedPairs() {
		bn, hn := p.b.Nodes[i], p.h.Nodes[j]
		if bn.Cond == nil || hn.Cond == nil || bn.Kind == kindLoop {
			continue
		}
		if !termsSubset(hn.Cond.Terms, bn.Cond.Terms) || hn.Cond.Op != "" && hn.Cond.Op != bn.Cond.Op {
			continue
		}
		// a guard refusing what its condition tests; one whose else refuses (if (ok) {...} else
		// {throw}) tests what it allows, as an action's condition does
		exitGuard := bn.Kind == kindIf && bn.Exits && !bn.ElseExits
		loosens := bn.Cond.Op == "or" && exitGuard || bn.Cond.Op == "and" && (bn.Kind == kindAssert || bn.Kind == kindIf && !exitGuard)
		if !loosens {
			continue
		}
		have := map[string]bool{}
		for _, t := range hn.Cond.Terms {
			have[termKey(t)] = true
		}
		var dropped []string
		moved := true
		for _, t := range bn.Cond.Terms {
			if !have[termKey(t)] && !redundantDrop(bn.Cond.Op, t, hn.Cond.Terms) {
				dropped = append(dropped, "`"+scan.Clip(t, 100)+"`")
				moved = moved && termMoved(p, j, t)
			}
		}
		if moved {
			// Every dropped term is tested by a statement head adds (a split, not a loss) or is
			// implied by a term kept (not exists(p) beside not isfile(p)).
			continue
		}
		effect := "it now refuses fewer cases"
		if !exitGuard {
			effect = "what it guards now runs in more cases"
		}
		hit, ok := c.sinkAfter(p.h, j)
		sev := voting.SeverityMedium
		if ok {
			sev = voting.SeverityHigh
		}
		what := fmt.Sprintf("the condition `%s` by dropping %s", scan.Clip(bn.Cond.Text, 140), strings.Join(dropped, ", "))
		tail := fmt.Sprintf(" in %s: %s (head: `%s`)", p.h.Name, effect, scan.Clip(hn.Cond.Text, 120)) + sinkClause(hit, ok, p.h.file.Path)
		c.report(rules.RuleConditionWeakened, sev, p.h.file.Path, hn.Line, what, tail)
	}
}

// trivialLiterals say nothing a truthiness test does not.
var trivialLiterals = map[string]bool{"0": true, "1": true, `""`: true}

// termMoved reports whether a statement head adds to the function (other than the condition
// itself) tests what a dropped term tested: one of its names and all of its literals
// (host.endswith(':80') moved into host.removesuffix(':80'); complete_length == 0 into a new
// if not complete_length).
func termMoved(p *fnPair, j int, term string) bool {
	var names, lits []string
	for _, t := range tokens(term) {
		s := string(t)
		switch c := rune(s[0]); {
		case c == '"' || c >= '0' && c <= '9':
			if !trivialLiterals[s] {
				lits = append(lits, s)
			}
		case !noise[s] && (c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			names = append(names, s)
		}
	}
	for k, hn := range p.h.Nodes {
		if k == j || !p.added[k] && !p.hChanged[k] {
			continue
		}
		w := words(hn.Text)
		shared := false
		for _, n := range names {
			if w[n] {
				shared = true
			}
		}
		for _, l := range lits {
			if !w[l] {
				shared = false
			}
		}
		if shared {
			return true
		}
	}
	return false
}

// separatorSeqs are the path separators a prefix check appends to its root.
var separatorSeqs = [][]lexeme{
	{"os", ".", "path", ".", "sep"}, {"os", ".", "sep"}, {"path", ".", "sep"}, {"pth", ".", "sep"}, {"filepath", ".", "Separator"},
	{"string", "(", "filepath", ".", "Separator", ")"}, {"string", "(", "os", ".", "PathSeparator", ")"}, {`"/"`}, {`"\\"`},
}

// separators reports prefix checks whose root lost its separator (startswith(root + sep) →
// startswith(root)): /srv/data-secret then passes for the root /srv/data.
func (c *sideComparison) separators(p *fnPair) {
	for i, j := range p.changedPairs() {
		bn, hn := p.b.Nodes[i], p.h.Nodes[j]
		for _, bc := range bn.Calls {
			switch bc.name() {
			case "startswith", "startsWith", "HasPrefix", "indexOf", "lastIndexOf":
			default:
				continue
			}
			for _, hc := range hn.Calls {
				if hc.name() != bc.name() || hc.Text == bc.Text {
					continue
				}
				if sep, ok := dropsSeparator(tokens(bc.Text), tokens(hc.Text)); ok {
					hit, hok := c.sinkAfter(p.h, j)
					sev := voting.SeverityMedium
					if hok {
						sev = voting.SeverityHigh
					}
					what := fmt.Sprintf("the prefix check `%s` by dropping the separator `%s`", scan.Clip(bc.Text, 120), sep)
					tail := fmt.Sprintf(" in %s: `%s` also accepts a sibling whose name merely starts with the root (root /srv/data accepts /srv/data-secret)", p.h.Name, scan.Clip(hc.Text, 120)) + sinkClause(hit, hok, p.h.file.Path)
					c.report(rules.RuleConditionWeakened, sev, p.h.file.Path, hn.Line, what, tail)
				}
			}
		}
	}
}

// dropsSeparator reports whether head's tokens are base's with one "+ separator" left out.
func dropsSeparator(base, head []lexeme) (string, bool) {
	for i := 0; i < len(base); i++ {
		if base[i] != "+" {
			continue
		}
		for _, sep := range separatorSeqs {
			end := i + 1 + len(sep)
			if end > len(base) || !equalLexemes(base[i+1:end], sep) {
				continue
			}
			rest := append(append([]lexeme{}, base[:i]...), base[end:]...)
			if equalLexemes(rest, head) {
				parts := make([]string, len(sep))
				for k, s := range sep {
					parts[k] = string(s)
				}
				return strings.Join(parts, ""), true
			}
		}
	}
	return "", false
}

func equalLexemes(a, b []lexeme) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
