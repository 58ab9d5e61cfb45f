package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/llmtest"
)

// modelEnv points the CLI at the fake model.
func modelEnv(srv *llmtest.Server) map[string]string {
	return map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.BaseURL(), "DEBATEBOT_MODEL": "gpt-4o-mini"}
}

// repoConfig writes a debatebot.yml and returns its path.
func repoConfig(t *testing.T, yml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "debatebot.yml")
	if err := os.WriteFile(path, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// jsonRecord is the part of the decision record these tests read.
type jsonRecord struct {
	Decision struct {
		Decision    string `json:"decision"`
		Escalations []struct {
			Reason string `json:"reason"`
		} `json:"escalations"`
		Tokens struct {
			Prompt       int64   `json:"prompt"`
			Completion   int64   `json:"completion"`
			CachedPrompt int64   `json:"cached_prompt"`
			CostUSD      float64 `json:"cost_usd"`
		} `json:"tokens"`
	} `json:"decision"`
}

// calls counts requests per phase and agent, under a lock (the fake answers concurrently).
type calls struct {
	mu sync.Mutex
	n  map[string]int
}

// next counts r under its first phase (opening_arguments for the call that seats the panel and
// opens, rebuttal for a round's call of the panel) and its agent (none for the panel's calls).
func (c *calls) next(r *llmtest.Request) (phase, who string, n int) {
	phase, who = llmtest.Phase(r)
	if phases := llmtest.Phases(r); len(phases) > 0 {
		phase = phases[0]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[phase+"/"+who]++
	return phase, who, c.n[phase+"/"+who]
}

// A model that hangs: each request has its own timeout (llm.request_timeout), so the agent speaks
// instead of holding the phase until the phase's timeout (minutes) and being left out. One
// agent's call hangs when each agent is asked on its own: the request is asked again like a 5xx.
// When the panel is asked at once (the default), the call for the panel that hangs is not asked
// again (its reply is the longest): each member is asked alone from then on. That call is the one
// that seats the panel and writes its openings (the moderator's section says so, and the rules
// seat), or the round's call of the whole panel, whose notes are the phase's (not its first
// speaker's).
func TestDebateModelHangIsRetried(t *testing.T) {
	for _, mode := range []struct {
		name, calls, phase, hangs string
		notes                     []string
	}{
		{"agent", "  calls: agent\n", "opening_arguments", "PS", []string{"Performance Stakeholder: model gpt-4o-mini did not answer within 2s (request 1)"}},
		{"panel seat", "", "opening_arguments", "", []string{"\n> model gpt-4o-mini did not answer within 2s (request 1)\n", "the rules chose", "each member is asked alone for the rest of the debate"}},
		{"panel round", "", "rebuttal", "", []string{"the panel's call: model gpt-4o-mini did not answer within 2s (request 1)", "each member is asked alone, in this phase and the rest of the debate"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			var c calls
			srv := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
				if phase, who, k := c.next(r); phase == mode.phase && who == mode.hangs && k == 1 {
					return llmtest.Hang()
				}
				return llmtest.Valid(n, r)
			})
			cfg := repoConfig(t, "llm:\n  request_timeout: 2s\n  max_retries: 2\n"+mode.calls)
			code, out, errOut := runCmd(t, "", modelEnv(srv), "debate", "--diff", example, "--config", cfg)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if srv.Hung() != 1 {
				t.Errorf("hung requests = %d, want 1", srv.Hung())
			}
			if strings.Contains(out, "Stakeholder: the panel's call") {
				t.Error("the panel's call's notes are under a member's name; they are the phase's")
			}
			for _, note := range mode.notes {
				if !strings.Contains(out, note) {
					t.Errorf("the transcript lacks %q: it does not say the request timed out and what was asked instead:\n%s", note, out[:min(len(out), 3000)])
				}
			}
			for _, who := range []string{"SS-1 · Security", "PS-1 · Performance", "AS-1 · Architecture", "MS-1 · Maintainability"} {
				if strings.Contains(out, "was left out") || !strings.Contains(out, "#### "+who+" Stakeholder") {
					t.Errorf("%s is missing or an agent was left out of the opening instead of retried:\n%s", who, out[:min(len(out), 3000)])
				}
			}
		})
	}
}

