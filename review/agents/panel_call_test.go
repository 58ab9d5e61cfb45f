package agents_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// panelDebate holds a debate of the six default perspectives in the default mode, one call per
// phase for the whole panel, over srv.
func panelDebate(t *testing.T, srv *llmtest.Server, p toulmin.Protocol) *toulmin.Transcript {
	t.Helper()
	panel, err := agents.LLMPanel(agents.DefaultPerspectives(), llm.Options{APIKey: "test-key", BaseURL: srv.BaseURL(), Model: "gpt-4o-mini", MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff"))
	tr, err := (&review.Debate{Change: c, Protocol: p, Agents: panel}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// A standard debate is two calls: the openings; the round's rebuttals, clarifications and
// responses with the final arguments and the synthesis (its one round is its last). Every member's turn is recorded in its phase
// as if it had spoken alone: the responses answer the clarifications by their ids, and the
// record counts every billed token once.
func TestPanelDebateIsOneCallPerStage(t *testing.T) {
	srv := llmtest.New(t, nil)
	tr := panelDebate(t, srv, toulmin.Standard())
	var got []string
	for _, r := range srv.Requests() {
		phase, who := llmtest.Phase(r)
		if who != "" || r.ResponseFormat.JSONSchema.Name != llmtest.PanelSchema {
			t.Errorf("a call for %s answered as one agent's (%q, %s)", phase, who, r.ResponseFormat.JSONSchema.Name)
		}
		got = append(got, phase)
	}
	if strings.Join(got, " ") != "opening_arguments rebuttal" {
		t.Fatalf("calls %v, want one for the openings and one for the round to the synthesis", got)
	}
	if r := srv.Requests()[1]; r.MaxCompletionTokens != 4*(300+200+200+400)+2*800 {
		t.Errorf("the round's call may answer %d tokens, want every speaker's limit in each of its phases", r.MaxCompletionTokens)
	}
	count := map[toulmin.PhaseKind]int{}
	for _, a := range tr.Arguments {
		count[a.Phase]++
		if a.Phase != toulmin.PhaseResponse {
			continue
		}
		c, ok := tr.Argument(a.Target)
		if !ok || c.Phase != toulmin.PhaseClarification {
			t.Errorf("response %s answers %q, want a clarification", a.ID, a.Target)
		}
	}
	// The fake rebuts SS-1 three times and PS-1 once; SS and PS reject, and the four rebutters maintain.
	want := map[toulmin.PhaseKind]int{toulmin.PhaseOpening: 4, toulmin.PhaseRebuttal: 4, toulmin.PhaseClarification: 2, toulmin.PhaseResponse: 4, toulmin.PhaseFinal: 4, toulmin.PhaseSynthesis: 2}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%s: %d arguments, want %d", k, count[k], n)
		}
	}
	billed := srv.Billed()
	if tr.Record.Tokens.Prompt != billed.Prompt || tr.Record.Tokens.Completion != billed.Completion || tr.Record.Tokens.CachedPrompt != billed.CachedPrompt {
		t.Errorf("record tokens %+v, the fake billed %+v", tr.Record.Tokens, billed)
	}
	var sum voting.Usage
	for _, u := range tr.UsageByAgent {
		sum.Add(u)
	}
	if sum.Prompt != billed.Prompt || sum.Calls != 2 {
		t.Errorf("usage by agent sums to %d prompt tokens in %d calls, want %d in 2", sum.Prompt, sum.Calls, billed.Prompt)
	}
	// The round's call is shared by every member it spoke for, the maintainers whose synthesis it
	// wrote included, all billed in the rebuttal phase: a share left for the synthesis would be
	// lost if the debate stopped before.
	var rebuttal *toulmin.PhaseRecord
	for i := range tr.Timeline {
		if tr.Timeline[i].Phase == toulmin.PhaseRebuttal {
			rebuttal = &tr.Timeline[i]
		}
	}
	for _, p := range tr.Participants {
		if rebuttal == nil || rebuttal.ByAgent[p.Name].Prompt == 0 || tr.UsageByAgent[p.Name].Prompt == 0 {
			t.Errorf("%s has no share of the round's call in the rebuttal phase: %+v", p.Name, tr.UsageByAgent)
		}
	}
}

// A member the panel's reply leaves without a turn is asked alone, and the phase says so.
func TestPanelMemberLeftOutOfTheReplyIsAskedAlone(t *testing.T) {
	srv := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
		resp := llmtest.Valid(n, r)
		if phase, who := llmtest.Phase(r); phase != "opening_arguments" || who != "" {
			return resp
		}
		var reply struct {
			Turns []map[string]any `json:"turns"`
		}
		if err := json.Unmarshal([]byte(resp.Content), &reply); err != nil {
			panic(err)
		}
		var kept []map[string]any
		for _, t := range reply.Turns {
			if t["agent"] != "PS" {
				kept = append(kept, t)
			}
		}
		reply.Turns = kept
		b, _ := json.Marshal(reply)
		return llmtest.Response{Content: string(b)}
	})
	tr := panelDebate(t, srv, toulmin.Standard())
	alone := 0
	for _, r := range srv.Requests() {
		if phase, who := llmtest.Phase(r); phase == "opening_arguments" && who != "" {
			alone++
			if who != "PS" {
				t.Errorf("%s was asked alone, want only PS", who)
			}
		}
	}
	if alone != 1 || len(tr.Timeline[1].Agents) != 4 {
		t.Fatalf("%d calls of PS alone, %v spoke; want PS asked once and all four in the openings", alone, tr.Timeline[1].Agents)
	}
	if !strings.Contains(strings.Join(tr.Timeline[1].Notes, "\n"), "Performance Stakeholder: the panel's reply had no turn for it in this phase; asked alone") {
		t.Errorf("the openings' notes do not say PS was asked alone: %v", tr.Timeline[1].Notes)
	}
}

