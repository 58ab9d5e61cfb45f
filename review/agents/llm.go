package agents

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/openai/openai-go"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/toulmin"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// Prompts are the Go templates the model-backed agents speak through.
type Prompts struct {
	// rules is the system message, the same for every debate, when each agent makes its own
	// calls; panelRules when one call speaks for the panel (with every phase's instruction, so
	// that the message of each call is short).
	rules, panelRules                                                             string
	panel, context, diff, code, digest, instruction, turn, arguments, stage, seat *template.Template
}

// LoadPrompts parses the embedded prompt templates.
func LoadPrompts() (*Prompts, error) {
	sys, err := promptFS.ReadFile("prompts/system.tmpl")
	if err != nil {
		return nil, fmt.Errorf("failed to read the system prompt: %w", err)
	}
	panelSys, err := promptFS.ReadFile("prompts/panel_system.tmpl")
	if err != nil {
		return nil, fmt.Errorf("failed to read the panel's system prompt: %w", err)
	}
	p := &Prompts{rules: string(sys), panelRules: string(panelSys)}
	funcs := template.FuncMap{"join": strings.Join}
	for name, dst := range map[string]**template.Template{
		"panel": &p.panel, "context": &p.context, "diff": &p.diff, "code": &p.code, "digest": &p.digest,
		"instruction": &p.instruction, "turn": &p.turn, "arguments": &p.arguments, "panel_stage": &p.stage, "panel_seat": &p.seat,
	} {
		t, err := template.New(name+".tmpl").Funcs(funcs).ParseFS(promptFS, "prompts/"+name+".tmpl")
		if err != nil {
			return nil, fmt.Errorf("failed to parse prompt %s: %w", name, err)
		}
		*dst = t
	}
	return p, nil
}

func renderPrompt(t *template.Template, data any) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("failed to render prompt %s: %w", t.Name(), err)
	}
	return b.String(), nil
}

// LLMPanel builds the model-backed agents for one debate. They share the rendered change context,
// so that every agent's prompt starts with the same bytes and providers' prompt caching applies;
// unless o.PerAgent, the agents of one model speak in one call per phase (panelVoice).
func LLMPanel(ps []Perspective, o llm.Options) ([]toulmin.Agent, error) {
	prompts, err := LoadPrompts()
	if err != nil {
		return nil, err
	}
	tok, err := llm.DefaultTokenizer()
	if err != nil {
		return nil, err
	}
	o = o.WithDefaults()
	api := o.API()
	shared := newSharedContext(prompts, tok, o.ContextTokens, ps)
	if !o.PerAgent {
		shared.rules = prompts.panelRules
	}
	voices := map[string]*panelVoice{}
	agents := make([]toulmin.Agent, len(ps))
	for i, p := range ps {
		model := p.Model
		if model == "" {
			model = o.Model
		}
		trust := p.Trust
		if trust == 0 {
			trust = 1
		}
		a := &LLMAgent{
			p:     toulmin.Participant{Name: p.Name, Title: p.Title, Abbrev: p.Abbrev, Role: p.Role, Perspective: p.Summary, Trust: trust, Model: model},
			persp: p, shared: shared,
			client: &llm.Client{API: api, Model: model, Prices: o.Prices, MaxRetries: o.MaxRetries, RequestTimeout: o.RequestTimeout},
		}
		if !o.PerAgent {
			// One voice per model: the agents of one model speak in one call per phase.
			if voices[model] == nil {
				voices[model] = newPanelVoice(a.client, shared)
			}
			a.voice = voices[model]
			a.voice.members[p.Name] = a
			shared.roster = append(shared.roster, a.p)
		}
		agents[i] = a
	}
	return agents, nil
}

