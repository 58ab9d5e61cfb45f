package toulmin

import (
	"context"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/voting"
)

// costly is opener whose every turn costs usd.
func costly(vote voting.Option, usd float64, phases *[]PhaseKind) func(ctx context.Context, req *Request) (*Turn, error) {
	return func(ctx context.Context, req *Request) (*Turn, error) {
		turn, err := opener(vote)(ctx, req)
		if turn != nil {
			turn.Usage = voting.Usage{Prompt: 1000, Completion: 100, Calls: 1, CostUSD: usd}
		}
		if req.Self.Name == "a" {
			*phases = append(*phases, req.Phase.Kind)
		}
		return turn, err
	}
}

// Once the debate has spent its model budget, its rounds end: the phases ahead are skipped but
// for the synthesis and the decision, and the phase's and the decision's notes say so.
func TestEngineBudgetEndsRoundsEarly(t *testing.T) {
	var asked []PhaseKind
	p := Standard()
	p.MaxCostUSD = 0.025
	e, err := NewEngine(p, []Agent{
		stakeholder("a", "A", costly(voting.RequestChanges, 0.01, &asked)),
		stakeholder("b", "B", costly(voting.Approve, 0.01, &asked)),
		stakeholder("c", "C", costly(voting.RequestChanges, 0.01, &asked)),
		maintainer("m", "M", voting.RoleCoreMaintainer, voting.RequestChanges),
	}, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != PhaseOpening {
		t.Errorf("agent a was asked in %v, want the opening only", asked)
	}
	var ran []PhaseKind
	for _, ph := range tr.Timeline {
		ran = append(ran, ph.Phase)
	}
	want := []PhaseKind{PhaseEvidence, PhaseOpening, PhaseSynthesis, PhaseDecision}
	if len(ran) != len(want) {
		t.Fatalf("phases %v, want %v", ran, want)
	}
	for i := range want {
		if ran[i] != want[i] {
			t.Fatalf("phases %v, want %v", ran, want)
		}
	}
	b := tr.BudgetStop
	if b == nil || b.After != PhaseOpening || b.LimitUSD != 0.025 || b.SpentUSD < 0.025 {
		t.Fatalf("budget stop %+v, want one after the opening", b)
	}
	if len(b.Skipped) != 4 || b.Skipped[0] != PhaseRebuttal || b.Skipped[3] != PhaseFinal {
		t.Errorf("skipped %v, want the round and the final arguments", b.Skipped)
	}
	opening := strings.Join(tr.Timeline[1].Notes, "\n")
	decision := strings.Join(tr.Timeline[3].Notes, "\n")
	if !strings.Contains(opening, "reached its limit of $0.0250") {
		t.Errorf("the opening's notes do not say the budget was reached: %q", opening)
	}
	if !strings.Contains(decision, "ended early") || !strings.Contains(decision, "rebuttal") {
		t.Errorf("the decision's notes do not say the debate ended early: %q", decision)
	}
	if tr.Record.Decision == "" || len(tr.Record.Votes) == 0 {
		t.Errorf("no decision after the budget stop: %+v", tr.Record)
	}
}

// Under the limit the debate runs every phase; a negative limit does not validate.
func TestEngineBudgetUnderLimit(t *testing.T) {
	var asked []PhaseKind
	p := Standard()
	p.MaxCostUSD = 10
	e, err := NewEngine(p, []Agent{
		stakeholder("a", "A", costly(voting.RequestChanges, 0.01, &asked)),
		stakeholder("b", "B", costly(voting.Approve, 0.01, &asked)),
		maintainer("m", "M", voting.RoleCoreMaintainer, voting.RequestChanges),
	}, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	if tr.BudgetStop != nil || len(asked) < 3 {
		t.Errorf("budget stop %+v after %v, want none", tr.BudgetStop, asked)
	}
	p.MaxCostUSD = -1
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "model budget") {
		t.Errorf("a negative budget: %v, want a clear error", err)
	}
}
