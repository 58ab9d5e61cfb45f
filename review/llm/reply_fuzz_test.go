package llm

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/toulmin"
)

// fuzzTranscript is a debate after its openings, a rebuttal each way and the performance
// stakeholder's rejection of the security stakeholder's rebuttal, for replies to be read against.
func fuzzTranscript() *toulmin.Transcript {
	arg := func(id, agent string, phase toulmin.PhaseKind, target string) toulmin.Argument {
		return toulmin.Argument{ID: id, Agent: agent, Phase: phase, Round: 1, Target: target, Claim: "c", Warrant: "w",
			Grounds: []toulmin.Ground{{Path: "a.go", Line: 1, Text: "t"}}}
	}
	return &toulmin.Transcript{Arguments: []toulmin.Argument{
		arg("SS-1", "security", toulmin.PhaseOpening, ""), arg("PS-1", "performance", toulmin.PhaseOpening, ""),
		arg("PS-2", "performance", toulmin.PhaseRebuttal, "SS-1"), arg("SS-2", "security", toulmin.PhaseRebuttal, "PS-1"),
		answer("PS-3", "PS-1"),
	}}
}

func answer(id, target string) toulmin.Argument {
	return toulmin.Argument{ID: id, Agent: "performance", Phase: toulmin.PhaseClarification, Round: 1, Target: target, Claim: "c",
		Answer: toulmin.AnswerReject, Resolution: toulmin.Maintained}
}

// FuzzParseReply feeds model replies through the code that turns them into a turn: ParseReply and
// Reply.Turn in every phase. Nothing may panic; a parsed reply yields a turn whose every argument
// validates and answers an argument it may answer, whose position is a known vote with a
// confidence in [0, 1], and every argument of the reply is either kept or reported as a problem.
func FuzzParseReply(f *testing.F) {
	tr := fuzzTranscript()
	for _, phase := range []string{"opening_arguments", "rebuttal", "clarification", "response", "final_arguments", "synthesis"} {
		r := &llmtest.Request{Messages: []llmtest.Message{{Role: "user", Content: "- E1 [high] sql-injection (query) at a.go:1: query built from strings\n### PS-1 by performance (opening_arguments\nAnswer each rebuttal of your arguments: SS-1 \nThe authors answered your rebuttals: PS-3 \n"},
			{Role: "user", Content: fmt.Sprintf("You are the Security Stakeholder (SS), role stakeholder\nPhase: %s (round 1)", phase)}}}
		valid := llmtest.Valid(0, r).Content
		f.Add(valid)
		f.Add("Sure:\n```json\n" + valid + "\n```")
		f.Add(valid[:len(valid)/2])
	}
	f.Add(`{"arguments":[{"target":"ZZ-9","claim":"x","grounds":[{"path":"a.go","line":-1,"text":""}],"confidence":7}],"position":{"vote":"maybe","confidence":-1}}`)
	f.Add(`{"arguments": "none"}`)
	f.Add(`}{`)
	f.Add("")
	f.Fuzz(func(t *testing.T, content string) {
		r, err := ParseReply(content)
		if err != nil {
			if r != nil {
				t.Fatalf("a reply and an error: %v", err)
			}
			return
		}
		for _, kind := range []toulmin.PhaseKind{toulmin.PhaseOpening, toulmin.PhaseRebuttal, toulmin.PhaseClarification, toulmin.PhaseResponse, toulmin.PhaseFinal, toulmin.PhaseSynthesis, toulmin.PhaseDesignReview} {
			req := &toulmin.Request{Phase: toulmin.PhaseSpec{Kind: kind}, Round: 1, Self: toulmin.Participant{Name: "security", Abbrev: "SS"},
				Arguments: tr.Arguments, Transcript: tr}
			turn, problems := r.Turn(req)
			if turn == nil {
				t.Fatalf("%s: no turn", kind)
			}
			if len(turn.Arguments)+len(problems) < len(r.Arguments) {
				t.Fatalf("%s: %d arguments in the reply, %d kept and %d problems", kind, len(r.Arguments), len(turn.Arguments), len(problems))
			}
			for i, a := range turn.Arguments {
				a.ID = fmt.Sprintf("SS-%d", 10+i)
				if err := a.Validate(); err != nil {
					t.Fatalf("%s: a kept argument does not validate: %v", kind, err)
				}
				if kind != toulmin.PhaseRebuttal && kind != toulmin.PhaseClarification && kind != toulmin.PhaseResponse {
					if a.Target != "" || a.Answer != "" || a.Steelman != "" {
						t.Fatalf("%s: an argument with a target %q, answer %q or steelman", kind, a.Target, a.Answer)
					}
					continue
				}
				target, ok := tr.Argument(a.Target)
				if kind == toulmin.PhaseResponse {
					if !ok || target.ID != "PS-3" {
						t.Fatalf("response: kept an argument answering %q", a.Target)
					}
					continue
				}
				if !ok || (kind == toulmin.PhaseRebuttal) == (target.Agent == "security") {
					t.Fatalf("%s: kept an argument answering %q", kind, a.Target)
				}
			}
			if p := turn.Position; p != nil {
				if !p.Vote.Valid() || math.IsNaN(p.Confidence) || p.Confidence < 0 || p.Confidence > 1 {
					t.Fatalf("%s: position %+v", kind, p)
				}
				if kind == toulmin.PhaseRebuttal || kind == toulmin.PhaseResponse {
					t.Fatalf("a %s turn carries a position", kind)
				}
			}
			for _, p := range problems {
				if len(p) > 2000 {
					t.Fatalf("%s: a problem of %d bytes goes into the repair and the transcript", kind, len(p))
				}
			}
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("a parsed reply does not encode: %v", err)
		}
	})
}