// sharedContext renders what every call of a debate starts with, once per debate: the change.
// The system message before it (the rules) is the same for every debate, and the panel after it
// is the same for every call once the panel is seated, so that the moderator's call, which comes
// before the panel is known, shares the rules and the change with every later call.
type sharedContext struct {
	prompts *Prompts
	// rules is the system message of every call of the debate.
	rules string
	// roster, when set, is the panel every call shows: every member the debate may seat, so that
	// the call that seats the panel shares it with every later call (one call per phase).
	roster []toulmin.Participant
	tok    *llm.Tokenizer
	budget int
	// persp holds the panel's perspectives by name, for their priorities and trade-offs.
	persp map[string]Perspective
	// build fits the change to the budget (BuildContext).
	build func(ctx context.Context, c *change.Change, ev []toulmin.Evidence, budget int, tok *llm.Tokenizer) (ChangeContext, error)

	// lock is held while the context is built; waiting for it honours the caller's context.
	lock     chan struct{}
	debateID string
	change   string // files, evidence, what was left out, the budgeted diff and the code around it
}

func newSharedContext(p *Prompts, tok *llm.Tokenizer, budget int, ps []Perspective) *sharedContext {
	persp := make(map[string]Perspective, len(ps))
	for _, p := range ps {
		persp[p.Name] = p
	}
	return &sharedContext{prompts: p, rules: p.rules, tok: tok, budget: budget, persp: persp, lock: make(chan struct{}, 1), build: BuildContext}
}

// panelMember is one line of the panel's message.
type panelMember struct {
	toulmin.Participant
	Summary               string
	Priorities, TradeOffs []string
}

// get returns the change's message of the debate on subject, rendered on the first call.
func (s *sharedContext) get(ctx context.Context, subject *toulmin.Subject, ev []toulmin.Evidence) (string, error) {
	select {
	case s.lock <- struct{}{}:
		defer func() { <-s.lock }()
	case <-ctx.Done():
		return "", fmt.Errorf("waiting for the change's context: %w", ctx.Err())
	}
	if s.debateID == subject.DebateID && s.change != "" {
		return s.change, nil
	}
	ctxText, parts, err := s.render(ctx, subject, ev)
	if err != nil {
		return "", err
	}
	s.change = ctxText
	for _, part := range parts {
		s.change += "\n" + part
	}
	s.debateID = subject.DebateID
	return s.change, nil
}

// panel renders the panel, every participant's persona on one line: the same bytes for every
// call of the debate after the moderator's. With one call per phase it is the roster, every
// member the moderator may seat, so that the moderator's call shares it too.
func (s *sharedContext) panel(participants []toulmin.Participant) (string, error) {
	if s.roster != nil {
		participants = s.roster
	}
	var panel []panelMember
	for _, p := range participants {
		m := panelMember{Participant: p, Summary: oneLine(p.Perspective, 300)}
		if persp, ok := s.persp[p.Name]; ok {
			for _, t := range persp.Priorities {
				m.Priorities = append(m.Priorities, oneLine(t, 200))
			}
			for _, t := range persp.TradeOffs {
				m.TradeOffs = append(m.TradeOffs, oneLine(t, 200))
			}
		}
		panel = append(panel, m)
	}
	text, err := renderPrompt(s.prompts.panel, panel)
	return strings.TrimLeft(text, "\n"), err
}

