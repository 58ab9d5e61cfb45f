package agents

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/openai/openai-go"
	"golang.org/x/sync/singleflight"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// panelVoice makes one model call per phase for every model-backed member of the panel that
// shares its model, instead of one call per member: the call carries the shared prefix once
// and the model writes every member's turn. A round's rebuttals, clarifications and responses
// are one call, and the last round's carries the final arguments and the synthesis too: the
// turns of the later phases are held until the engine asks for them. The moderator's call
// seats the panel and writes the openings (panel_seat.go), so that a debate of the standard
// protocol makes two calls instead of one per member and phase.
//
// Nothing is lost when the reply falls short: a member the reply has no usable turn for is asked
// alone, as in a debate of one call per member. A call that fails leaves every member of its
// phases to be asked alone; when the server refused it or it timed out (a long reply is more
// likely to), so does every later phase of the debate: the smaller calls of one member each are
// what a model that cannot write the panel's reply can still answer.
type panelVoice struct {
	client *llm.Client
	shared *sharedContext
	// members are the agents the voice speaks for, by participant name.
	members map[string]*LLMAgent

	// calls makes one call per stage: the members that ask for it at once wait for the first's.
	calls singleflight.Group

	mu sync.Mutex
	// covered says how a call covered each phase it was made for.
	covered map[stageKey]cover
	// failed marks the debates in which a call for the panel was refused or timed out: their
	// later phases ask each member alone, with no call for the panel.
	failed map[string]bool
	held   map[turnKey]*heldTurn
	// owed is each speaker's share of a call's usage, claimed with its turn in the call's first
	// phase, so that the record counts every billed token once, split evenly.
	owed map[turnKey]*toulmin.Turn
	// taken marks the members that took their turn in a phase (the call for it failed, or it had
	// nothing to say): a later call of the phase neither asks for them nor bills them.
	taken map[turnKey]bool
}

// cover is how a phase was covered by a call for the panel.
type cover int

const (
	// uncovered: no call was made for the phase yet.
	uncovered cover = iota
	// replied: the reply's turns are held; a member the reply left out of a rebuttal disputes
	// nothing, and out of another phase is asked alone.
	replied
	// alone: the call could not speak for the panel (it failed, or its reply was unusable twice),
	// or none was made after an earlier one failed: each member is asked alone.
	alone
)

type stageKey struct {
	debate string
	phase  toulmin.PhaseKind
	round  int
}

type turnKey struct {
	stageKey
	agent string
}

// heldTurn is a member's turn as the panel's reply gave it, until the engine asks for it.
type heldTurn struct {
	turn  llm.PanelTurn
	notes []string
}

func newPanelVoice(client *llm.Client, shared *sharedContext) *panelVoice {
	return &panelVoice{
		client: client, shared: shared, members: map[string]*LLMAgent{},
		covered: map[stageKey]cover{}, failed: map[string]bool{}, held: map[turnKey]*heldTurn{},
		owed: map[turnKey]*toulmin.Turn{}, taken: map[turnKey]bool{},
	}
}

// carries reports whether a call that covers phase a also covers b, which follows it: a round's
// phases go together, the final arguments with the last round (the request's Ahead lists them
// only then), and a synthesis with the phase before it.
func carries(a, b toulmin.PhaseKind) bool {
	switch {
	case a == toulmin.PhaseRebuttal && b == toulmin.PhaseClarification,
		a == toulmin.PhaseClarification && b == toulmin.PhaseResponse,
		a == toulmin.PhaseResponse && b == toulmin.PhaseFinal,
		(a == toulmin.PhaseFinal || a == toulmin.PhaseDesignReview) && b == toulmin.PhaseSynthesis:
		return true
	}
	return false
}

// stage is the phases one call covers from req's phase on.
func stage(req *toulmin.Request) []toulmin.PhaseSpec {
	out := []toulmin.PhaseSpec{req.Phase}
	for _, next := range req.Ahead {
		if !carries(out[len(out)-1].Kind, next.Kind) {
			break
		}
		out = append(out, next)
	}
	return out
}

