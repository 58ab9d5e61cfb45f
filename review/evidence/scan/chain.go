package scan

import (
	"cmp"
	"fmt"
	"sort"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/voting"
)

// Processor is one step of a chain: it returns the findings it keeps, in order.
type Processor interface {
	Name() string
	Process(found []Finding) ([]Finding, error)
}

// scanChain makes the evidence of what the scan's analyzers reported, in order.
func scanChain() []Processor {
	return []Processor{
		placeOrder{},     // a total order by the analyzer's precedence, place, rule and source: not the order findings came in
		uniquePlace{},    // the same rule at the same place once
		processNotes{},   // process notes never decide: at most medium
		absorbWeakness{}, // a type-checked finding of another weakness than its rule's takes in that weakness's earlier findings
		restated{},       // a maintained linter restating a hand-written rule on one line: one finding
		corroborated{},   // the same weakness (CWE) by several analyzers a few lines apart: one finding
		bySeverity{},     // the most severe first, then by place
	}
}

// RunChain runs found through chain; a processor that fails is left out, and what it said is
// returned with the findings the others made.
func RunChain(chain []Processor, found []Finding) ([]Finding, []error) {
	var errs []error
	for _, p := range chain {
		out, err := p.Process(found)
		if err != nil {
			errs = append(errs, fmt.Errorf("the %s processor failed, so the findings are as the processors before it left them: %w", p.Name(), err))
			continue
		}
		found = out
	}
	return found, errs
}

// uniquePlace keeps the first finding of each rule at each place (and, for a mitigation, each
// rule it weakens); findings about the change's text (no path: title, description, file names)
// differ by what they quote.
type uniquePlace struct{}

func (uniquePlace) Name() string { return "unique place" }

func (uniquePlace) Process(found []Finding) ([]Finding, error) {
	seen := map[string]bool{}
	out := make([]Finding, 0, len(found))
	for _, f := range found {
		key := fmt.Sprintf("%s|%s|%d|%s", f.Rule, f.Path, f.Line, f.Mitigates)
		if f.Path == "" {
			key += "|" + f.Message
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, f)
	}
	return out, nil
}

// processNotes caps the findings of process rules (see Rule.Process) at medium: they never
// decide.
type processNotes struct{}

func (processNotes) Name() string { return "process notes" }

func (processNotes) Process(found []Finding) ([]Finding, error) {
	out := make([]Finding, 0, len(found))
	for _, f := range found {
		if rules.Rules[f.Rule].Process && f.Severity.Rank() > voting.SeverityMedium.Rank() {
			f.Severity = voting.SeverityMedium
		}
		out = append(out, f)
	}
	return out, nil
}

// placeOrder sorts the findings by a total order: the precedence of the analyzer that reported
// them (Finding.rank: its place in the gathering's list of analyzers, the type-checked families
// sharing one), then path, line, column, rule, source, what a mitigation weakens, severity (the
// most severe first) and message. The processors after it keep or merge the earlier of two
// findings; with this order, "earlier" is a property of the findings, not of the order in which
// they were reported, so that splitting an analyzer, or the order its findings come in, leaves
// the evidence as it was.
type placeOrder struct{}

func (placeOrder) Name() string { return "place order" }

func (placeOrder) Process(found []Finding) ([]Finding, error) {
	out := append([]Finding(nil), found...)
	sort.SliceStable(out, func(i, j int) bool { return placeLess(out[i], out[j]) })
	return out, nil
}

// placeLess is placeOrder's order: the reporting analyzer's precedence, then the place, rule,
// source and what the finding mitigates, the more severe first, then the message and weakness.
func placeLess(a, b Finding) bool {
	return cmp.Or(
		cmp.Compare(a.rank, b.rank),
		cmp.Compare(a.Path, b.Path),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Source, b.Source),
		cmp.Compare(a.Mitigates, b.Mitigates),
		cmp.Compare(b.Severity.Rank(), a.Severity.Rank()),
		cmp.Compare(a.Message, b.Message),
		cmp.Compare(a.CWE, b.CWE),
	) < 0
}

// absorbWeakness lets a finding whose weakness is not its rule's (Finding.cwe: a removed check
// before a file call is a path traversal) take in the findings of that weakness reported before
// it a few lines away in its file (the same defect, found by another analyzer), naming them in
// its message as corroborated does, with the more severe severity of them all.
type absorbWeakness struct{}

func (absorbWeakness) Name() string { return "absorb weakness" }

func (absorbWeakness) Process(found []Finding) ([]Finding, error) {
	out := make([]Finding, 0, len(found))
	for _, f := range found {
		if f.CWE != "" {
			kept := out[:0]
			for _, e := range out {
				if e.Mitigates == "" && e.Path == f.Path && rules.Rules[e.Rule].CWE == f.CWE && abs(e.Line-f.Line) <= corroborateSpan {
					f.Message += alsoFound(e)
					if e.Severity.Rank() > f.Severity.Rank() {
						f.Severity = e.Severity
					}
					continue
				}
				kept = append(kept, e)
			}
			out = kept
		}
		out = append(out, f)
	}
	return out, nil
}