// A model that never answers one agent: that agent is left out after its retries, each bounded
// by the request timeout, and the debate goes on with the others.
func TestDebateModelHangingForGoodLeavesAgentOut(t *testing.T) {
	// One agent's own call hangs: each agent is asked on its own.
	var c calls
	srv := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
		if phase, who, _ := c.next(r); phase == "opening_arguments" && who == "AS" {
			return llmtest.Hang()
		}
		return llmtest.Valid(n, r)
	})
	cfg := repoConfig(t, "llm:\n  calls: agent\n  request_timeout: 2s\n  max_retries: 1\n")
	code, out, errOut := runCmd(t, "", modelEnv(srv), "debate", "--diff", example, "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if srv.Hung() != 2 {
		t.Errorf("hung requests = %d, want the request and its one retry", srv.Hung())
	}
	if !strings.Contains(out, "Architecture Stakeholder was left out of this phase: model gpt-4o-mini did not answer within 2s") ||
		!strings.Contains(out, "gave up after 2 tries") {
		t.Errorf("the transcript does not leave the hanging agent out with the reason:\n%s", out[:min(len(out), 3000)])
	}
	if !strings.Contains(out, "#### SS-1 · Security Stakeholder") || !strings.Contains(out, "Decision Record") {
		t.Errorf("the debate did not go on without the hanging agent")
	}
}

// badRebuttals answers every rebuttal, the repair included, with one rebuttal of another agent's
// opening, one of the agent's own opening and one of an argument that does not exist: each
// agent's call, and each rebuttal of a panel call.
func badRebuttals(valid bool) llmtest.Responder {
	return func(n int, r *llmtest.Request) llmtest.Response {
		return llmtest.EditTurns(r, llmtest.Valid(n, r), func(turn llmtest.Turn) {
			args, _ := turn.Fields["arguments"].([]any)
			if turn.Phase != "rebuttal" || len(args) == 0 {
				return
			}
			arg := args[0].(map[string]any)
			bad := func(target string) map[string]any {
				c := map[string]any{}
				for k, v := range arg {
					c[k] = v
				}
				c["target"] = target
				return c
			}
			out := []any{bad(turn.Agent + "-1"), bad("ZZ-9")}
			if valid {
				out = append([]any{arg}, out...)
			}
			turn.Fields["arguments"] = out
		})
	}
}