// take is a's turn in req's phase: the turn the panel's call gave it, after the call when none
// has covered the phase yet; or, when the call left it without a usable turn, a call of its own.
func (v *panelVoice) take(ctx context.Context, a *LLMAgent, req *toulmin.Request, answer []toulmin.Argument) (*toulmin.Turn, error) {
	key := stageKey{req.Subject.DebateID, req.Phase.Kind, req.Round}
	needed := mustSpeak(req.Phase.Kind, answer)
	cov := v.coverOf(key)
	if needed && cov == uncovered {
		if err := v.call(ctx, key, req); err != nil {
			return v.claimOwed(key, a.p.Name), err
		}
		cov = v.coverOf(key)
	}
	owed := v.claimOwed(key, a.p.Name)
	held := v.claim(key, a.p.Name)
	switch {
	case !needed:
		return owed, nil // nothing to answer: no call
	case held != nil:
		turn, problems, unusable := v.serve(a, req, held)
		if !unusable {
			return withOwed(turn, owed, problems), nil
		}
		owed.Notes = append(owed.Notes, "the panel's turn could not be used ("+scan.Clip(strings.Join(problems, "; "), 300)+"); asked alone")
	case cov == alone:
		// The call's note says why.
	case req.Phase.Kind == toulmin.PhaseRebuttal:
		return owed, nil // disputes nothing
	default:
		owed.Notes = append(owed.Notes, "the panel's reply had no turn for it in this phase; asked alone")
	}
	turn, err := a.takeAlone(ctx, req, answer)
	if turn == nil {
		return owed, err
	}
	return withOwed(turn, owed, nil), err
}

// mustSpeak reports whether a member takes a turn in the phase: in a clarification or a
// response only when there is something to answer.
func mustSpeak(kind toulmin.PhaseKind, answer []toulmin.Argument) bool {
	return (kind != toulmin.PhaseClarification && kind != toulmin.PhaseResponse) || len(answer) > 0
}

// withOwed adds the member's share of the call, and its notes, to turn.
func withOwed(turn, owed *toulmin.Turn, dropped []string) *toulmin.Turn {
	turn.Usage.Add(owed.Usage)
	turn.Notes = append(owed.Notes, turn.Notes...)
	turn.PhaseNotes = append(owed.PhaseNotes, turn.PhaseNotes...)
	for name, u := range owed.UsageFor {
		spendFor(turn, name, u)
	}
	for _, p := range dropped {
		turn.Notes = append(turn.Notes, "dropped from the panel's reply: "+scan.Clip(p, 300))
	}
	return turn
}

func (v *panelVoice) coverOf(key stageKey) cover {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.covered[key]
}

// claim takes the member's held turn of the phase, once.
func (v *panelVoice) claim(key stageKey, agent string) *heldTurn {
	v.mu.Lock()
	defer v.mu.Unlock()
	k := turnKey{key, agent}
	h := v.held[k]
	delete(v.held, k)
	return h
}

// claimOwed takes the member's share of the call that covered the phase, once (an empty turn
// when it owes nothing).
func (v *panelVoice) claimOwed(key stageKey, agent string) *toulmin.Turn {
	v.mu.Lock()
	defer v.mu.Unlock()
	k := turnKey{key, agent}
	t := v.owed[k]
	delete(v.owed, k)
	v.taken[k] = true
	if t == nil {
		t = &toulmin.Turn{}
	}
	return t
}

// call makes the panel's call for the stage from key's phase on, or waits for the one in flight
// (the members of a phase share its context, which bounds the call).
func (v *panelVoice) call(ctx context.Context, key stageKey, req *toulmin.Request) error {
	_, err, _ := v.calls.Do(fmt.Sprintf("%s\x00%s\x00%d", key.debate, key.phase, key.round), func() (any, error) {
		return nil, v.speak(ctx, key, req)
	})
	return err
}

