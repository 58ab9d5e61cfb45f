package llm

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/toulmin"
)

// TestReplyConfrontationFields reads the confrontation's fields of a model's reply: a rebuttal's
// steelman, the author's answer with its limit, the challenger's response, and what the agent
// examined; and reports, for the repair, answers that do not fit the phase.
func TestReplyConfrontationFields(t *testing.T) {
	tr := fuzzTranscript()
	arg := func(target, extra string) string {
		return `{"target":"` + target + `","claim":"c","grounds":[{"path":"a.go","line":1,"text":"t"}],"warrant":"w","backing":[],"confidence":0.8,` +
			`"qualifier":"","rebuttal":"","severity":"high","actions":[]` + extra + `}`
	}
	reply := func(args ...string) string {
		return `{"arguments":[` + strings.Join(args, ",") + `],"position":{"vote":"approve","confidence":0.5,"reason":"r","priorities":[],"trade_offs":[],"examined":["a.go:1 for injection"," "]},"synthesis":{"consensus_points":[],"conflicts":[],"resolution":""}}`
	}
	tests := map[string]struct {
		phase    toulmin.PhaseKind
		self     string
		content  string
		check    func(a toulmin.Argument) bool
		problems string
	}{
		"a steelmanned rebuttal": {toulmin.PhaseRebuttal, "security", reply(arg("PS-1", `,"steelman":"PS-1 at its strongest","answer":"","limit":""`)),
			func(a toulmin.Argument) bool { return a.Steelman == "PS-1 at its strongest" }, ""},
		"a partial answer": {toulmin.PhaseClarification, "security", reply(arg("SS-1", `,"steelman":"ignored","answer":"partial","limit":"only names"`)),
			func(a toulmin.Argument) bool {
				return a.Answer == toulmin.AnswerPartial && a.Limit == "only names" && a.Resolution == toulmin.Maintained && a.Steelman == ""
			}, ""},
		"an accepting answer concedes": {toulmin.PhaseClarification, "security", reply(arg("SS-1", `,"answer":"accept"`)),
			func(a toulmin.Argument) bool { return a.Resolution == toulmin.Conceded }, ""},
		"a challenger's answer in clarification": {toulmin.PhaseClarification, "security", reply(arg("SS-1", `,"answer":"maintain"`)),
			nil, `answer: a clarification answers a rebuttal with "accept", "partial" or "reject", got "maintain"`},
		"a partial answer without its limit": {toulmin.PhaseClarification, "security", reply(arg("SS-1", `,"answer":"partial","limit":""`)),
			nil, "limit: a partial answer must say where what it accepts ends"},
		"an escalating response": {toulmin.PhaseResponse, "security", reply(arg("PS-3", `,"answer":"escalate"`)),
			func(a toulmin.Argument) bool { return a.Answer == toulmin.AnswerEscalate }, ""},
		"a response to another's answer": {toulmin.PhaseResponse, "architecture", reply(arg("PS-3", `,"answer":"maintain"`)),
			nil, "arguments[0].target: PS-3 answers rebuttals of PS-1, none of which is architecture's"},
		"a response to a concern": {toulmin.PhaseResponse, "security", reply(arg("PS-1", `,"answer":"accept"`)),
			nil, "a response answers the author's answer to a rebuttal (a clarification), PS-1 is a opening_arguments"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, err := ParseReply(tc.content)
			if err != nil {
				t.Fatal(err)
			}
			req := &toulmin.Request{Phase: toulmin.PhaseSpec{Kind: tc.phase}, Round: 1, Self: toulmin.Participant{Name: tc.self}, Arguments: tr.Arguments, Transcript: tr}
			turn, problems := r.Turn(req)
			if tc.problems != "" {
				if len(turn.Arguments) != 0 || !strings.Contains(strings.Join(problems, "\n"), tc.problems) {
					t.Errorf("kept %d, problems %q, want %q", len(turn.Arguments), problems, tc.problems)
				}
				return
			}
			if len(problems) != 0 || len(turn.Arguments) != 1 || !tc.check(turn.Arguments[0]) {
				t.Fatalf("turn %+v, problems %q", turn.Arguments, problems)
			}
			if p := turn.Position; p != nil && strings.Join(p.Engaged, "|") != "a.go:1 for injection" {
				t.Errorf("examined = %q, want the one non-empty entry", p.Engaged)
			}
		})
	}
	if ids := ValidTargets(&toulmin.Request{Phase: toulmin.PhaseSpec{Kind: toulmin.PhaseResponse}, Round: 1, Self: toulmin.Participant{Name: "security"}, Transcript: tr}); strings.Join(ids, ",") != "PS-3" {
		t.Errorf("valid response targets = %v, want the answer to the security stakeholder's rebuttal", ids)
	}
}
