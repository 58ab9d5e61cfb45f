package agents_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
)

// A model-backed debate whose openings spend its budget (four calls of some 2,800 prompt tokens
// at gpt-4o-mini's $0.15 per million are about $0.0017) asks nobody anything more but the
// maintainers' synthesis, decides, and says so in the decision's notes and the summary.
func TestLLMDebateBudgetEndsRoundsEarly(t *testing.T) {
	srv := llmtest.New(t, nil)
	panel, err := agents.LLMPanel(agents.DefaultPerspectives(), llm.Options{APIKey: "test-key", BaseURL: srv.BaseURL(), Model: "gpt-4o-mini", PerAgent: true})
	if err != nil {
		t.Fatal(err)
	}
	p := toulmin.Standard()
	p.MaxCostUSD = 0.001
	c := reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff"))
	tr, err := (&review.Debate{Change: c, Protocol: p, Agents: panel}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	for _, r := range srv.Requests() {
		phase, _ := llmtest.Phase(r)
		asked[phase]++
	}
	if asked["opening_arguments"] != 4 || asked["synthesis"] != 2 || len(asked) != 2 {
		t.Errorf("calls by phase %v, want the four openings and the two syntheses only", asked)
	}
	if tr.BudgetStop == nil || tr.BudgetStop.After != toulmin.PhaseOpening || tr.BudgetStop.SpentUSD < 0.001 {
		t.Fatalf("budget stop %+v, want one after the openings", tr.BudgetStop)
	}
	if tr.Record.Tokens.CostUSD < tr.BudgetStop.SpentUSD || tr.Record.Decision == "" {
		t.Errorf("record %+v: the decision and the whole spend, synthesis included", tr.Record.Tokens)
	}
	decision := tr.Timeline[len(tr.Timeline)-1]
	if decision.Phase != toulmin.PhaseDecision || !strings.Contains(strings.Join(decision.Notes, "\n"), "reached its limit of $0.0010 after opening") {
		t.Errorf("the decision's notes do not say the budget ended the debate: %v", decision.Notes)
	}
	s, err := render.SummaryComment(tr, render.SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "Model budget reached") || !strings.Contains(s, "rebuttal") {
		t.Errorf("the summary does not say the budget ended the debate:\n%s", s)
	}
}

// With one call per phase for the panel, a budget the openings' call spends skips the round's
// call: the synthesis is asked alone, in one call for both maintainers.
func TestPanelBudgetEndsRoundsEarly(t *testing.T) {
	srv := llmtest.New(t, nil)
	panel, err := agents.LLMPanel(agents.DefaultPerspectives(), llm.Options{APIKey: "test-key", BaseURL: srv.BaseURL(), Model: "gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	p := toulmin.Standard()
	p.MaxCostUSD = 0.0003
	c := reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff"))
	tr, err := (&review.Debate{Change: c, Protocol: p, Agents: panel}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, r := range srv.Requests() {
		calls = append(calls, strings.Join(llmtest.Phases(r), "+"))
	}
	if strings.Join(calls, " ") != "opening_arguments synthesis" {
		t.Errorf("calls %v, want the openings' and the synthesis' only", calls)
	}
	if tr.BudgetStop == nil || tr.BudgetStop.After != toulmin.PhaseOpening {
		t.Fatalf("budget stop %+v, want one after the openings", tr.BudgetStop)
	}
	if got := len(tr.ArgumentsIn(toulmin.PhaseSynthesis)); got != 2 {
		t.Errorf("%d synthesis arguments, want both maintainers'", got)
	}
	if b := srv.Billed(); tr.Record.Tokens.Prompt != b.Prompt {
		t.Errorf("record counts %d prompt tokens, the fake billed %d", tr.Record.Tokens.Prompt, b.Prompt)
	}
}
