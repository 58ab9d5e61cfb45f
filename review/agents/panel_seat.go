package agents

import (
	"context"

	"github.com/openai/openai-go"

	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/toulmin"
)

// seatReply is what the model answers when one call seats the panel and writes its openings.
type seatReply struct {
	moderatorReply
	Turns []llm.PanelTurn `json:"turns" jsonschema_description:"The opening_arguments turn of each stakeholder you seated"`
}

// seatSchemaName names the response format of the call that seats the panel and opens.
const seatSchemaName = "debate_panel_seat"

var seatSchema = llm.Schema(&seatReply{})

// seatCandidate is one line of the catalog in the seating call.
type seatCandidate struct {
	Name, Abbrev string
	Opposes      []string
}

// seatAndOpen is the moderator's choice when one call speaks for the panel: the same call seats
// the panel and writes the openings of those it seated, after the prefix every later call of the
// debate shares (the rules, the change, every member's line of the panel), so that the seating
// costs no call of its own. The openings are held for the opening phase; a seated member the
// reply gave no opening is asked alone there. A call that fails, or a choice that cannot be
// used, leaves the rules' choice, and the openings are then asked in a call of their own.
func (m *llmModerator) seatAndOpen(ctx context.Context, req *toulmin.SeatRequest, rules *toulmin.Panel) *toulmin.Panel {
	v := m.a.voice
	sub := &toulmin.Request{Phase: req.Opening, Round: 1, Subject: req.Subject, Evidence: req.Evidence}
	msgs, err := v.shared.prefix(ctx, sub)
	if err != nil {
		return notAsked(rules, err)
	}
	var cands []seatCandidate
	for _, c := range req.Candidates {
		sc := seatCandidate{Name: c.Name, Abbrev: c.Abbrev}
		if p, ok := m.rules.catalog[c.Name]; ok {
			sc.Opposes = p.Opposes
		}
		cands = append(cands, sc)
	}
	task, err := renderPrompt(v.shared.prompts.seat, map[string]any{
		"Min": req.Min, "Max": req.Max, "TokenLimit": req.Opening.TokenLimit, "Candidates": cands,
		"Evidence": evidencePerPerspective(req.Evidence),
	})
	if err != nil {
		return notAsked(rules, err)
	}
	limit := DefaultModeratorTokens + req.Opening.TokenLimit*req.Max
	res := v.client.Structured(ctx, append(msgs, openai.UserMessage(task)), limit, req.Subject.DebateID, seatSchemaName, seatSchema)
	var r seatReply
	panel, ok := m.chosen(req, rules, &res, &r, &r.moderatorReply)
	if !ok {
		// The reply's openings, if any, speak for a panel the model did not choose: the rules'
		// panel opens in a call of its own.
		return panel
	}
	key := stageKey{req.Subject.DebateID, req.Opening.Kind, 1}
	v.mu.Lock()
	v.covered[key] = true
	v.hold(key, []toulmin.PhaseSpec{req.Opening}, &llm.PanelReply{Turns: r.Turns}, &panel.Notes)
	v.mu.Unlock()
	return panel
}