// render renders the change: its files, evidence and what was left out (ctxText), then the diff
// fitted to the budget and the code around it (parts, each left out when empty): the same bytes
// in every call of the debate.
func (s *sharedContext) render(ctx context.Context, subject *toulmin.Subject, ev []toulmin.Evidence) (ctxText string, parts []string, err error) {
	c, _ := subject.Data.(*change.Change)
	if c == nil {
		c = &change.Change{}
	}
	cc, err := s.build(ctx, c, ev, s.budget, s.tok)
	if err != nil {
		return "", nil, err
	}
	files, added, deleted := c.Stats()
	var list []string
	for _, f := range c.Files {
		if !cc.InDiff[f.Path] { // the diff's header of a file gives the same
			list = append(list, fmt.Sprintf("%s (%s, +%d -%d)", untrustedName(f.Path), f.Status, f.Added, f.Deleted))
		}
	}
	data := map[string]any{
		"Title": untrusted(subject.Title), "Question": untrusted(subject.Question), "Body": untrusted(c.Body),
		"Files": files, "Added": added, "Deleted": deleted, "FileList": list, "Evidence": untrustedEvidence(ev), "Omitted": untrustedList(cc.Omitted),
	}
	if subject.Question != "" {
		data["Body"] = ""
	}
	if ctxText, err = renderPrompt(s.prompts.context, data); err != nil {
		return "", nil, err
	}
	for _, part := range []struct {
		t    *template.Template
		text string
	}{{s.prompts.diff, cc.Text}, {s.prompts.code, cc.Code}} {
		if part.text == "" {
			continue
		}
		text, err := renderPrompt(part.t, untrusted(part.text))
		if err != nil {
			return "", nil, err
		}
		parts = append(parts, text)
	}
	return ctxText, parts, nil
}

// LLMAgent argues through an OpenAI-compatible chat completions endpoint.
type LLMAgent struct {
	p      toulmin.Participant
	persp  Perspective
	client *llm.Client
	shared *sharedContext
	// voice, when set, speaks for the agent and the rest of its panel in one call per phase.
	voice *panelVoice
}

// Participant implements toulmin.Agent.
func (a *LLMAgent) Participant() toulmin.Participant { return a.p }

// Take implements toulmin.Agent. An agent of a panel that speaks in one call per phase
// (panelVoice) takes its turn from that call. Otherwise it is one structured call of its own,
// and at most one more when the reply is unusable. A garbled reply (not a JSON object of the
// schema) is asked again unchanged, so the second call is served from the prompt cache; a reply
// cut off at the token limit, or with parts that do not validate, gets a repair request that
// says what was wrong (and which argument ids may be answered) but does not send the rejected
// reply back. A reply that still does not parse on the second call is an error (the engine
// leaves the agent out of the phase); parts that still do not validate are dropped with a note
// and the rest of the turn is kept. The turn carries the usage of every call the server
// answered, retries and repairs included, also when Take fails.
func (a *LLMAgent) Take(ctx context.Context, req *toulmin.Request) (*toulmin.Turn, error) {
	answer := a.toAnswer(req)
	if a.voice != nil {
		return a.voice.take(ctx, a, req, answer)
	}
	if !mustSpeak(req.Phase.Kind, answer) {
		return &toulmin.Turn{}, nil // nothing to answer: no call
	}
	return a.takeAlone(ctx, req, answer)
}

// askShorter is msgs and a request to reply again, shorter, after a reply cut off at its limit
// of tokens; the cut reply is not sent back.
func askShorter(msgs []openai.ChatCompletionMessageParamUnion, limit int) []openai.ChatCompletionMessageParamUnion {
	return append(slices.Clip(msgs), openai.UserMessage(fmt.Sprintf(
		"Your previous reply was cut off at the limit of %d tokens. Reply again with one JSON object that matches the response schema, shorter: fewer arguments, shorter texts.", limit)))
}

