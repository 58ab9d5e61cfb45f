package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/openai/openai-go"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// llmModerator seats the panel with one small model call: the catalog, the change's title and
// file names (fenced as untrusted) and how much evidence each perspective has. Its choice is
// held to the catalog and the bounds, and the rules add an opposing perspective when the model
// chose none; a call that fails or a reply that cannot be used falls back to the rules' choice.
type llmModerator struct {
	a     *LLMAgent
	rules *RuleModerator
}

// DefaultModeratorTokens bounds the moderator's reply.
const DefaultModeratorTokens = 400

// moderatorReply is what the model answers.
type moderatorReply struct {
	Seated     []moderatorSeat `json:"seated" jsonschema_description:"2 to 4 perspectives of the catalog that fit the change, the most needed first"`
	Opposition string          `json:"opposition" jsonschema_description:"Which seated perspectives have trade-offs that oppose each other, and how"`
}

type moderatorSeat struct {
	Name   string `json:"name" jsonschema_description:"The perspective's name exactly as the catalog gives it"`
	Reason string `json:"reason" jsonschema_description:"What in the change calls for this perspective, in one sentence"`
}

// moderatorSchemaName names the response format of the moderator's call.
const moderatorSchemaName = "moderator_panel"

var moderatorSchema = llm.Schema(&moderatorReply{})

// moderatorTask opens the moderator's own message, after the rules and the change that every
// call of the debate starts with.
const moderatorTask = `# Before the debate: seat the panel
This call is not a turn of the debate: you are its moderator. Seat the stakeholder perspectives of
the catalog below that fit the change above, at least two of them with trade-offs that oppose each
other, each with one sentence on what in the change calls for it. Reply with one JSON object of
this call's response schema, and nothing else.

`

// Seat implements toulmin.Moderator.
func (m *llmModerator) Seat(ctx context.Context, req *toulmin.SeatRequest) (*toulmin.Panel, error) {
	fallback, err := m.rules.Seat(ctx, req)
	if err != nil {
		return nil, err
	}
	if m.a.voice != nil {
		return m.seatAndOpen(ctx, req, fallback), nil
	}
	// The call starts with the rules and the change, the bytes every later call of the debate
	// starts with, under the debate's cache key: once it is answered, the openings are served
	// from the provider's prompt cache.
	change, err := m.a.shared.get(ctx, req.Subject, req.Evidence)
	if err != nil {
		return notAsked(fallback, err), nil
	}
	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage(m.a.shared.rules), openai.UserMessage(change), openai.UserMessage(m.prompt(req)),
	}
	res := m.a.client.Structured(ctx, msgs, DefaultModeratorTokens, req.Subject.DebateID, moderatorSchemaName, moderatorSchema)
	var r moderatorReply
	panel, _ := m.chosen(req, fallback, &res, &r, &r)
	return panel, nil
}

// chosen is the moderator's choice from its call's reply, decoded into into (r is the choice in
// it); or the rules' choice, with what the call cost and why, when the call failed, the reply is
// not JSON of the schema, or it seats nobody of the catalog (ok false).
func (m *llmModerator) chosen(req *toulmin.SeatRequest, rules *toulmin.Panel, res *llm.Completion, into any, r *moderatorReply) (panel *toulmin.Panel, ok bool) {
	if res.Err != nil {
		return m.fallBack(rules, res, res.Err.Error()), false
	}
	s, err := llm.OutermostObject(res.Content)
	if err == nil {
		err = json.Unmarshal([]byte(s), into)
	}
	if err != nil {
		return m.fallBack(rules, res, "the reply is not valid JSON for the schema: "+err.Error()), false
	}
	panel, why := m.choose(req, *r, res)
	if panel == nil {
		return m.fallBack(rules, res, why), false
	}
	return panel, true
}

// notAsked is the rules' choice when the model could not be asked.
func notAsked(rules *toulmin.Panel, err error) *toulmin.Panel {
	rules.Notes = append(rules.Notes, "the model was not asked ("+scan.Clip(err.Error(), 200)+"); the rules chose")
	return rules
}

// fallBack is the rules' choice when the model's could not be used, with what the call cost and
// what happened to it (a request that timed out and was asked again).
func (m *llmModerator) fallBack(rules *toulmin.Panel, res *llm.Completion, why string) *toulmin.Panel {
	rules.Usage = res.Usage
	rules.Notes = append(rules.Notes, res.Notes...)
	rules.Notes = append(rules.Notes, "the model's choice could not be used ("+scan.Clip(why, 200)+"); the rules chose")
	return rules
}

