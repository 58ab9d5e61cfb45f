package toulmin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/debatebot/debatebot/voting"
)

// Tests of the protocol of issue 10 through the engine's API with scripted agents: moderation,
// repetition, the round judgements, the confrontation's answers, the scoring matrix, the fast
// exit, depth and the steelman criterion.

// confronting argues one concern in the opening, rebuts every other opening (with a steelman),
// answers rebuttals of its own concern with answer (and limit), and responds to answers of its
// rebuttals with response; it votes vote throughout.
func confronting(vote voting.Option, answer Answer, response Answer) func(ctx context.Context, req *Request) (*Turn, error) {
	return func(_ context.Context, req *Request) (*Turn, error) {
		pos := &Position{Vote: vote, Confidence: 0.8, Reason: "holds " + string(vote)}
		switch req.Phase.Kind {
		case PhaseOpening:
			a := good()
			a.Severity = voting.SeverityHigh
			return &Turn{Arguments: []Argument{a}, Position: pos}, nil
		case PhaseRebuttal:
			var out []Argument
			for _, a := range req.Arguments {
				if a.Phase == PhaseOpening && a.Agent != req.Self.Name && req.Round == 1 {
					out = append(out, rebuttalOf(a.ID, 1))
				}
			}
			return &Turn{Arguments: out}, nil
		case PhaseClarification:
			var out []Argument
			for _, reb := range req.Arguments {
				if reb.Phase != PhaseRebuttal || reb.Round != req.Round {
					continue
				}
				if target, ok := req.Transcript.Argument(reb.Target); ok && target.Agent == req.Self.Name {
					c := Argument{Target: target.ID, Answer: answer, Claim: "answer to " + reb.ID, Qualifier: Qualifier{Confidence: 0.8}, Warrant: "the query is built from a request value"}
					if answer == AnswerPartial {
						c.Limit = "the escaping covers names, not ids"
					}
					out = append(out, c)
				}
			}
			return &Turn{Arguments: out, Position: pos}, nil
		case PhaseResponse:
			var out []Argument
			for _, ans := range req.Transcript.AnswersFor(req.Self.Name, req.Round) {
				out = append(out, Argument{Target: ans.ID, Answer: response, Claim: "response to " + ans.ID, Qualifier: Qualifier{Confidence: 0.8}})
			}
			return &Turn{Arguments: out}, nil
		case PhaseFinal:
			return &Turn{Position: pos}, nil
		}
		return &Turn{}, nil
	}
}