// speak makes the call: one structured request, asked again once when the reply is unusable
// (unchanged, or shorter when it was cut off). A reply still unusable leaves every member of the
// call's phases to be asked alone; so does a call that failed while the phase still had time,
// and then no later phase of the debate makes a call for the panel either. Only a phase out of
// time is an error for every member, as when each of their own calls fails.
func (v *panelVoice) speak(ctx context.Context, key stageKey, req *toulmin.Request) error {
	phases := stage(req)
	v.mu.Lock()
	if v.failed[key.debate] {
		v.coverLocked(key, phases, alone)
		v.mu.Unlock()
		return nil
	}
	v.mu.Unlock()
	speakers := v.speakers(key, req, phases[0])
	payers := payers{speakers, v.laterOnly(req, phases)}
	msgs, limit, err := v.messages(ctx, req, phases, speakers)
	if err != nil {
		return err
	}
	spent := &toulmin.Turn{}
	var reply *llm.PanelReply
	for attempt := 0; attempt < 2 && reply == nil; attempt++ {
		res := v.client.CompletePanel(ctx, msgs, limit, req.Subject.DebateID)
		spent.Usage.Add(res.Usage)
		for _, n := range res.Notes {
			spent.Notes = append(spent.Notes, "the panel's call: "+n)
		}
		if res.Err != nil {
			return v.failedCall(ctx, key, phases, payers, spent, &res)
		}
		r, perr := llm.ParsePanelReply(res.Content)
		if perr == nil {
			reply = r
			break
		}
		spent.Notes = append(spent.Notes, "the panel's reply was unusable: "+scan.Clip(perr.Error(), 300))
		if res.Finish == "length" {
			msgs = askShorter(msgs, limit)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	how := alone
	if reply != nil {
		how = replied
		v.hold(key, phases, reply, &spent.Notes)
	}
	v.coverLocked(key, phases, how)
	v.billLocked(key, payers, spent)
	return nil
}

// failedCall records a call for the panel that failed: with the phase out of time, an error for
// every member; otherwise each member of its phases is asked alone, and of the debate's later
// phases too unless the failure was transient (a 5xx or a 429 that outlasted the retries: the
// next stage asks the panel again). A refusal or a timeout would come back with the same call.
func (v *panelVoice) failedCall(ctx context.Context, key stageKey, phases []toulmin.PhaseSpec, payers payers, spent *toulmin.Turn, res *llm.Completion) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if ctx.Err() != nil {
		v.billLocked(key, payers, spent)
		return res.Err
	}
	scope := "in this phase and the rest of the debate"
	if res.Transient {
		scope = "in this phase"
	} else {
		v.failed[key.debate] = true
	}
	spent.Notes = append(spent.Notes, "the panel's call failed ("+scan.Clip(res.Err.Error(), 300)+"); each member is asked alone, "+scope)
	v.coverLocked(key, phases, alone)
	v.billLocked(key, payers, spent)
	return nil
}

// coverLocked records how a call covered its phases; the caller holds v.mu.
func (v *panelVoice) coverLocked(key stageKey, phases []toulmin.PhaseSpec, how cover) {
	for _, ph := range phases {
		v.covered[stageKey{key.debate, ph.Kind, key.round}] = how
	}
}

// hold keeps the reply's turns for the phases the call covered; the caller holds v.mu.
func (v *panelVoice) hold(key stageKey, phases []toulmin.PhaseSpec, reply *llm.PanelReply, notes *[]string) {
	for _, t := range reply.Turns {
		m := v.member(t.Agent)
		kind := toulmin.PhaseKind(strings.TrimSpace(t.Phase))
		if m == nil || !slices.ContainsFunc(phases, func(p toulmin.PhaseSpec) bool { return p.Kind == kind }) {
			*notes = append(*notes, fmt.Sprintf("the panel's reply spoke for %q in %q, which this call did not ask for; left out", scan.Clip(t.Agent, 40), scan.Clip(t.Phase, 40)))
			continue
		}
		k := turnKey{stageKey{key.debate, kind, key.round}, m.p.Name}
		if h, ok := v.held[k]; ok {
			// Two turns of one member in one phase: one turn with both's arguments, the later stance.
			h.turn.Arguments = append(h.turn.Arguments, t.Arguments...)
			h.turn.Position, h.turn.Synthesis = t.Position, t.Synthesis
			continue
		}
		v.held[k] = &heldTurn{turn: t}
	}
}

// payers are the members a call is billed to: the speakers of its first phase, and those who
// speak only in a later phase of it (the maintainers, whose synthesis comes with the last round).
type payers struct {
	first, later []*LLMAgent
}

// laterOnly are the members of the panel who take no part in the call's first phase but may
// speak in a later one.
func (v *panelVoice) laterOnly(req *toulmin.Request, phases []toulmin.PhaseSpec) []*LLMAgent {
	var out []*LLMAgent
	for _, p := range req.Participants {
		m := v.members[p.Name]
		if m == nil || takes(phases[0].Takers, p.Role) {
			continue
		}
		if slices.ContainsFunc(phases[1:], func(ph toulmin.PhaseSpec) bool { return takes(ph.Takers, p.Role) }) {
			out = append(out, m)
		}
	}
	return out
}

// billLocked records what a call cost, split evenly among its payers; the caller holds v.mu. The
// speakers of its first phase claim their shares with their turns in the phase the engine is
// running, and each share adds to what the speaker owes already (a member that did not yet claim
// its share of a failed call keeps it when a later member's call of the phase is billed). The
// share of a member who speaks only in a later phase of the call (a maintainer's synthesis after
// the round) is billed now too, under its name (toulmin.Turn.UsageFor of the first speaker's
// turn): held for a phase the debate may never reach in this process (SIGTERM in the middle of
// the round), the record would lose tokens the server billed. The call's notes go with the first
// share, as the phase's notes: they are no member's doing.
func (v *panelVoice) billLocked(key stageKey, pay payers, spent *toulmin.Turn) {
	if len(pay.first) == 0 {
		return
	}
	shares := splitUsage(spent.Usage, len(pay.first)+len(pay.later))
	for i, u := range shares[:len(pay.first)] {
		t := v.owedLocked(turnKey{key, pay.first[i].p.Name})
		t.Usage.Add(u)
		if i == 0 {
			// The phase's notes, not the first speaker's: the call spoke for them all.
			t.PhaseNotes = append(t.PhaseNotes, spent.Notes...)
		}
	}
	first := v.owedLocked(turnKey{key, pay.first[0].p.Name})
	for i, u := range shares[len(pay.first):] {
		spendFor(first, pay.later[i].p.Name, u)
	}
}

// spendFor adds u to what turn's calls spent for the participant name.
func spendFor(turn *toulmin.Turn, name string, u voting.Usage) {
	if turn.UsageFor == nil {
		turn.UsageFor = map[string]voting.Usage{}
	}
	sum := turn.UsageFor[name]
	sum.Add(u)
	turn.UsageFor[name] = sum
}

// owedLocked is what the member owes in the phase, made when it owes nothing yet; the caller
// holds v.mu.
func (v *panelVoice) owedLocked(k turnKey) *toulmin.Turn {
	t := v.owed[k]
	if t == nil {
		t = &toulmin.Turn{}
		v.owed[k] = t
	}
	return t
}

// splitUsage divides u into n shares that add up to it: the calls and what the integer division
// leaves go to the first share.
func splitUsage(u voting.Usage, n int) []voting.Usage {
	if n <= 0 {
		return nil
	}
	out := make([]voting.Usage, n)
	for i := range out {
		out[i] = voting.Usage{Prompt: u.Prompt / int64(n), CachedPrompt: u.CachedPrompt / int64(n), Completion: u.Completion / int64(n), CostUSD: u.CostUSD / float64(n)}
	}
	out[0].Prompt += u.Prompt % int64(n)
	out[0].CachedPrompt += u.CachedPrompt % int64(n)
	out[0].Completion += u.Completion % int64(n)
	out[0].Calls = u.Calls
	return out
}

// member finds a member by abbreviation or name, in any case.
func (v *panelVoice) member(who string) *LLMAgent {
	who = strings.TrimSpace(who)
	for _, m := range v.members {
		if strings.EqualFold(m.p.Abbrev, who) || strings.EqualFold(m.p.Name, who) {
			return m
		}
	}
	return nil
}

// speakers are the members, in the panel's order, that take a turn in the phase: its takers,
// and in a clarification or a response only those with something to answer; not those that took
// their turn already (after a failed call of the phase).
func (v *panelVoice) speakers(key stageKey, req *toulmin.Request, spec toulmin.PhaseSpec) []*LLMAgent {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []*LLMAgent
	for _, p := range req.Participants {
		m := v.members[p.Name]
		if m == nil || !takes(spec.Takers, p.Role) || v.taken[turnKey{key, p.Name}] {
			continue
		}
		self := *req
		self.Self = p
		if mustSpeak(spec.Kind, m.toAnswer(&self)) {
			out = append(out, m)
		}
	}
	return out
}

// takes reports whether a participant of the role takes part in a phase of those takers.
func takes(t toulmin.Takers, role voting.Role) bool {
	switch t {
	case toulmin.TakersAll:
		return true
	case toulmin.TakersStakeholders:
		return !role.IsMaintainer()
	case toulmin.TakersMaintainers:
		return role.IsMaintainer()
	}
	return false
}

// serve turns a held turn into the member's turn, checked as a reply of its own is. unusable is
// set when nothing of a turn that said something survived the check, or its stance did not.
func (v *panelVoice) serve(a *LLMAgent, req *toulmin.Request, h *heldTurn) (turn *toulmin.Turn, problems []string, unusable bool) {
	reply := h.turn.Reply(func(id string) string { return resolveTarget(req, id) })
	turn, problems = reply.Turn(req)
	for i := range turn.Arguments {
		turn.Arguments[i].Template = templateOfArgument(&turn.Arguments[i], req.Self.Name, req.Evidence)
	}
	turn.Notes = append(turn.Notes, h.notes...)
	lost := len(reply.Arguments) > 0 && len(turn.Arguments) == 0
	noStance := turn.Position == nil && req.Phase.Kind != toulmin.PhaseRebuttal && req.Phase.Kind != toulmin.PhaseResponse
	return turn, problems, len(problems) > 0 && (lost || noStance)
}

// resolveTarget is the id a panel turn's argument answers. A response written in the same reply
// as the clarification it answers names the argument that clarification defends: it is
// rewritten to the clarification of this round that targets it.
func resolveTarget(req *toulmin.Request, id string) string {
	if req.Phase.Kind != toulmin.PhaseResponse || req.Transcript == nil {
		return id
	}
	if a, ok := req.Transcript.Argument(id); ok && a.Phase == toulmin.PhaseClarification {
		return id
	}
	for _, c := range req.Transcript.AnswersFor(req.Self.Name, req.Round) {
		if c.Target == id {
			return c.ID
		}
	}
	return id
}

// stagePhase is one phase of a panel call as its message lists it.
type stagePhase struct {
	Kind       toulmin.PhaseKind
	Speakers   string
	TokenLimit int
}

// messages is the panel call's prompt: the prefix every call of the debate shares (the rules,
// the change, the panel, the earlier phases in brief), then the phases this call covers and who
// speaks in each; and the reply's token limit, every speaker's limit in every phase added up.
func (v *panelVoice) messages(ctx context.Context, req *toulmin.Request, phases []toulmin.PhaseSpec, speakers []*LLMAgent) ([]openai.ChatCompletionMessageParamUnion, int, error) {
	msgs, err := v.shared.prefix(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	limit := 0
	var list []stagePhase
	for i, ph := range phases {
		who, n := v.whoSpeaks(req, ph, speakers, i == 0)
		list = append(list, stagePhase{Kind: ph.Kind, Speakers: who, TokenLimit: ph.TokenLimit})
		limit += ph.TokenLimit * max(n, 1)
	}
	var answer []toulmin.Argument
	for _, a := range req.Arguments {
		if a.Round == req.Round && ((phases[0].Kind == toulmin.PhaseClarification && a.Phase == toulmin.PhaseRebuttal) ||
			(phases[0].Kind == toulmin.PhaseResponse && a.Phase == toulmin.PhaseClarification)) {
			answer = append(answer, a)
		}
	}
	full := ""
	if len(answer) > 0 {
		if full, err = renderPrompt(v.shared.prompts.arguments, untrustedArguments(answer)); err != nil {
			return nil, 0, err
		}
	}
	text, err := renderPrompt(v.shared.prompts.stage, map[string]any{
		"Phases": list, "Round": req.Round, "Answer": strings.TrimSpace(full), "Guidance": untrusted(req.Guidance),
	})
	if err != nil {
		return nil, 0, err
	}
	return append(msgs, openai.UserMessage(text)), limit, nil
}

// whoSpeaks names who speaks in a phase of the call, and how many at most: in its first phase
// the speakers; in a later one, which depends on this reply, who may.
func (v *panelVoice) whoSpeaks(req *toulmin.Request, ph toulmin.PhaseSpec, first []*LLMAgent, isFirst bool) (string, int) {
	var names []string
	if isFirst {
		for _, m := range first {
			names = append(names, m.p.Abbrev)
		}
		return strings.Join(names, ", "), len(names)
	}
	for _, p := range req.Participants {
		if v.members[p.Name] != nil && takes(ph.Takers, p.Role) {
			names = append(names, p.Abbrev)
		}
	}
	switch ph.Kind {
	case toulmin.PhaseClarification:
		return "those of " + strings.Join(names, ", ") + " rebutted above", len(names)
	case toulmin.PhaseResponse:
		return "those of " + strings.Join(names, ", ") + " answered partial or reject above", len(names)
	}
	return strings.Join(names, ", "), len(names)
}