// takeAlone is the agent's turn from a call of its own (see Take).
func (a *LLMAgent) takeAlone(ctx context.Context, req *toulmin.Request, answer []toulmin.Argument) (*toulmin.Turn, error) {
	base, err := a.messages(ctx, req, answer)
	if err != nil {
		return nil, err
	}
	msgs := base
	spent := &toulmin.Turn{}
	for attempt := 0; ; attempt++ {
		res := a.client.Complete(ctx, msgs, req.Phase.TokenLimit, req.Subject.DebateID)
		spent.Usage.Add(res.Usage)
		spent.Notes = append(spent.Notes, res.Notes...)
		if res.Err != nil {
			return spent, res.Err
		}
		turn, problems, perr := a.parse(res.Content, res.Finish, req)
		if perr == nil && len(problems) == 0 {
			turn.Usage, turn.Notes = spent.Usage, spent.Notes
			return turn, nil
		}
		if attempt == 1 {
			if perr != nil {
				return spent, fmt.Errorf("the reply was still unusable on the second call: %w", perr)
			}
			for _, p := range problems {
				spent.Notes = append(spent.Notes, "dropped from the reply after one repair: "+scan.Clip(p, 300))
			}
			turn.Usage, turn.Notes = spent.Usage, spent.Notes
			return turn, nil
		}
		switch {
		case perr != nil && !errors.Is(perr, llm.ErrTruncated):
			spent.Notes = append(spent.Notes, "the first reply was unusable and was asked again: "+scan.Clip(perr.Error(), 300))
			msgs = base
		case perr != nil:
			spent.Notes = append(spent.Notes, "the first reply needed a repair: "+scan.Clip(perr.Error(), 300))
			msgs = askShorter(base, req.Phase.TokenLimit)
		default:
			spent.Notes = append(spent.Notes, "the first reply needed a repair: "+scan.Clip(strings.Join(problems, "; "), 300))
			msgs = append(slices.Clip(base), openai.UserMessage(fmt.Sprintf(
				"Your previous reply could not be used as it was:\n%s\n%sReply again with your whole turn as one JSON object that matches the response schema, fixing exactly these problems.",
				strings.Join(problems, "\n"), a.targetsHint(req))))
		}
	}
}

// targetsHint tells the repair which argument ids a rebuttal or a clarification may answer.
func (a *LLMAgent) targetsHint(req *toulmin.Request) string {
	switch req.Phase.Kind {
	case toulmin.PhaseRebuttal:
		valid := llm.ValidTargets(req)
		if len(valid) == 0 {
			return "No argument of another agent can be rebutted: reply with no arguments.\n"
		}
		hint := "Valid targets of a rebuttal (other agents' arguments): " + strings.Join(valid, ", ") + "."
		var own []string
		for _, arg := range req.Arguments {
			if arg.Agent == req.Self.Name {
				own = append(own, arg.ID)
			}
		}
		if len(own) > 0 {
			hint += " Your own arguments (" + strings.Join(own, ", ") + ") cannot be rebutted."
		}
		return hint + "\n"
	case toulmin.PhaseClarification:
		return "Valid targets of a clarification (your arguments that were rebutted): " + strings.Join(rebuttedIDs(a.toAnswer(req)), ", ") + ".\n"
	case toulmin.PhaseResponse:
		return "Valid targets of a response (the answers to your rebuttals): " + strings.Join(llm.ResponseTargets(req), ", ") + ".\n"
	}
	return ""
}

// parse reads a reply: perr when it is unusable as a whole, problems for the parts left out of turn.
func (a *LLMAgent) parse(content, finish string, req *toulmin.Request) (turn *toulmin.Turn, problems []string, perr error) {
	r, err := llm.ParseReply(content)
	if err != nil {
		if finish == "length" {
			return nil, nil, fmt.Errorf("%w: %v", llm.ErrTruncated, err)
		}
		return nil, nil, err
	}
	turn, problems = r.Turn(req)
	for i := range turn.Arguments {
		turn.Arguments[i].Template = templateOfArgument(&turn.Arguments[i], req.Self.Name, req.Evidence)
	}
	return turn, problems, nil
}

// toAnswer lists what the agent must answer, the one place its prompt carries arguments in full:
// in a clarification, the rebuttals of this round that answer its arguments; in the response
// phase, the answers that partly accepted or rejected its rebuttals.
func (a *LLMAgent) toAnswer(req *toulmin.Request) []toulmin.Argument {
	if req.Phase.Kind == toulmin.PhaseResponse && req.Transcript != nil {
		return req.Transcript.AnswersFor(a.p.Name, req.Round)
	}
	if req.Phase.Kind != toulmin.PhaseClarification {
		return nil
	}
	var out []toulmin.Argument
	for _, r := range req.Arguments {
		if r.Phase != toulmin.PhaseRebuttal || r.Round != req.Round || req.Transcript == nil {
			continue
		}
		if t, ok := req.Transcript.Argument(r.Target); ok && t.Agent == a.p.Name {
			out = append(out, r)
		}
	}
	return out
}