// restatements are the hand-written rules a maintained linter's rule says again, by the linter's
// rule: on one line, the two are one finding.
var restatements = map[string]string{
	"errcheck": rules.RuleIgnoredError,
}

// restated folds a hand-written rule's finding into the maintained linter's finding that
// restates it on the same line of the same file (errcheck and ignored-error on one dropped
// error): the more severe stays, on a tie the maintained linter's, naming the other.
type restated struct{}

func (restated) Name() string { return "restated" }

func (restated) Process(found []Finding) ([]Finding, error) {
	out := make([]Finding, 0, len(found))
	for _, f := range found {
		merged := false
		for i, k := range out {
			lint, hand := k, f
			if restates(f, k) {
				lint, hand = f, k
			} else if !restates(k, f) {
				continue
			}
			keep, other := lint, hand
			if hand.Severity.Rank() > lint.Severity.Rank() {
				keep, other = hand, lint
			}
			keep.Message += alsoFound(other)
			if keep.Replacement == "" {
				keep.Replacement = other.Replacement
			}
			if keep.Fix.IsZero() {
				keep.Fix = other.Fix
			}
			out[i] = keep
			merged = true
			break
		}
		if !merged {
			out = append(out, f)
		}
	}
	return out, nil
}

// restates reports whether lint is a maintained linter's finding that says again what hand, a
// hand-written rule's finding, says on the same line (neither being a mitigation).
func restates(lint, hand Finding) bool {
	return restatements[lint.Rule] != "" && restatements[lint.Rule] == hand.Rule && lint.Path != "" &&
		lint.Path == hand.Path && lint.Line == hand.Line && lint.Mitigates == "" && hand.Mitigates == ""
}

// corroborateSpan is how far apart, in lines of one file, two analyzers' findings of the same
// weakness may be and still be one defect: gosec reports SQL injection where the query is
// formatted, the Go analyzer where it is run, usually on the next line or two.
const corroborateSpan = 3

// corroborated merges findings of the same weakness (the rules' CWE) in the same file, a few
// lines apart, reported by different analyzers, or by different rules of one analyzer on one
// line (gosec's AST rule and its taint rule on one query): the hand-written analyzers still run
// where no library covers every case (hunks only, other languages), and where a library does,
// the defect must be one required change, not one per analyzer. The more severe finding stays;
// on a tie, the type-checked one, whose analysis knows more (a taint rule knows the value comes
// from the request), else the earlier one. It names the others.
type corroborated struct{}

func (corroborated) Name() string { return "corroborated" }

func (corroborated) Process(found []Finding) ([]Finding, error) { return corroborate(found), nil }

func corroborate(found []Finding) []Finding {
	out := make([]Finding, 0, len(found))
	for _, f := range found {
		cwe := rules.Rules[f.Rule].CWE
		merged := false
		for i := range out {
			k := &out[i]
			if cwe == "" || k.Mitigates != "" || f.Mitigates != "" || rules.Rules[k.Rule].CWE != cwe || k.Path != f.Path || f.Path == "" {
				continue
			}
			if sameSource := k.Source == f.Source; sameSource && (k.Line != f.Line || k.Rule == f.Rule) || !sameSource && abs(k.Line-f.Line) > corroborateSpan {
				continue
			}
			if r, kr := f.Severity.Rank(), k.Severity.Rank(); r > kr || r == kr && rules.IsTypedGo(f.Source) && !rules.IsTypedGo(k.Source) {
				f, *k = *k, f
			}
			k.Message += alsoFound(f)
			if k.Replacement == "" && k.Line == f.Line {
				k.Replacement = f.Replacement
			}
			if k.Fix.IsZero() && !f.Fix.IsZero() && f.Fix.From <= k.Line && k.Line <= f.Fix.To {
				k.Fix = f.Fix // the other's edit covers the kept finding's line
			}
			merged = true
			break
		}
		if !merged {
			out = append(out, f)
		}
	}
	return out
}

// alsoFound is what a merged finding says of one it took in.
func alsoFound(f Finding) string {
	return fmt.Sprintf("; also found by %s (%s at line %d)", f.Source, f.Rule, f.Line)
}

// bySeverity orders the findings by severity (the most severe first), then path, line and rule;
// findings equal in all four keep their order.
type bySeverity struct{}

func (bySeverity) Name() string { return "by severity" }

func (bySeverity) Process(found []Finding) ([]Finding, error) {
	out := append([]Finding(nil), found...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity.Rank() != b.Severity.Rank() {
			return a.Severity.Rank() > b.Severity.Rank()
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	})
	return out, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
