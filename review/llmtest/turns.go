package llmtest

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Turn is one agent's turn in an answer of Valid's shape, for responders that change what Valid
// answers in either way of asking the model (one call per agent, or one call for the panel).
type Turn struct {
	// Phase and Agent say whose turn it is: the phase and abbreviation of the call of one agent
	// (Phase), or the turn's own fields in a panel call's reply.
	Phase, Agent string
	// Fields is the turn's JSON object (arguments, position, synthesis), changed in place.
	Fields map[string]any
}

// EditTurns calls edit with every turn of resp, the answer to r: the one turn of an agent's call,
// or each turn of a panel call's reply, and answers with what edit made of them. The moderator's
// answer, and an answer that is not a JSON object of either shape, are returned as they are.
func EditTurns(r *Request, resp Response, edit func(Turn)) Response {
	if r.ResponseFormat.JSONSchema.Name == ModeratorSchema {
		return resp
	}
	var reply map[string]any
	if err := json.Unmarshal([]byte(resp.Content), &reply); err != nil {
		return resp
	}
	if name := r.ResponseFormat.JSONSchema.Name; name == PanelSchema || name == PanelSeatSchema {
		turns, ok := reply["turns"].([]any)
		if !ok {
			return resp
		}
		for _, t := range turns {
			fields, ok := t.(map[string]any)
			if !ok {
				continue
			}
			phase, _ := fields["phase"].(string)
			agent, _ := fields["agent"].(string)
			edit(Turn{Phase: phase, Agent: agent, Fields: fields})
		}
	} else {
		phase, agent := Phase(r)
		edit(Turn{Phase: phase, Agent: agent, Fields: reply})
	}
	b, err := json.Marshal(reply)
	if err != nil {
		return resp
	}
	resp.Content = string(b)
	return resp
}

var coversRe = regexp.MustCompile(`(?m)^# This call: (.+) \(round \d+\)$`)

// Phases returns the phases a request asks for, in order: every phase a panel call covers (a
// round's rebuttal, clarification and response; final arguments and synthesis), or the one phase
// of an agent's call. The moderator's call asks for none.
func Phases(r *Request) []string {
	if r.ResponseFormat.JSONSchema.Name == ModeratorSchema {
		return nil
	}
	if r.ResponseFormat.JSONSchema.Name == PanelSeatSchema {
		return []string{"opening_arguments"}
	}
	if r.ResponseFormat.JSONSchema.Name == PanelSchema {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if m := coversRe.FindStringSubmatch(r.Messages[i].Content); m != nil && r.Messages[i].Role == "user" {
				return strings.Split(m[1], ", ")
			}
		}
		return nil
	}
	if phase, _ := Phase(r); phase != "" {
		return []string{phase}
	}
	return nil
}