// A panel reply that is unusable twice costs what was billed, and each member is asked alone:
// nothing of the phase is lost.
func TestPanelUnusableReplyAsksEachMemberAlone(t *testing.T) {
	srv := llmtest.New(t, panelAnswers("opening_arguments", llmtest.NotJSON()))
	tr := panelDebate(t, srv, toulmin.Standard())
	panelCalls, alone := 0, map[string]bool{}
	for _, r := range srv.Requests() {
		if phase, who := llmtest.Phase(r); phase == "opening_arguments" {
			if who == "" {
				panelCalls++
			} else {
				alone[who] = true
			}
		}
	}
	if panelCalls != 2 || len(alone) != 4 {
		t.Fatalf("%d panel calls and %v asked alone in the openings, want 2 (one asked again) and all four alone", panelCalls, alone)
	}
	if got := len(tr.ArgumentsIn(toulmin.PhaseOpening)); got != 4 {
		t.Errorf("%d opening arguments, want 4", got)
	}
	if b := srv.Billed(); tr.Record.Tokens.Prompt != b.Prompt {
		t.Errorf("record counts %d prompt tokens, the fake billed %d", tr.Record.Tokens.Prompt, b.Prompt)
	}
	if !strings.Contains(strings.Join(tr.Timeline[1].Notes, "\n"), "the panel's reply was unusable") {
		t.Errorf("the notes do not say the panel's reply was unusable: %v", tr.Timeline[1].Notes)
	}
}

// A moderated debate seats its panel in the call that writes the openings: the debate a
// repository without a debatebot.yml gets is two calls, the seating billed to the moderator.
func TestPanelSeatingCallWritesTheOpenings(t *testing.T) {
	srv := llmtest.New(t, nil)
	tr := moderatedDebate(t, srv)
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].ResponseFormat.JSONSchema.Name != llmtest.PanelSeatSchema {
		t.Fatalf("%d calls, the first %q; want two, the first seating the panel and opening", len(reqs), reqs[0].ResponseFormat.JSONSchema.Name)
	}
	if tr.Panel == nil || tr.Panel.Method != "model gpt-4o-mini" || len(tr.Panel.Seated) != 4 {
		t.Fatalf("panel %+v, want the model's choice of four", tr.Panel)
	}
	opening := tr.Timeline[1]
	if len(opening.Agents) != 4 || opening.ByAgent[toulmin.ModeratorName].Calls != 1 {
		t.Errorf("openings by %v, the moderator's usage %+v; want the four seated, from the moderator's one call", opening.Agents, opening.ByAgent[toulmin.ModeratorName])
	}
	// The later call starts with every byte the seating call had before its task.
	if reqs[1].SharedPrefix < reqs[0].Tokens-300 {
		t.Errorf("the round's call shares %d of the seating call's %d tokens", reqs[1].SharedPrefix, reqs[0].Tokens)
	}
}