// choose holds the model's choice to the catalog and the bounds and completes it by the rules,
// with what the call that made it cost and its notes; nil and why when it seated nobody of the
// catalog.
func (m *llmModerator) choose(req *toulmin.SeatRequest, r moderatorReply, res *llm.Completion) (*toulmin.Panel, string) {
	ranked := m.rules.rank(req)
	byName := map[string]*candidate{}
	for _, c := range ranked {
		byName[c.p.Name] = c
	}
	panel := &toulmin.Panel{Method: "model " + m.a.client.Model, Usage: res.Usage, Notes: slices.Clone(res.Notes)}
	var seated []*candidate
	for _, st := range r.Seated {
		c, ok := byName[strings.TrimSpace(st.Name)]
		switch {
		case !ok:
			panel.Notes = append(panel.Notes, fmt.Sprintf("the model named %q, which is not in the catalog", scan.Clip(st.Name, 40)))
			continue
		case slices.Contains(seated, c):
			continue
		case len(seated) == req.Max:
			panel.Notes = append(panel.Notes, fmt.Sprintf("the model seated more than %d; %s was left out", req.Max, c.title))
			continue
		}
		// The model's reason comes from a reply that read the change: it is kept as data.
		c.reasons = []string{"the model: " + scan.Clip(strings.TrimSpace(st.Reason), 300)}
		seated = append(seated, c)
	}
	if len(seated) == 0 {
		return nil, "it seated no perspective of the catalog"
	}
	for _, c := range ranked {
		if !slices.Contains(seated, c) {
			c.reasons = []string{"not chosen by the model"}
		}
	}
	chosen := slices.Clone(seated)
	seated, left, notes := complete(seated, ranked, req.Min, req.Max)
	panel.Notes = append(panel.Notes, notes...)
	if !sameSet(chosen, seated) {
		panel.Notes = append(panel.Notes, "the rules completed the model's choice: too few perspectives, or none with opposing trade-offs")
	}
	seatAll(panel, seated, left)
	return panel, ""
}

// prompt is the moderator's task: the catalog and the evidence per perspective (the change's
// title, files and evidence are in the change's message before it).
func (m *llmModerator) prompt(req *toulmin.SeatRequest) string {
	var b strings.Builder
	b.WriteString(moderatorTask)
	b.WriteString("# Catalog of perspectives\n")
	for _, part := range req.Candidates {
		p, ok := m.rules.catalog[part.Name]
		if !ok {
			p = Perspective{Name: part.Name, Summary: part.Perspective}
		}
		fmt.Fprintf(&b, "- %s: %s", p.Name, oneLine(p.Summary, 200))
		if len(p.TradeOffs) > 0 {
			fmt.Fprintf(&b, ". Trade-off: %s", oneLine(p.TradeOffs[0], 150))
		}
		if len(p.Opposes) > 0 {
			fmt.Fprintf(&b, ". Opposes: %s", strings.Join(p.Opposes, ", "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Seat %d to %d of them.\n", req.Min, req.Max)
	b.WriteString(evidencePerPerspective(req.Evidence))
	return b.String()
}

func sameSet(a, b []*candidate) bool {
	if len(a) != len(b) {
		return false
	}
	for _, c := range a {
		if !slices.Contains(b, c) {
			return false
		}
	}
	return true
}

// evidencePerPerspective counts the analyzers' evidence of each perspective, with its worst
// severity, for the moderator.
func evidencePerPerspective(ev []toulmin.Evidence) string {
	var b strings.Builder
	b.WriteString("\n# Evidence from the analyzers, per perspective\n")
	counts, worst := map[string]int{}, map[string]voting.Severity{}
	var order []string
	for _, e := range ev {
		if e.Stakeholder == "" {
			continue
		}
		if _, ok := counts[e.Stakeholder]; !ok {
			order = append(order, e.Stakeholder)
		}
		counts[e.Stakeholder]++
		if e.Severity.Rank() > worst[e.Stakeholder].Rank() || worst[e.Stakeholder] == "" {
			worst[e.Stakeholder] = e.Severity
		}
	}
	if len(order) == 0 {
		b.WriteString("- none\n")
	}
	for _, s := range order {
		fmt.Fprintf(&b, "- %s: %d item(s), the worst %s\n", s, counts[s], worst[s])
	}
	return b.String()
}