// One bad field does not sink a turn: rebuttals of a missing or of the agent's own argument are
// dropped with a note after one repair (which lists the valid ids), the valid rebuttal is kept.
func TestDebateInvalidRebuttalsAreDropped(t *testing.T) {
	// Each agent's own call and its repair: each agent is asked on its own.
	srv := llmtest.New(t, badRebuttals(true))
	code, out, errOut := runCmd(t, "", modelEnv(srv), "debate", "--diff", example, "--config", repoConfig(t, "llm:\n  calls: agent\n"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var repairs int
	for _, r := range srv.Requests() {
		phase, who := llmtest.Phase(r)
		last := r.Last()
		if phase != "rebuttal" || !strings.HasPrefix(last, "Your previous reply could not be used") {
			continue
		}
		repairs++
		for _, m := range r.Messages {
			if m.Role == "assistant" {
				t.Errorf("%s's repair sends the rejected reply back", who)
			}
		}
		for _, want := range []string{`no argument "ZZ-9" in the debate`, who + "-1 is your own argument", "Valid targets of a rebuttal (other agents' arguments): "} {
			if !strings.Contains(last, want) {
				t.Errorf("%s's repair request lacks %q:\n%s", who, want, last)
			}
		}
		_, valid, _ := strings.Cut(last, "Valid targets of a rebuttal (other agents' arguments): ")
		valid, _, _ = strings.Cut(valid, ".")
		if strings.Contains(valid, who+"-") || strings.Count(valid, ",") != 2 {
			t.Errorf("%s's repair offers its own arguments as targets:\n%s", who, last)
		}
	}
	if repairs != 4 {
		t.Errorf("rebuttal repairs = %d, want one per agent", repairs)
	}
	badRebuttalsDropped(t, out, "dropped from the reply after one repair")
}

// badRebuttalsDropped checks the transcript out of a debate answered by badRebuttals: each
// stakeholder's two bad rebuttals are dropped with a note that starts with dropped, and its valid
// one is kept (SS-2 → another agent's opening, and so on); nobody is left out.
func badRebuttalsDropped(t *testing.T, out, dropped string) {
	t.Helper()
	for _, title := range []string{"Security", "Performance", "Architecture", "Maintainability"} {
		for _, want := range []string{
			title + ` Stakeholder: ` + dropped + `: arguments[2].target: no argument "ZZ-9" in the debate`,
			title + ` Stakeholder: ` + dropped + `: arguments[1].target: `,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("no note %q", want)
			}
		}
	}
	if strings.Contains(out, "was left out of this phase") {
		t.Errorf("an agent was left out for one bad field")
	}
	for _, id := range []string{"SS-2 → ", "PS-2 → ", "AS-2 → ", "MS-2 → "} {
		if !strings.Contains(out, "#### "+id) {
			t.Errorf("the valid rebuttal %s... was not kept", id)
		}
	}
}

// The same bad rebuttals in a panel's call: the panel's reply is not asked again for a field of
// one turn; each member's bad rebuttals are dropped with a note, its valid one is kept, and no
// member is asked alone or left out.
func TestPanelInvalidRebuttalsAreDropped(t *testing.T) {
	srv := llmtest.New(t, badRebuttals(true))
	code, out, errOut := runCmd(t, "", modelEnv(srv), "debate", "--diff", example)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, r := range srv.Requests() {
		if name := r.ResponseFormat.JSONSchema.Name; name != llmtest.PanelSchema && name != llmtest.PanelSeatSchema {
			phase, who := llmtest.Phase(r)
			t.Errorf("%s was asked alone in %s (%s)", who, phase, name)
		}
	}
	if calls := phaseCalls(srv); calls["opening_arguments"] != 1 || calls["rebuttal"] != 1 || len(srv.Requests()) != 2 {
		t.Errorf("calls per phase %v in %d calls: want the seating call with the openings, and one call for the round", calls, len(srv.Requests()))
	}
	badRebuttalsDropped(t, out, "dropped from the panel's reply")
}

// When every agent's rebuttals are all invalid, the phase still completes (with nothing rebutted)
// and the debate goes on to its final arguments and synthesis instead of escalating: with a call
// per agent (four final arguments, two syntheses), and with a call for the panel (its rebuttals
// unusable, each agent is asked alone; then one call for the final arguments and the synthesis).
func TestDebateAllRebuttalsInvalidDoesNotEscalate(t *testing.T) {
	for _, mode := range []struct {
		name, config             string
		finals, syntheses, alone int
	}{
		{"agent", "llm:\n  calls: agent\n", 4, 2, 0},
		{"panel", "", 1, 1, 4},
	} {
		t.Run(mode.name, func(t *testing.T) {
			srv := llmtest.New(t, badRebuttals(false))
			code, out, errOut := runCmd(t, "", modelEnv(srv), "debate", "--diff", example, "--format", "json", "--config", repoConfig(t, mode.config))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var rec jsonRecord
			if err := json.Unmarshal([]byte(out), &rec); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, e := range rec.Decision.Escalations {
				if e.Reason == "phase_failed" {
					t.Errorf("the debate escalated because a phase failed: %s", out)
				}
			}
			phases := phaseCalls(srv)
			if phases["final_arguments"] != mode.finals || phases["synthesis"] != mode.syntheses {
				t.Errorf("calls per phase %v: the debate stopped after the rebuttals", phases)
			}
			alone := 0
			for _, r := range srv.Requests() {
				if phase, who := llmtest.Phase(r); phase == "rebuttal" && who != "" && r.ResponseFormat.JSONSchema.Name != llmtest.PanelSchema &&
					!strings.HasPrefix(r.Last(), "Your previous reply could not be used") {
					alone++
				}
			}
			if mode.alone > 0 && alone != mode.alone {
				t.Errorf("%d agents asked alone for their rebuttals after the panel's were unusable, want %d", alone, mode.alone)
			}
		})
	}
}

// The record's tokens are what the server billed, for every call: repaired replies, replies that
// stayed unusable (the agent left out), truncated ones, retried 5xx and 429, and hung requests
// (not billed, as the server never answered); with a call per agent, and with a call for the
// panel, whose usage its speakers share and whose unusable turns are asked alone (a seating call
// cut off twice is billed to the moderator, and the openings get a call of their own).
func TestDebateRecordCountsEveryBilledToken(t *testing.T) {
	perAgent := func(c *calls) llmtest.Responder {
		return func(n int, r *llmtest.Request) llmtest.Response {
			phase, who, k := c.next(r)
			switch {
			case phase == "opening_arguments" && who == "SS":
				return llmtest.NotJSON() // twice: left out after one repair
			case phase == "opening_arguments" && who == "PS" && k == 1:
				return llmtest.Truncated(r)
			case phase == "opening_arguments" && who == "AS" && k == 1:
				return llmtest.ServerError(1)
			case phase == "opening_arguments" && who == "MS" && k == 1:
				return llmtest.RateLimited(1)
			case phase == "final_arguments" && who == "PS" && k == 1:
				return llmtest.Hang()
			case phase == "synthesis" && who == "CM" && k == 1:
				return llmtest.Response{Content: `{"arguments": [], "position": {"vote": "maybe"}}`}
			}
			return badRebuttals(true)(n, r)
		}
	}
	// A panel's call is answered by its first phase (its abbreviation is empty): the seating
	// call's is the openings; an agent asked alone by phase and abbreviation.
	panel := func(c *calls) llmtest.Responder {
		return func(n int, r *llmtest.Request) llmtest.Response {
			phase, who, k := c.next(r)
			switch {
			case phase == "opening_arguments" && who == "SS":
				return llmtest.NotJSON() // asked alone, twice: left out after one repair
			case phase == "opening_arguments" && who == "" && k <= 2:
				return llmtest.Truncated(r) // the seating call, asked again shorter: the rules seat, the openings get a call
			case phase == "opening_arguments" && who == "" && k == 3:
				return llmtest.ServerError(1)
			case phase == "rebuttal" && who == "" && k == 1:
				return llmtest.Truncated(r) // the round's call through the synthesis: asked again, shorter
			case phase == "rebuttal" && who == "" && k == 2:
				return llmtest.RateLimited(1)
			case phase == "rebuttal" && who == "" && k == 3:
				return llmtest.Hang()
			case phase == "synthesis" && who == "CM" && k == 1:
				return llmtest.Response{Content: `{"arguments": [], "position": {"vote": "maybe"}}`} // asked alone, repaired
			}
			resp := badRebuttals(true)(n, r)
			if r.ResponseFormat.JSONSchema.Name != llmtest.PanelSchema {
				return resp
			}
			return llmtest.EditTurns(r, resp, func(turn llmtest.Turn) {
				if (turn.Agent == "SS" && turn.Phase == "opening_arguments") || (turn.Agent == "CM" && turn.Phase == "synthesis") {
					turn.Fields["position"] = map[string]any{"vote": "maybe"} // no stance: asked alone
				}
			})
		}
	}
	for _, mode := range []struct {
		name, calls string
		respond     func(*calls) llmtest.Responder
		alone       int // at least, calls of one agent
	}{
		{"agent", "  calls: agent\n", perAgent, 0},
		{"panel", "", panel, 3},
	} {
		t.Run(mode.name, func(t *testing.T) {
			var c calls
			srv := llmtest.New(t, mode.respond(&c))
			cfg := repoConfig(t, "llm:\n  request_timeout: 2s\n"+mode.calls)
			code, out, errOut := runCmd(t, "", modelEnv(srv), "debate", "--diff", example, "--format", "json", "--config", cfg)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var rec jsonRecord
			if err := json.Unmarshal([]byte(out), &rec); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			billed := srv.Billed()
			got := rec.Decision.Tokens
			if got.Prompt != billed.Prompt || got.Completion != billed.Completion || got.CachedPrompt != billed.CachedPrompt {
				t.Errorf("record tokens %+v, server billed %+v", got, billed)
			}
			price, _ := llm.DefaultPrices().Lookup("gpt-4o-mini")
			cost := (float64(billed.Prompt-billed.CachedPrompt)*price.Input + float64(billed.CachedPrompt)*price.CachedInput + float64(billed.Completion)*price.Output) / 1e6
			if math.Abs(got.CostUSD-cost) > 2e-6 {
				t.Errorf("record cost_usd %.6f, the billed tokens cost %.6f", got.CostUSD, cost)
			}
			alone := 0
			for _, r := range srv.Requests() {
				if name := r.ResponseFormat.JSONSchema.Name; name != llmtest.PanelSchema && name != llmtest.PanelSeatSchema && name != llmtest.ModeratorSchema {
					alone++
				}
			}
			if srv.Hung() != 1 || billed.Calls >= len(srv.Requests()) || alone < mode.alone {
				t.Errorf("%d hung, %d billed of %d requests, %d of one agent: the faults did not happen", srv.Hung(), billed.Calls, len(srv.Requests()), alone)
			}
			if mode.calls == "" && !panelOpens(srv.Requests()) {
				t.Error("the seating call was cut off, and no call for the panel asked for the openings")
			}
		})
	}
}

// A panel's call that fails after a billed reply (one the debate could not use, then 5xx until
// the retries run out) leaves each member to be asked alone, in the round and every phase after
// it, with no further call for the panel. The call is the round's, which the maintainers'
// synthesis would have paid a share of too. The record still counts every billed token: the
// failed call's, shared among the members it was for, and each member's own calls.
func TestDebateRecordCountsAFailedPanelCall(t *testing.T) {
	var c calls
	srv := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
		switch phase, who, k := c.next(r); {
		case phase == "rebuttal" && who == "" && k == 1:
			return llmtest.NotJSON() // billed, and asked again
		case phase == "rebuttal" && who == "" && (k == 2 || k == 3):
			return llmtest.ServerError(1) // the request and its one retry: the call fails
		}
		return llmtest.Valid(n, r)
	})
	cfg := repoConfig(t, "llm:\n  max_retries: 1\n  concurrency: 1\n")
	code, out, errOut := runCmd(t, "", modelEnv(srv), "debate", "--diff", example, "--format", "json", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rec jsonRecord
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	round, alone := 0, map[string]map[string]bool{}
	for _, r := range srv.Requests() {
		phase, who := llmtest.Phase(r)
		switch {
		case who == "" && phase != "seat" && phase != "opening_arguments":
			round++
		case who != "":
			if alone[phase] == nil {
				alone[phase] = map[string]bool{}
			}
			alone[phase][who] = true
		}
	}
	if round != 3 || len(alone["rebuttal"]) != 4 || len(alone["final_arguments"]) != 4 || len(alone["synthesis"]) == 0 {
		t.Fatalf("%d requests for the panel after the openings, asked alone %v; want the failed call's three, then every member alone through the synthesis", round, alone)
	}
	billed, got := srv.Billed(), rec.Decision.Tokens
	if got.Prompt != billed.Prompt || got.Completion != billed.Completion || got.CachedPrompt != billed.CachedPrompt {
		t.Errorf("record tokens %+v, server billed %+v", got, billed)
	}
}

