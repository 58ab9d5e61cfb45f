package toulmin

import (
	"fmt"
	"slices"
	"strings"
)

// BudgetStop records that the debate's model spend reached the protocol's MaxCostUSD: the
// phases still ahead were skipped, but for the synthesis and the decision, so that the debate
// still ends with the maintainers' synthesis and a vote.
type BudgetStop struct {
	// LimitUSD is the limit; SpentUSD what the debate had spent when it was reached, after the
	// phase After of round Round.
	LimitUSD float64   `json:"limit_usd" yaml:"limit_usd"`
	SpentUSD float64   `json:"spent_usd" yaml:"spent_usd"`
	After    PhaseKind `json:"after" yaml:"after"`
	Round    int       `json:"round" yaml:"round"`
	// Skipped lists the phases left out for it, once each, in order.
	Skipped []PhaseKind `json:"skipped,omitempty" yaml:"skipped,omitempty"`
}

// Sentence says in plain words what the budget did to the debate.
func (b *BudgetStop) Sentence() string {
	s := fmt.Sprintf("the debate's model spend ($%.4f) reached its limit of $%.4f after %s", b.SpentUSD, b.LimitUSD, phaseName(b.After))
	if len(b.Skipped) == 0 {
		return s
	}
	names := make([]string, len(b.Skipped))
	for i, k := range b.Skipped {
		names[i] = phaseName(k)
	}
	return s + ", so it ended early: " + strings.Join(names, ", ") + " skipped"
}

// phaseName is a phase's title in lower case, for a sentence.
func phaseName(k PhaseKind) string {
	if t := k.Title(); t != "" {
		return strings.ToLower(t)
	}
	return strings.ReplaceAll(string(k), "_", " ")
}

// budgetSkips says whether the budget stop leaves out a phase of kind k: every phase but the
// synthesis and the decision, once the limit is reached. It records the phase as skipped.
func (r *run) budgetSkips(k PhaseKind) bool {
	b := r.t.BudgetStop
	if b == nil || k == PhaseSynthesis || k == PhaseDecision {
		return false
	}
	if !slices.Contains(b.Skipped, k) {
		b.Skipped = append(b.Skipped, k)
	}
	return true
}

// checkBudget stops the debate's rounds once what it has spent reaches the protocol's
// MaxCostUSD, after a phase that called agents and before the synthesis (nothing is left to
// end early after it); the phase's notes say so.
func (r *run) checkBudget(spec PhaseSpec, round int, rec *PhaseRecord) {
	limit := r.e.protocol.MaxCostUSD
	if limit <= 0 || r.t.BudgetStop != nil || r.t.Usage.CostUSD < limit {
		return
	}
	switch spec.Kind {
	case PhaseEvidence, PhaseSynthesis, PhaseDecision:
		return
	}
	if r.inLoop(spec.Kind) {
		r.t.Rounds = max(r.t.Rounds, round)
	}
	r.t.BudgetStop = &BudgetStop{LimitUSD: limit, SpentUSD: r.t.Usage.CostUSD, After: spec.Kind, Round: round}
	rec.Notes = append(rec.Notes, fmt.Sprintf("the debate's model spend ($%.4f) reached its limit of $%.4f: the rounds end here and the maintainers synthesise", r.t.Usage.CostUSD, limit))
}