// rebuttedIDs lists, once each and in order, the arguments the rebuttals answer.
func rebuttedIDs(rebuttals []toulmin.Argument) []string {
	var out []string
	for _, r := range rebuttals {
		if !slices.Contains(out, r.Target) {
			out = append(out, r.Target)
		}
	}
	return out
}

// messages lays the prompt out so that what calls share comes first, byte for byte:
//
//  1. the system message, the same for every debate: the rules;
//  2. the change (files, evidence, what was left out, the diff and the code around it, in every
//     phase so that rebuttals can see the lines they cite), the same for every call of the
//     debate, the moderator's included, so that a provider's prompt cache serves it;
//  3. the seated panel (every participant's persona on one line);
//  4. one digest per phase held so far (each argument's id, author, phase, severity, target,
//     claim and first citation, and the stances taken), appended phase by phase, so that the
//     prompts of a phase start with the shared part of every earlier phase's prompts;
//  5. the phase's instruction, the same for every agent of the phase;
//  6. last, the agent's short tail: who it is, its arguments so far and, in a clarification, the
//     rebuttals it must answer in full.
//
// Everything from the pull request, and the agents' arguments that quote it, is fenced as
// untrusted.
func (a *LLMAgent) messages(ctx context.Context, req *toulmin.Request, answer []toulmin.Argument) ([]openai.ChatCompletionMessageParamUnion, error) {
	msgs, err := a.shared.prefix(ctx, req)
	if err != nil {
		return nil, err
	}
	instruction, err := renderPrompt(a.shared.prompts.instruction, map[string]any{
		"Phase": string(req.Phase.Kind), "Round": req.Round, "TokenLimit": req.Phase.TokenLimit, "MaxPerAgent": req.Phase.MaxPerAgent,
		"Guidance": untrusted(req.Guidance),
	})

	if err != nil {
		return nil, err
	}
	var own []string
	for _, arg := range req.Arguments {
		if arg.Agent == a.p.Name {
			own = append(own, arg.ID)
		}
	}
	full := ""
	if len(answer) > 0 {
		if full, err = renderPrompt(a.shared.prompts.arguments, untrustedArguments(answer)); err != nil {
			return nil, err
		}
	}
	data := map[string]any{"Self": req.Self, "Own": own, "Answer": strings.TrimSpace(full)}
	if req.Phase.Kind == toulmin.PhaseResponse {
		var ids []string
		for _, c := range answer {
			ids = append(ids, c.ID)
		}
		data["Answers"] = ids
	} else {
		data["Rebutted"] = rebuttedIDs(answer)
	}
	turn, err := renderPrompt(a.shared.prompts.turn, data)
	if err != nil {
		return nil, err
	}
	return append(msgs, openai.UserMessage(instruction), openai.UserMessage(turn)), nil
}

// prefix is what every call of the debate after the moderator's starts with: the rules, the
// change, the panel and the debate so far in brief (see LLMAgent.messages).
func (s *sharedContext) prefix(ctx context.Context, req *toulmin.Request) ([]openai.ChatCompletionMessageParamUnion, error) {
	change, err := s.get(ctx, req.Subject, req.Evidence)
	if err != nil {
		return nil, err
	}
	panel, err := s.panel(req.Participants)
	if err != nil {
		return nil, err
	}
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(s.rules), openai.UserMessage(change), openai.UserMessage(panel)}
	for _, g := range digestGroups(req) {
		d, err := renderPrompt(s.prompts.digest, g)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, openai.UserMessage(d))
	}
	return msgs, nil
}