// When the seating call's reply cannot be used, the rules seat the panel and the openings get a
// call of their own.
func TestPanelSeatingUnusableFallsBackToTheRules(t *testing.T) {
	srv := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
		if r.ResponseFormat.JSONSchema.Name == llmtest.PanelSeatSchema {
			return llmtest.NotJSON()
		}
		return llmtest.Valid(n, r)
	})
	tr := moderatedDebate(t, srv)
	if tr.Panel == nil || tr.Panel.Method != "rules" {
		t.Fatalf("panel %+v, want the rules' choice", tr.Panel)
	}
	var phases []string
	for _, r := range srv.Requests() {
		p, _ := llmtest.Phase(r)
		phases = append(phases, p)
	}
	if strings.Join(phases, " ") != "seat opening_arguments rebuttal" {
		t.Errorf("calls %v, want the failed seating, the openings and the round", phases)
	}
	if len(tr.Timeline[1].Agents) != len(tr.Panel.Seated) {
		t.Errorf("openings by %v, want every seated stakeholder", tr.Timeline[1].Agents)
	}
}

// moderatedDebate holds the debate a repository without a debatebot.yml gets (the moderator
// seats the panel) of the example change, over srv.
func moderatedDebate(t *testing.T, srv *llmtest.Server) *toulmin.Transcript {
	t.Helper()
	d := defaultDebate(t, srv)
	d.Change = reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff"))
	tr, err := d.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// panelAnswers answers the calls for the panel whose first phase is phase with resp, and every
// other call as llmtest.Valid does.
func panelAnswers(phase string, resp llmtest.Response) llmtest.Responder {
	return func(n int, r *llmtest.Request) llmtest.Response {
		if p, who := llmtest.Phase(r); p == phase && who == "" {
			return resp
		}
		return llmtest.Valid(n, r)
	}
}

// panelDebateWith is panelDebate with the model options opts (its BaseURL and key set here).
func panelDebateWith(t *testing.T, srv *llmtest.Server, opts llm.Options) *toulmin.Transcript {
	t.Helper()
	opts.APIKey, opts.BaseURL, opts.Model = "test-key", srv.BaseURL(), "gpt-4o-mini"
	panel, err := agents.LLMPanel(agents.DefaultPerspectives(), opts)
	if err != nil {
		t.Fatal(err)
	}
	c := reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff"))
	tr, err := (&review.Debate{Change: c, Protocol: toulmin.Standard(), Agents: panel}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// callsByPhase counts the calls for the panel and the members' own calls of each phase.
func callsByPhase(srv *llmtest.Server) (panel map[string]int, alone map[string]map[string]bool) {
	panel, alone = map[string]int{}, map[string]map[string]bool{}
	for _, r := range srv.Requests() {
		phase, who := llmtest.Phase(r)
		if who == "" {
			panel[phase]++
			continue
		}
		if alone[phase] == nil {
			alone[phase] = map[string]bool{}
		}
		alone[phase][who] = true
	}
	return panel, alone
}

// stakeholders counts the debate's stakeholders.
func stakeholders(tr *toulmin.Transcript) int {
	n := 0
	for _, p := range tr.Participants {
		if !p.Role.IsMaintainer() {
			n++
		}
	}
	return n
}

// checkEveryMemberSpoke asserts that every stakeholder has arguments in the openings and the
// final arguments, that some rebutted, that a maintainer synthesised, and that the record counts
// what the fake billed.
func checkEveryMemberSpoke(t *testing.T, srv *llmtest.Server, tr *toulmin.Transcript) {
	t.Helper()
	for _, ph := range []toulmin.PhaseKind{toulmin.PhaseOpening, toulmin.PhaseFinal} {
		by := map[string]bool{}
		for _, a := range tr.ArgumentsIn(ph) {
			by[a.Agent] = true
		}
		if len(by) != stakeholders(tr) {
			t.Errorf("%s: arguments by %v, want all %d stakeholders", ph, by, stakeholders(tr))
		}
	}
	if len(tr.ArgumentsIn(toulmin.PhaseRebuttal)) == 0 {
		t.Error("no rebuttals: the members were not asked alone in the round")
	}
	synthesised := false
	for _, ph := range tr.Timeline {
		synthesised = synthesised || (ph.Phase == toulmin.PhaseSynthesis && len(ph.Agents) > 0)
	}
	if !synthesised {
		t.Error("no maintainer synthesised")
	}
	if b := srv.Billed(); tr.Record.Tokens.Prompt != b.Prompt || tr.Record.Tokens.Completion != b.Completion {
		t.Errorf("record counts %d+%d tokens, the fake billed %d+%d", tr.Record.Tokens.Prompt, tr.Record.Tokens.Completion, b.Prompt, b.Completion)
	}
}

// A round's call whose reply is unusable twice leaves every member to be asked alone in each of
// its phases, the rebuttals included: a rebuttal left out of a usable reply disputes nothing,
// but no reply is not a panel that disputes nothing.
func TestPanelRoundReplyUnusableAsksEachMemberAlone(t *testing.T) {
	srv := llmtest.New(t, panelAnswers("rebuttal", llmtest.NotJSON()))
	tr := panelDebate(t, srv, toulmin.Standard())
	panel, alone := callsByPhase(srv)
	if n := stakeholders(tr); panel["rebuttal"] != 2 || len(alone["rebuttal"]) != n || len(alone["final_arguments"]) != n {
		t.Fatalf("panel calls %v, asked alone %v; want the round's call asked twice, then each member alone", panel, alone)
	}
	checkEveryMemberSpoke(t, srv, tr)
}

// A call for the panel that the server refuses (a limit the model does not accept, say) costs no
// phase: each member is asked alone, in that phase and every later one, with no further call for
// the panel, and the notes say why.
func TestPanelCallRefusedAsksEachMemberAlone(t *testing.T) {
	srv := llmtest.New(t, panelAnswers("opening_arguments", llmtest.Response{Status: 400, ErrorCode: "invalid_request_error", ErrorMessage: "max_tokens is too large: 3000. This model supports at most 2048 completion tokens"}))
	tr := panelDebate(t, srv, toulmin.Standard())
	panel, alone := callsByPhase(srv)
	if panel["opening_arguments"] != 1 || len(panel) != 1 || len(alone["opening_arguments"]) != stakeholders(tr) || len(alone["rebuttal"]) == 0 {
		t.Fatalf("panel calls %v, asked alone %v; want one refused call, then every member alone in every phase", panel, alone)
	}
	checkEveryMemberSpoke(t, srv, tr)
	notes := strings.Join(tr.Timeline[1].Notes, "\n")
	if !strings.Contains(notes, "the panel's call failed") || !strings.Contains(notes, "max_tokens is too large") {
		t.Errorf("the openings' notes do not say the panel's call failed and why: %s", notes)
	}
}

// A call for the panel that times out is not asked again: its reply is the longest of the
// debate, and a model too slow to write it within the request timeout is asked for each
// member's turn alone.
func TestPanelCallTimedOutIsNotAskedAgain(t *testing.T) {
	srv := llmtest.New(t, panelAnswers("opening_arguments", llmtest.Hang()))
	tr := panelDebateWith(t, srv, llm.Options{MaxRetries: 2, RequestTimeout: 300 * time.Millisecond})
	panel, alone := callsByPhase(srv)
	if panel["opening_arguments"] != 1 || len(panel) != 1 || len(alone["opening_arguments"]) != stakeholders(tr) {
		t.Fatalf("panel calls %v, asked alone %v; want one call that timed out, then every member alone", panel, alone)
	}
	checkEveryMemberSpoke(t, srv, tr)
}

// The seating call cut off at its limit is asked again, shorter; both calls are the moderator's.
func TestPanelSeatingCutOffIsAskedAgainShorter(t *testing.T) {
	srv := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
		if r.ResponseFormat.JSONSchema.Name == llmtest.PanelSeatSchema && n == 1 {
			full := llmtest.PanelSeat(r).Content
			return llmtest.Response{Content: full[:len(full)/2], Finish: "length"}
		}
		return llmtest.Valid(n, r)
	})
	tr := moderatedDebate(t, srv)
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[1].ResponseFormat.JSONSchema.Name != llmtest.PanelSeatSchema || !strings.Contains(reqs[1].Last(), "cut off") {
		t.Fatalf("%d calls; want the seating call, its shorter second ask, and the round", len(reqs))
	}
	if tr.Panel == nil || !strings.HasPrefix(tr.Panel.Method, "model ") || len(tr.Timeline[1].Agents) != len(tr.Panel.Seated) {
		t.Fatalf("panel %+v, openings by %v; want the model's choice, opened from the second reply", tr.Panel, tr.Timeline[1].Agents)
	}
	if u := tr.Timeline[1].ByAgent[toulmin.ModeratorName]; u.Calls != 2 {
		t.Errorf("the moderator's usage %+v, want both seating calls", u)
	}
}

// A seating call the server refuses leaves the choice to the rules and every member's opening to
// a call of its own: the model could not write the panel's reply once, so it is not asked for
// another.
func TestPanelSeatingFailedAsksEachMemberAlone(t *testing.T) {
	srv := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
		if r.ResponseFormat.JSONSchema.Name == llmtest.PanelSeatSchema {
			return llmtest.Response{Status: 400, ErrorCode: "invalid_request_error", ErrorMessage: "max_tokens is too large"}
		}
		return llmtest.Valid(n, r)
	})
	tr := moderatedDebate(t, srv)
	panel, alone := callsByPhase(srv)
	if tr.Panel == nil || tr.Panel.Method != "rules" {
		t.Fatalf("panel %+v, want the rules' choice", tr.Panel)
	}
	if len(panel) != 1 || panel["seat"] == 0 || len(alone["opening_arguments"]) != len(tr.Panel.Seated) {
		t.Errorf("panel calls %v, asked alone %v; want only the seating calls for the panel, then each seated member alone", panel, alone)
	}
	if len(tr.Timeline[1].Agents) != len(tr.Panel.Seated) {
		t.Errorf("openings by %v, want every seated stakeholder", tr.Timeline[1].Agents)
	}
}

// A call for the panel that fails the way retries are for (5xx until they run out) leaves its
// phase's members to be asked alone, and the next stage asks the panel again: the outage may be
// over, and one call costs a tenth of the members' own.
func TestPanelCallTransientFailureAsksThePanelAgainNextStage(t *testing.T) {
	srv := llmtest.New(t, panelAnswers("opening_arguments", llmtest.ServerError(1)))
	tr := panelDebate(t, srv, toulmin.Standard())
	panel, alone := callsByPhase(srv)
	if panel["opening_arguments"] != 2 || len(alone["opening_arguments"]) != stakeholders(tr) || panel["rebuttal"] != 1 || len(alone["rebuttal"]) != 0 {
		t.Fatalf("panel calls %v, asked alone %v; want the openings' call and its retry, each member alone, then the round's call for the panel", panel, alone)
	}
	checkEveryMemberSpoke(t, srv, tr)
	if notes := strings.Join(tr.Timeline[1].Notes, "\n"); !strings.Contains(notes, "each member is asked alone, in this phase\n") && !strings.HasSuffix(notes, "each member is asked alone, in this phase") {
		t.Errorf("the openings' notes do not say the members were asked alone in this phase only: %s", notes)
	}
}