// A change with a 1 MB single line: the line is sized only up to the prompt's budget (tiktoken
// took minutes to count it whole), left out of the prompts as over budget, and the debate
// completes. Under the race detector the line is 128 KB (the analyzers' regexps over 1 MB take a
// minute there). BenchmarkLLMDebateLongLine in package review/agents times the 1 MB debate.
func TestDebateLongLine(t *testing.T) {
	size := 1 << 20
	if raceDetector {
		size = 128 << 10
	}
	diff := "diff --git a/web/data.js b/web/data.js\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/web/data.js\n@@ -0,0 +1,1 @@\n" +
		"+var data=\"" + strings.Repeat("a", size) + "\";\n" +
		"diff --git a/web/app.go b/web/app.go\nnew file mode 100644\nindex 0000000..2222222\n--- /dev/null\n+++ b/web/app.go\n@@ -0,0 +1,3 @@\n" +
		"+package web\n+\n+func Hello() string { return \"hi\" }\n"
	srv := llmtest.New(t, nil)
	code, out, errOut := runCmd(t, diff, modelEnv(srv), "debate", "--diff", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if len(srv.Requests()) == 0 {
		t.Fatal("the model was not asked")
	}
	for _, r := range srv.Requests() {
		if r.Tokens > 20000 {
			t.Fatalf("a prompt of %d tokens: the long line was not left out", r.Tokens)
		}
	}
	var opening string
	for _, r := range srv.Requests() {
		if slices.Contains(llmtest.Phases(r), "opening_arguments") {
			opening = r.Messages[1].Content
			break
		}
	}
	if !strings.Contains(opening, "web/data.js (+1 -0, over budget)") || !strings.Contains(opening, "func Hello()") {
		t.Errorf("the opening prompt does not list the long file as over budget and keep the small one:\n%s", opening[:min(len(opening), 3000)])
	}
	if !strings.Contains(out, "#### SS-1 · Security Stakeholder") {
		t.Errorf("no opening arguments:\n%s", out[:min(len(out), 3000)])
	}
}
