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
// used, leaves the rules' choice, and the openings are then asked in a call of their own; when
// the server refused the call or it timed out, each member opens alone, as in the rest of the
// debate.
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
	res := v.seat(ctx, append(msgs, openai.UserMessage(task)), limit, req.Subject.DebateID)
	key := stageKey{req.Subject.DebateID, req.Opening.Kind, 1}
	var r seatReply
	panel, ok := m.chosen(req, rules, &res, &r, &r.moderatorReply)
	if !ok {
		if res.Err != nil && !res.Transient && ctx.Err() == nil {
			// A call for the panel was refused or timed out: from the openings on, each member
			// is asked alone.
			panel.Notes = append(panel.Notes, "each member is asked alone for the rest of the debate")
			v.mu.Lock()
			v.failed[key.debate] = true
			v.mu.Unlock()
		}
		// The reply's openings, if any, speak for a panel the model did not choose: the rules'
		// panel opens in a call of its own.
		return panel
	}
	v.mu.Lock()
	v.coverLocked(key, []toulmin.PhaseSpec{req.Opening}, replied)
	v.hold(key, []toulmin.PhaseSpec{req.Opening}, &llm.PanelReply{Turns: r.Turns}, &panel.Notes)
	v.mu.Unlock()
	return panel
}

// seat makes the seating call, asked again once, shorter, when its reply was cut off at the limit
// before it was whole: what both calls cost is the one completion's.
func (v *panelVoice) seat(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, limit int, key string) llm.Completion {
	res := v.client.Panel(ctx, msgs, limit, key, seatSchemaName, seatSchema)
	if res.Err != nil || res.Finish != "length" || llm.Decode(res.Content, &seatReply{}) == nil {
		return res
	}
	again := v.client.Panel(ctx, askShorter(msgs, limit), limit, key, seatSchemaName, seatSchema)
	again.Usage.Add(res.Usage)
	again.Notes = append(append(res.Notes, "the seating reply was cut off at the limit and was asked again, shorter"), again.Notes...)
	return again
}