// digest is one phase of the debate in brief, as the prompts of later phases show it.
type digest struct {
	Title     string
	Round     int
	Arguments []digestArgument
	Stances   []digestStance
}

type digestArgument struct {
	ID, Agent, Phase, Severity, Target, Resolution, Claim, Citation string
	Unverified                                                      bool
}

type digestStance struct {
	Agent, Vote, Reason string
	Confidence          float64
}

// digestGroups is the debate so far in brief, one digest per phase in the order held: the
// phases of the timeline (each rendered from what was fixed when it was recorded, so that its
// digest is the same bytes in every later prompt), then the arguments of a phase still under
// way (a sequential phase's earlier turns).
func digestGroups(req *toulmin.Request) []digest {
	type key struct {
		phase toulmin.PhaseKind
		round int
	}
	var keys []key
	seen := map[key]bool{}
	add := func(k key) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	var stances []toulmin.Stance
	if req.Transcript != nil {
		for _, p := range req.Transcript.Timeline {
			if p.Phase != toulmin.PhaseEvidence && p.Phase != toulmin.PhaseDecision {
				add(key{p.Phase, p.Round})
			}
		}
		stances = req.Transcript.Stances
	}
	for _, a := range req.Arguments {
		add(key{a.Phase, a.Round})
	}
	out := make([]digest, 0, len(keys))
	for _, k := range keys {
		d := digest{Title: k.phase.Title(), Round: k.round}
		if d.Title == "" {
			d.Title = string(k.phase)
		}
		for _, a := range req.Arguments {
			if a.Phase != k.phase || a.Round != k.round {
				continue
			}
			da := digestArgument{
				ID: a.ID, Agent: a.Agent, Phase: string(a.Phase), Severity: string(a.Severity), Target: a.Target,
				Resolution: answerOf(a), Claim: oneLine(a.Claim, 300), Unverified: len(a.Quality.BadCitations) > 0,
			}
			for _, g := range a.Grounds {
				if c := g.Citation(); c != "" {
					da.Citation = oneLine(c, 200)
					break
				}
			}
			d.Arguments = append(d.Arguments, da)
		}
		for _, st := range stances {
			if st.Phase == k.phase && st.Round == k.round {
				d.Stances = append(d.Stances, digestStance{Agent: st.Agent, Vote: string(st.Position.Vote),
					Confidence: st.Position.Confidence, Reason: oneLine(st.Position.Reason, 200)})
			}
		}
		out = append(out, d)
	}
	return out
}

// answerOf is how the argument answers its target in a digest: the confrontation's answer
// (accept, partial, reject, maintain, escalate), or the resolution of a clarification without one.
func answerOf(a toulmin.Argument) string {
	if a.Answer != "" {
		return string(a.Answer)
	}
	return string(a.Resolution)
}

// SingleCallPromptTokens is the size of one review prompt of the change built within the same
// budget, as single-call review bots send it (the rules, the change with its evidence and diff,
// one instruction): the yardstick a debate's prompt tokens are measured against.
func SingleCallPromptTokens(c *change.Change, ev []toulmin.Evidence, budget int) (int, error) {
	prompts, err := LoadPrompts()
	if err != nil {
		return 0, err
	}
	tok, err := llm.DefaultTokenizer()
	if err != nil {
		return 0, err
	}
	s := newSharedContext(prompts, tok, budget, nil)
	ctxText, parts, err := s.render(context.Background(), &toulmin.Subject{DebateID: "single", Title: c.Title, Data: c}, ev)
	if err != nil {
		return 0, err
	}
	instruction := "Review this change: list the problems with path:line, and say whether to approve, approve with changes or request changes."
	return tok.Count(prompts.rules) + tok.Count(ctxText+"\n"+strings.Join(parts, "\n")) + tok.Count(instruction), nil
}