func runWith(t *testing.T, p Protocol, agents []Agent, opts ...Option) *Transcript {
	t.Helper()
	e, err := NewEngine(p, agents, append([]Option{WithClock(fixedClock())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestConfrontationOutcomes(t *testing.T) {
	tests := map[string]struct {
		answer, response Answer
		agreed           bool
		state, winner    string
		escalated        bool
	}{
		"accepted rebuttal":       {AnswerAccept, AnswerMaintain, true, "conceded", "b", false},
		"partial, limit accepted": {AnswerPartial, AnswerAccept, true, "accepted within its limit", "a", false},
		"rejection accepted":      {AnswerReject, AnswerAccept, true, "rejection accepted", "a", false},
		"rejection maintained":    {AnswerReject, AnswerMaintain, false, "maintained by both sides", "a", false},
		"rejection escalated":     {AnswerReject, AnswerEscalate, false, "escalated", "a", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			// a's concern is rebutted by b; b's own concern is rebutted by a and always accepted.
			a := stakeholder("a", "A", confronting(voting.RequestChanges, tc.answer, AnswerAccept))
			b := stakeholder("b", "B", confronting(voting.RequestChanges, AnswerAccept, tc.response))
			tr := runWith(t, Standard(), []Agent{a, b})
			var p Point
			for _, x := range tr.Points {
				if x.Target == "A-1" {
					p = x
				}
			}
			if p.Target == "" {
				t.Fatalf("points = %+v, want one on A-1", tr.Points)
			}
			if p.Agreed != tc.agreed || p.State != tc.state || p.Winner != tc.winner || p.Escalated != tc.escalated {
				t.Errorf("A-1 point = agreed %v state %q winner %q escalated %v; want %v %q %q %v", p.Agreed, p.State, p.Winner, p.Escalated, tc.agreed, tc.state, tc.winner, tc.escalated)
			}
			escalated := false
			for _, e := range tr.Escalations {
				escalated = escalated || (e.Reason == voting.ReasonDisputeEscalated && strings.Contains(e.Detail, "A-1"))
			}
			if escalated != tc.escalated {
				t.Errorf("escalations %+v: a dispute escalation = %v, want %v", tr.Escalations, escalated, tc.escalated)
			}
			// An accepted rebuttal is answered by no response.
			for _, r := range tr.ArgumentsIn(PhaseResponse) {
				if ans, _ := tr.Argument(r.Target); ans.Answer == AnswerAccept {
					t.Errorf("%s responds to an accepted rebuttal %s", r.ID, ans.ID)
				}
			}
			if len(tr.Record.ScoringMatrix) != len(tr.Points) {
				t.Errorf("the record has %d rows for %d points", len(tr.Record.ScoringMatrix), len(tr.Points))
			}
		})
	}
}

func TestPartialAnswerNeedsItsLimit(t *testing.T) {
	a := Argument{ID: "X-2", Agent: "x", Phase: PhaseClarification, Target: "X-1", Claim: "c", Answer: AnswerPartial}
	a.Normalize()
	if err := a.Validate(); err == nil || !strings.Contains(err.Error(), "limit: a partial answer must say where what it accepts ends") {
		t.Errorf("Validate = %v", err)
	}
	if a.Resolution != Maintained {
		t.Errorf("a partial answer maintains the argument, got %q", a.Resolution)
	}
	r := Argument{ID: "Y-2", Agent: "y", Phase: PhaseResponse, Target: "X-2", Claim: "c", Answer: AnswerReject}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), `a response answers with "accept", "maintain" or "escalate", got "reject"`) {
		t.Errorf("Validate = %v", err)
	}
	c := Argument{ID: "X-3", Agent: "x", Phase: PhaseClarification, Target: "X-1", Claim: "c", Resolution: Conceded}
	c.Normalize()
	if c.Answer != AnswerAccept || c.Validate() != nil {
		t.Errorf("a conceding clarification is an accepting answer: %q %v", c.Answer, c.Validate())
	}
}

func TestSteelmanIsAQualityPoint(t *testing.T) {
	r := rebuttalOf("B-1", 1)
	r.ID, r.Agent, r.Phase = "A-2", "a", PhaseRebuttal
	with := Score(&r, change)
	r.Steelman = ""
	without := Score(&r, change)
	if len(with.Checks) != 6 || !with.Passed(Steelmanned) || without.Passed(Steelmanned) || with.Points() != without.Points()+1 {
		t.Errorf("with a steelman %d/%d, without %d/%d", with.Points(), len(with.Checks), without.Points(), len(without.Checks))
	}
	opening := good()
	if q := Score(&opening, change); len(q.Checks) != 5 {
		t.Errorf("an opening is scored on %d criteria, want seed 004's five", len(q.Checks))
	}
}

func TestRepeatedArgumentsAreNotNewGround(t *testing.T) {
	// Both agents rebut in every round with the same words: round 2 repeats round 1 and the
	// moderator judges it stagnating, though the loop allows three rounds.
	same := func(ctx context.Context, req *Request) (*Turn, error) {
		if req.Phase.Kind != PhaseRebuttal {
			return opener(voting.RequestChanges)(ctx, req)
		}
		for _, a := range req.Arguments {
			if a.Phase == PhaseOpening && a.Agent != req.Self.Name {
				return &Turn{Arguments: []Argument{rebuttalOf(a.ID, 1)}}, nil
			}
		}
		return &Turn{}, nil
	}
	p := Standard()
	p.Loop.MaxRounds = 3
	tr := runWith(t, p, []Agent{stakeholder("a", "A", same), stakeholder("b", "B", same)})
	if tr.Rounds != 2 || !strings.Contains(tr.ExitReason, "round 2 added no new argument (2 repeated earlier text: A-3, B-3)") {
		t.Errorf("rounds %d, exit %q: want stagnation after round 2 with both rebuttals flagged", tr.Rounds, tr.ExitReason)
	}
	for _, a := range tr.ArgumentsIn(PhaseRebuttal) {
		flagged := a.Repeats != nil
		if flagged != (a.Round == 2) || (flagged && (a.Repeats.Share != 1 || a.Repeats.Of[:1] != a.ID[:1])) {
			t.Errorf("%s (round %d) repeats = %+v", a.ID, a.Round, a.Repeats)
		}
	}
	if len(tr.Judgements) != 2 || tr.Judgements[0].Verdict != VerdictNewGround || tr.Judgements[1].Verdict != VerdictStagnating || tr.Judgements[1].New != 0 {
		t.Errorf("judgements = %+v", tr.Judgements)
	}
}

func TestClearWinnerEndsTheRounds(t *testing.T) {
	// Four stakeholders request changes (one senior); the fifth approves, and when its concern
	// is rebutted it concedes and moves to approve with changes. The round settled its one
	// dispute for the challengers and request_changes holds 82% of the weighted stances: a clear
	// winner, though the stances still differ (convergence 0.50) and the loop allows three rounds.
	strong := func(ctx context.Context, req *Request) (*Turn, error) {
		turn, err := confronting(voting.RequestChanges, AnswerAccept, AnswerAccept)(ctx, req)
		if req.Phase.Kind == PhaseRebuttal {
			turn.Arguments = nil // they do not dispute each other
		}
		return turn, err
	}
	weak := func(ctx context.Context, req *Request) (*Turn, error) {
		if req.Phase.Kind == PhaseOpening {
			return &Turn{Arguments: []Argument{good()}, Position: &Position{Vote: voting.Approve, Confidence: 0.6, Reason: "fine"}}, nil
		}
		if req.Phase.Kind == PhaseClarification {
			for _, reb := range req.Arguments {
				if reb.Phase == PhaseRebuttal && strings.HasPrefix(reb.Target, "W-") {
					return &Turn{Arguments: []Argument{{Target: reb.Target, Answer: AnswerAccept, Claim: "conceded", Qualifier: Qualifier{Confidence: 0.8}}},
						Position: &Position{Vote: voting.ApproveWithChanges, Confidence: 0.7, Reason: "conceded to " + reb.ID}}, nil
				}
			}
		}
		return &Turn{}, nil
	}
	rebutter := func(ctx context.Context, req *Request) (*Turn, error) {
		if req.Phase.Kind == PhaseRebuttal {
			return &Turn{Arguments: []Argument{rebuttalOf("W-1", 1)}}, nil
		}
		return strong(ctx, req)
	}
	p := Standard()
	p.Loop.MaxRounds = 3
	senior := stakeholder("a", "A", rebutter)
	senior.p.Trust = 1.3
	tr := runWith(t, p, []Agent{senior, stakeholder("b", "B", strong), stakeholder("c", "C", strong), stakeholder("d", "D", strong), stakeholder("w", "W", weak)})
	if tr.Rounds != 1 || !strings.HasPrefix(tr.ExitReason, "a clear winner after round 1: request_changes holds 82% of the weighted stances") {
		t.Errorf("rounds %d, exit %q, judgements %+v", tr.Rounds, tr.ExitReason, tr.Judgements)
	}
	if j := tr.Judgements[0]; j.Verdict != VerdictClearWinner || j.Convergence != 0.5 {
		t.Errorf("judgement = %+v", j)
	}
	// The weak agent's change of stance is kept with its reason.
	var changed *Stance
	for i := range tr.Stances {
		if tr.Stances[i].Agent == "w" && tr.Stances[i].Changed {
			changed = &tr.Stances[i]
		}
	}
	if changed == nil || changed.From != voting.Approve || changed.Position.Vote != voting.ApproveWithChanges || changed.Position.Reason != "conceded to A-2" {
		t.Errorf("position history of w = %+v", changed)
	}
}

// chooser is a moderator that seats the named stakeholders and counts its calls.
type chooser struct {
	names []string
	err   error
	calls atomic.Int32
}

func (c *chooser) Seat(_ context.Context, req *SeatRequest) (*Panel, error) {
	c.calls.Add(1)
	if c.err != nil {
		return nil, c.err
	}
	p := &Panel{Method: "test", Usage: voting.Usage{Prompt: 50, Completion: 5, Calls: 1}}
	for _, n := range c.names {
		p.Seated = append(p.Seated, voting.Seat{Agent: n, Reason: "chosen"})
	}
	return p, nil
}

func TestModeratorSeatsThePanel(t *testing.T) {
	var unseated atomic.Int32
	agents := func() []Agent {
		return []Agent{
			stakeholder("a", "A", opener(voting.RequestChanges)),
			stakeholder("b", "B", opener(voting.Approve)),
			stakeholder("c", "C", func(context.Context, *Request) (*Turn, error) { unseated.Add(1); return &Turn{}, nil }),
			maintainer("core", "CM", voting.RoleCoreMaintainer, voting.RequestChanges),
		}
	}
	m := &chooser{names: []string{"a", "b"}}
	tr := runWith(t, Standard(), agents(), WithModerator(m))
	if unseated.Load() != 0 || len(tr.Participants) != 3 || tr.Panel == nil || strings.Join(tr.Panel.Names(), ",") != "a,b" {
		t.Errorf("c was asked %d times; participants %+v", unseated.Load(), tr.Participants)
	}
	if tr.UsageByAgent[ModeratorName].Calls != 1 || tr.Timeline[1].ByAgent[ModeratorName].Prompt != 50 || tr.Record.Tokens.Prompt < 50 {
		t.Errorf("the moderator's call is not counted in the opening phase: %+v", tr.UsageByAgent)
	}
	if len(tr.Record.Perspectives) != 2 || tr.Record.Perspectives[0].Reason != "chosen" {
		t.Errorf("record perspectives = %+v", tr.Record.Perspectives)
	}

	for name, bad := range map[string]*chooser{
		"one seat":      {names: []string{"a"}},
		"unknown name":  {names: []string{"a", "zed"}},
		"a maintainer":  {names: []string{"a", "core"}},
		"the call fail": {err: errors.New("model down")},
	} {
		t.Run(name, func(t *testing.T) {
			unseated.Store(0)
			tr := runWith(t, Standard(), agents(), WithModerator(bad))
			if len(tr.Participants) != 4 || unseated.Load() == 0 || !strings.Contains(strings.Join(tr.Timeline[1].Notes, "\n"), "the moderator could not choose") {
				t.Errorf("a bad choice must seat everyone, with a note: %d participants, notes %v", len(tr.Participants), tr.Timeline[1].Notes)
			}
		})
	}
}

func TestResumeKeepsThePanel(t *testing.T) {
	var saved *Transcript
	m := &chooser{names: []string{"a", "b"}}
	agents := []Agent{stakeholder("a", "A", opener(voting.RequestChanges)), stakeholder("b", "B", opener(voting.Approve)), stakeholder("c", "C", opener(voting.Approve))}
	e, _ := NewEngine(Standard(), agents, WithClock(fixedClock()), WithModerator(m), WithCheckpoint(func(_ context.Context, tr *Transcript) error {
		if tr.Timeline[len(tr.Timeline)-1].Phase == PhaseOpening {
			saved = copyTranscript(t, tr)
		}
		return nil
	}))
	want, err := e.Run(context.Background(), subject())
	if err != nil || saved == nil {
		t.Fatal(err)
	}
	e2, _ := NewEngine(Standard(), agents, WithClock(fixedClock()), WithModerator(m))
	got, err := e2.Resume(context.Background(), subject(), saved)
	if err != nil {
		t.Fatal(err)
	}
	if m.calls.Load() != 1 || len(got.Participants) != 2 || len(got.Arguments) != len(want.Arguments) {
		t.Errorf("moderator asked %d times; resumed with %d participants and %d arguments (uninterrupted %d)", m.calls.Load(), len(got.Participants), len(got.Arguments), len(want.Arguments))
	}
}

func TestFastExitNeedsSubstantiveAgreement(t *testing.T) {
	quiet := func(engaged []string) func(context.Context, *Request) (*Turn, error) {
		return func(_ context.Context, req *Request) (*Turn, error) {
			if req.Phase.Kind == PhaseOpening {
				return &Turn{Position: &Position{Vote: voting.Approve, Confidence: 0.7, Reason: "nothing", Engaged: engaged}}, nil
			}
			return &Turn{}, nil
		}
	}
	low := func(_ context.Context, req *Request) (*Turn, error) {
		if req.Phase.Kind == PhaseOpening {
			a := good()
			a.Severity, a.Actions = voting.SeverityLow, []Action{{Text: "rename it"}}
			return &Turn{Arguments: []Argument{a}, Position: &Position{Vote: voting.Approve, Confidence: 0.7}}, nil
		}
		return &Turn{}, nil
	}
	tests := map[string]struct {
		agents []Agent
		taken  bool
		noted  string
	}{
		"substantive agreement": {[]Agent{stakeholder("a", "A", quiet([]string{"db/user.go"})), stakeholder("b", "B", low)}, true, "fast exit: all 2 stakeholders agree"},
		"an agreement engaging nothing": {[]Agent{stakeholder("a", "A", quiet(nil)), stakeholder("b", "B", low)}, false,
			"no fast exit: the 2 stakeholders agree (approve) and nothing above low stands, but 1 agreement(s)"},
		"one perspective is no agreement": {[]Agent{stakeholder("a", "A", quiet([]string{"x"}))}, false, ""},
		"a required change stands":        {[]Agent{stakeholder("a", "A", quiet([]string{"x"})), stakeholder("b", "B", opener(voting.Approve))}, false, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tr := runWith(t, Standard(), tc.agents)
			taken := tr.FastExit != nil && tr.FastExit.Taken
			if taken != tc.taken || (taken && len(tr.Timeline) != 3) {
				t.Errorf("fast exit %+v with %d phases, want taken = %v", tr.FastExit, len(tr.Timeline), tc.taken)
			}
			if notes := strings.Join(tr.Timeline[1].Notes, "\n"); (tc.noted == "") != !strings.Contains(notes, "ast exit") || !strings.Contains(notes, tc.noted) {
				t.Errorf("opening notes %q, want %q", notes, tc.noted)
			}
		})
	}
}

