package llmtest

import (
	"encoding/json"
	"reflect"
	"testing"
)

// withSchema is a request of the response format name carrying msgs as user messages.
func withSchema(name string, msgs ...string) *Request {
	r := &Request{}
	r.ResponseFormat.JSONSchema.Name = name
	for _, m := range msgs {
		r.Messages = append(r.Messages, Message{Role: "user", Content: m})
	}
	return r
}

const openings = "# Openings\n- SS-1 (opening_arguments, high) → : SQL built from strings\n- PS-1 (opening_arguments, low) → : one query per row\n"

// EditTurns reaches the one turn of an agent's call and each turn of a panel call, with whose
// turn it is, and leaves the moderator's answer alone.
func TestEditTurns(t *testing.T) {
	agent := withSchema("debate_turn", openings, "You are the Security Stakeholder (SS), role stakeholder", "# Phase: rebuttal (round 1)")
	panel := withSchema(PanelSchema, openings, "# This call: rebuttal, clarification, response (round 1)\n"+
		"- rebuttal (≤900 tokens a turn): SS, PS\n"+
		"- clarification (≤900 tokens a turn): those of SS, PS rebutted above\n"+
		"- response (≤900 tokens a turn): those of SS, PS answered partial or reject above\n")
	moderator := withSchema(ModeratorSchema, "# Catalog of perspectives\n- security: Adversary\n")
	tests := map[string]struct {
		r    *Request
		want []string // phase/agent of each turn, in order
	}{
		"agent":     {agent, []string{"rebuttal/SS"}},
		"panel":     {panel, []string{"rebuttal/SS", "rebuttal/PS", "clarification/PS", "clarification/SS", "response/SS", "response/PS"}},
		"moderator": {moderator, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			resp := Valid(0, tc.r)
			var seen []string
			edited := EditTurns(tc.r, resp, func(turn Turn) {
				seen = append(seen, turn.Phase+"/"+turn.Agent)
				turn.Fields["position"] = map[string]any{"vote": "approve"}
			})
			if !reflect.DeepEqual(seen, tc.want) {
				t.Errorf("turns %v, want %v", seen, tc.want)
			}
			if tc.want == nil {
				if edited.Content != resp.Content {
					t.Errorf("the moderator's answer was changed:\n%s", edited.Content)
				}
				return
			}
			var reply struct {
				Turns    []map[string]any `json:"turns"`
				Position map[string]any   `json:"position"`
			}
			if err := json.Unmarshal([]byte(edited.Content), &reply); err != nil {
				t.Fatal(err)
			}
			positions := []map[string]any{reply.Position}
			if tc.r == panel {
				positions = nil
				for _, turn := range reply.Turns {
					positions = append(positions, turn["position"].(map[string]any))
				}
			}
			for _, p := range positions {
				if p["vote"] != "approve" || len(p) != 1 {
					t.Errorf("a turn's position is %v, not the edited one", p)
				}
			}
		})
	}
}

// Phases lists every phase a panel call covers, the one phase of an agent's call, and none for
// the moderator's call; a repair message after the panel's list does not hide it.
func TestPhases(t *testing.T) {
	final := withSchema(PanelSchema, "# This call: final_arguments, synthesis (round 1)\n- final_arguments (≤900 tokens a turn): SS, PS\n",
		"Your previous reply was cut off at the limit of 1800 tokens.")
	tests := map[string]struct {
		r    *Request
		want []string
	}{
		"panel":     {final, []string{"final_arguments", "synthesis"}},
		"agent":     {withSchema("debate_turn", "You are the Core Maintainer (CM), role core_maintainer", "# Phase: synthesis (round 1)"), []string{"synthesis"}},
		"moderator": {withSchema(ModeratorSchema, "# Catalog of perspectives\n"), nil},
	}
	for name, tc := range tests {
		if got := Phases(tc.r); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Phases = %v, want %v", name, got, tc.want)
		}
	}
}

// A panel call asked again after its reply was cut off ends with the request to be shorter: the
// fake still answers every speaker of the call's list of phases.
func TestPanelAnswersARepairedCall(t *testing.T) {
	r := withSchema(PanelSchema, openings, "# This call: opening_arguments (round 1)\n- opening_arguments (≤900 tokens a turn): SS, PS\n",
		"Your previous reply was cut off at the limit of 1800 tokens. Reply again with one JSON object of the response schema, shorter.")
	var seen []string
	EditTurns(r, Panel(r), func(turn Turn) { seen = append(seen, turn.Phase+"/"+turn.Agent) })
	if want := []string{"opening_arguments/SS", "opening_arguments/PS"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("turns %v, want %v", seen, want)
	}
}