func TestWithDepth(t *testing.T) {
	quick, err := Standard().WithDepth(DepthQuick, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, p := range quick.Phases {
		kinds = append(kinds, string(p.Kind))
	}
	if strings.Join(kinds, ",") != "evidence_gathering,opening_arguments,synthesis,decision" || quick.Loop != nil || quick.Depth != DepthQuick {
		t.Errorf("quick = %s, loop %v", strings.Join(kinds, ","), quick.Loop)
	}
	ext := Extended()
	ext.Loop.ExitWhen = []ExitRule{ExitStagnation}
	deep, _ := ext.WithDepth(DepthDeep, 0)
	if deep.Loop.MaxRounds != 2 || !containsRule(deep.Loop.ExitWhen, ExitConverged) || containsRule(ext.Loop.ExitWhen, ExitConverged) {
		t.Errorf("deep loop = %+v (the protocol it came from: %+v)", deep.Loop, ext.Loop)
	}
	capped, _ := Standard().WithDepth(DepthDeep, 1)
	if capped.Loop.MaxRounds != 1 || Standard().Loop.MaxRounds != 1 {
		t.Errorf("max_rounds caps deep: %d", capped.Loop.MaxRounds)
	}
	fast, _ := FastTrack().WithDepth(DepthDeep, 0)
	if len(fast.Phases) != 3 || fast.Depth != "" {
		t.Errorf("fast-track has no rounds to deepen: %+v", fast)
	}
	if _, err := Standard().WithDepth("shallow", 0); err == nil || !strings.Contains(err.Error(), `unknown depth "shallow"`) {
		t.Errorf("WithDepth(shallow) = %v", err)
	}
	if DepthQuick.DebateRounds() != 1 || DepthStandard.DebateRounds() != 2 || DepthDeep.DebateRounds() != 3 {
		t.Error("quick, standard and deep are 1, 2 and up to 3 rounds")
	}
}

func containsRule(rules []ExitRule, r ExitRule) bool {
	for _, x := range rules {
		if x == r {
			return true
		}
	}
	return false
}

// A request names the phases that follow it as far as the debate surely runs them: the rest of
// a round, and what comes after the loop only in its last round.
func TestRequestAheadStopsAtTheRoundThatMayRepeat(t *testing.T) {
	p := Standard()
	p.Loop.MaxRounds, p.Loop.ExitWhen, p.FastExit = 2, nil, false
	var mu sync.Mutex
	seen := map[string]string{}
	record := func(take func(context.Context, *Request) (*Turn, error)) func(context.Context, *Request) (*Turn, error) {
		return func(ctx context.Context, req *Request) (*Turn, error) {
			var kinds []string
			for _, ph := range req.Ahead {
				kinds = append(kinds, string(ph.Kind))
			}
			mu.Lock()
			seen[fmt.Sprintf("%s/%d", req.Phase.Kind, req.Round)] = strings.Join(kinds, " ")
			mu.Unlock()
			return take(ctx, req)
		}
	}
	e, err := NewEngine(p, []Agent{
		stakeholder("security", "SS", record(opener(voting.RequestChanges))),
		stakeholder("performance", "PS", record(opener(voting.Approve))),
		maintainer("core", "CM", voting.RoleCoreMaintainer, voting.ApproveWithChanges),
	}, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), subject()); err != nil {
		t.Fatal(err)
	}
	for phase, want := range map[string]string{
		"opening_arguments/1": "rebuttal clarification response final_arguments synthesis",
		"rebuttal/1":          "clarification response",
		"rebuttal/2":          "clarification response final_arguments synthesis",
		"final_arguments/2":   "synthesis",
	} {
		if got, ok := seen[phase]; !ok || got != want {
			t.Errorf("%s: ahead %q (asked: %v), want %q", phase, got, ok, want)
		}
	}
}
