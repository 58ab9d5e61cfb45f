package toulmin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/debatebot/debatebot/voting"
)

// index is a ChangeIndex over a fixed set of path -> lines.
type index map[string]map[int]bool

func (x index) HasPath(p string) bool        { _, ok := x[p]; return ok }
func (x index) HasLine(p string, l int) bool { return x[p][l] }
func (x index) Empty() bool                  { return len(x) == 0 }

var change = index{"db/user.go": {10: true, 11: true, 12: true}, "api/h.go": {3: true}}

func good() Argument {
	return Argument{
		ID: "SS-1", Agent: "security", Phase: PhaseOpening,
		Claim:     "User input reaches a SQL query unescaped",
		Grounds:   []Ground{{Path: "db/user.go", Line: 12, Text: "query built with fmt.Sprintf from name"}},
		Warrant:   "Unvalidated input in SQL queries enables injection attacks",
		Backing:   []Backing{{Reference: "OWASP Top 10 - A03:2021 Injection"}},
		Qualifier: Qualifier{Confidence: 0.9},
		Actions:   []Action{{Text: "use a parameterised query", Path: "db/user.go", Line: 12, Required: true}},
	}
}

func TestValidate(t *testing.T) {
	tests := map[string]struct {
		edit func(*Argument)
		want string // substring of the error; "" for valid
	}{
		"valid":                    {func(*Argument) {}, ""},
		"empty claim":              {func(a *Argument) { a.Claim = " " }, `argument "SS-1": claim: must not be empty`},
		"line without path":        {func(a *Argument) { a.Grounds[0].Path = "" }, "grounds[0].path: a line (12) is given without a path"},
		"negative line":            {func(a *Argument) { a.Grounds[0].Line = -3 }, "grounds[0].line: must be 0 (the whole file) or a line number"},
		"confidence above one":     {func(a *Argument) { a.Qualifier.Confidence = 1.5 }, "qualifier.confidence: must be between 0 and 1, got 1.5"},
		"opening without warrant":  {func(a *Argument) { a.Warrant = "" }, "warrant: must not be empty in a opening_arguments argument"},
		"rebuttal without target":  {func(a *Argument) { a.Phase = PhaseRebuttal }, "target: a rebuttal must name the argument it answers"},
		"clarification resolution": {func(a *Argument) { a.Phase, a.Target = PhaseClarification, "PS-1" }, `resolution: must be "maintained" or "conceded"`},
		"unknown severity":         {func(a *Argument) { a.Severity = "urgent" }, `severity: unknown severity "urgent"`},
		"empty backing":            {func(a *Argument) { a.Backing = []Backing{{}} }, "backing[0]: needs a reference or evidence"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			a := good()
			tc.edit(&a)
			err := a.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestScore(t *testing.T) {
	tests := map[string]struct {
		edit     func(*Argument)
		idx      ChangeIndex
		failed   []Criterion
		badCites []string
	}{
		"all five pass": {func(*Argument) {}, change, nil, nil},
		"citation of a line not in the change": {func(a *Argument) {
			a.Grounds = append(a.Grounds, Ground{Path: "db/user.go", Line: 99, Text: "x"})
		}, change, []Criterion{EvidenceBased}, []string{"db/user.go:99"}},
		"citation of a file not in the change": {func(a *Argument) { a.Grounds[0].Path = "other.go" },
			change, []Criterion{EvidenceBased, Scoped}, []string{"other.go:12"}},
		"file-level citation of a file in the change": {func(a *Argument) {
			a.Grounds = []Ground{{Path: "db/user.go", Text: "changed with no test"}}
		}, change, nil, nil},
		"file-level citation of a file outside the change": {func(a *Argument) {
			a.Grounds = []Ground{{Path: "other.go", Text: "changed with no test"}}
		}, change, []Criterion{EvidenceBased, Scoped}, []string{"other.go"}},
		"no grounds at all": {func(a *Argument) { a.Grounds = nil }, change, []Criterion{Specific, EvidenceBased, Scoped}, nil},
		"nothing proposed":  {func(a *Argument) { a.Actions = nil }, change, []Criterion{Actionable}, nil},
		"a preference":      {func(a *Argument) { a.Claim = "I don't like this query style" }, change, []Criterion{Objective}, nil},
		"design question with backing": {func(a *Argument) {
			a.Grounds = []Ground{{Text: "the cache is read 100x more than written"}}
		}, index{}, nil, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			a := good()
			tc.edit(&a)
			q := Score(&a, tc.idx)
			var failed []Criterion
			for _, c := range q.Checks {
				if c.Reason == "" {
					t.Errorf("%s has no reason", c.Criterion)
				}
				if !c.Passed {
					failed = append(failed, c.Criterion)
				}
			}
			if strings.Join(critNames(failed), ",") != strings.Join(critNames(tc.failed), ",") {
				t.Errorf("failed = %v, want %v (checks %+v)", failed, tc.failed, q.Checks)
			}
			if strings.Join(q.BadCitations, ",") != strings.Join(tc.badCites, ",") {
				t.Errorf("bad citations = %v, want %v", q.BadCitations, tc.badCites)
			}
			want := float64(5-len(tc.failed)) / 5
			if q.Score != want {
				t.Errorf("score = %g, want %g", q.Score, want)
			}
		})
	}
}

func critNames(cs []Criterion) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

// scripted is an agent whose turns are given by a function.
type scripted struct {
	p    Participant
	take func(ctx context.Context, req *Request) (*Turn, error)
}

func (s *scripted) Participant() Participant { return s.p }
func (s *scripted) Take(ctx context.Context, req *Request) (*Turn, error) {
	return s.take(ctx, req)
}

func stakeholder(name, abbrev string, take func(ctx context.Context, req *Request) (*Turn, error)) *scripted {
	return &scripted{p: Participant{Name: name, Title: name, Abbrev: abbrev, Role: voting.RoleStakeholder, Trust: 1}, take: take}
}

func maintainer(name, abbrev string, role voting.Role, vote voting.Option) *scripted {
	return &scripted{p: Participant{Name: name, Title: name, Abbrev: abbrev, Role: role}, take: func(_ context.Context, req *Request) (*Turn, error) {
		a := good()
		a.Synthesis = &Synthesis{Resolution: "ok"}
		return &Turn{Arguments: []Argument{a}, Position: &Position{Vote: vote, Confidence: 0.8, Reason: "synthesis"}}, nil
	}}
}

func fixedClock() func() time.Time {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var n atomic.Int64
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Second) }
}

func subject() *Subject {
	return &Subject{DebateID: "deb-test", Title: "t", Trigger: "cli", Index: change,
		Gather: func(context.Context) ([]Evidence, error) {
			return []Evidence{{ID: "E1", Path: "db/user.go", Line: 12}}, nil
		}}
}

// opener argues one concern in opening, rebuts the other agents' openings, and votes vote.
func opener(vote voting.Option) func(ctx context.Context, req *Request) (*Turn, error) {
	return func(_ context.Context, req *Request) (*Turn, error) {
		switch req.Phase.Kind {
		case PhaseOpening:
			return &Turn{Arguments: []Argument{good()}, Position: &Position{Vote: vote, Confidence: 0.9}, Usage: voting.Usage{Prompt: 100, Completion: 10}}, nil
		case PhaseRebuttal:
			var out []Argument
			for _, a := range req.Arguments {
				if a.Phase == PhaseOpening && a.Agent != req.Self.Name {
					out = append(out, rebuttalOf(a.ID, req.Round), rebuttalOf(a.ID, req.Round), rebuttalOf(a.ID, req.Round)) // one more than allowed
				}
			}
			return &Turn{Arguments: out}, nil
		case PhaseFinal:
			return &Turn{Position: &Position{Vote: vote, Confidence: 0.9, Reason: "final " + string(vote)}}, nil
		}
		return &Turn{}, nil
	}
}

// rebuttalOf disputes target with what is new in each round, as an agent that brings new ground
// would.
func rebuttalOf(target string, round int) Argument {
	words := []string{"the caller escapes name first", "a prepared statement wraps it later", "the input is an integer id by then"}
	return Argument{
		Target:    target,
		Steelman:  "at its strongest, " + target + " holds that name reaches SQL unescaped",
		Claim:     fmt.Sprintf("%s does not hold: %s", target, words[(round-1)%len(words)]),
		Grounds:   []Ground{{Path: "api/h.go", Line: 3, Text: words[(round-1)%len(words)]}},
		Warrant:   fmt.Sprintf("round %d evidence: %s", round, words[(round-1)%len(words)]),
		Qualifier: Qualifier{Confidence: 0.7},
	}
}

func TestEngineOpeningsRunConcurrently(t *testing.T) {
	// Each agent waits until all three have started their opening: a sequential engine would
	// never get past the first one.
	var started sync.WaitGroup
	started.Add(3)
	barrier := func(ctx context.Context, req *Request) (*Turn, error) {
		if req.Phase.Kind == PhaseOpening {
			started.Done()
			done := make(chan struct{})
			go func() { started.Wait(); close(done) }()
			select {
			case <-done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return opener(voting.Approve)(ctx, req)
	}
	p := Standard()
	p.Phases[1].Timeout = 2 * time.Second
	e, err := NewEngine(p, []Agent{stakeholder("a", "A", barrier), stakeholder("b", "B", barrier), stakeholder("c", "C", barrier)}, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(tr.ArgumentsIn(PhaseOpening)); got != 3 {
		t.Fatalf("opening arguments = %d, want 3 (notes: %v)", got, tr.Timeline[1].Notes)
	}
}

func TestEngineRebuttalsSeeOpeningsAndAreBounded(t *testing.T) {
	e, err := NewEngine(Standard(), []Agent{
		stakeholder("a", "A", opener(voting.RequestChanges)),
		stakeholder("b", "B", opener(voting.RequestChanges)),
		stakeholder("c", "C", opener(voting.Approve)),
	}, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	reb := tr.ArgumentsIn(PhaseRebuttal)
	// Each agent saw two other openings and wrote three rebuttals each: capped at two per agent.
	if len(reb) != 6 {
		t.Fatalf("rebuttals = %d, want 6 (2 per agent)", len(reb))
	}
	for _, r := range reb {
		target, ok := tr.Argument(r.Target)
		if !ok || target.Phase != PhaseOpening || target.Agent == r.Agent {
			t.Errorf("rebuttal %s targets %q: want another agent's opening", r.ID, r.Target)
		}
	}
	if !strings.Contains(strings.Join(tr.Timeline[2].Notes, "\n"), "only 2 rebuttal arguments are allowed") {
		t.Errorf("rebuttal phase notes %v do not say rebuttals were dropped", tr.Timeline[2].Notes)
	}
	// 2 of 3 equal weights is 0.67: consensus for request_changes; the approver dissents.
	rec := tr.Record
	if rec.Decision != voting.RequestChanges || rec.ConsensusLevel != voting.LevelConsensus || rec.ConsensusScore != 0.67 {
		t.Errorf("decision %s %s %.2f, want request_changes consensus 0.67", rec.Decision, rec.ConsensusLevel, rec.ConsensusScore)
	}
	if len(rec.DissentingOpinions) != 1 || rec.DissentingOpinions[0].Agent != "c" || rec.DissentingOpinions[0].Concern != "votes approve: final approve" {
		t.Errorf("dissent = %+v, want agent c", rec.DissentingOpinions)
	}
	if rec.Tokens.Prompt != 300 || rec.Tokens.Completion != 30 {
		t.Errorf("tokens = %+v, want 300/30", rec.Tokens)
	}
	if len(rec.RequiredChanges) != 1 || rec.RequiredChanges[0] != "db/user.go:12: use a parameterised query" {
		t.Errorf("required changes = %v", rec.RequiredChanges)
	}
}

func TestEngineLeavesOutFailingAgent(t *testing.T) {
	failing := stakeholder("flaky", "F", func(context.Context, *Request) (*Turn, error) {
		return nil, errors.New("model returned invalid JSON")
	})
	panicking := stakeholder("panicky", "P", func(context.Context, *Request) (*Turn, error) { panic("boom") })
	e, err := NewEngine(Standard(), []Agent{failing, panicking, stakeholder("ok", "O", opener(voting.Approve))}, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(tr.Timeline[1].Notes, "\n")
	if !strings.Contains(notes, "flaky was left out of this phase: model returned invalid JSON") || !strings.Contains(notes, "panicky was left out of this phase: agent panicked: boom") {
		t.Errorf("opening notes = %q", notes)
	}
	if tr.Record.Decision != voting.Approve {
		t.Errorf("decision = %s, want approve from the one working agent", tr.Record.Decision)
	}
}

func TestEnginePhaseWhereEveryAgentFailsEscalates(t *testing.T) {
	var calls atomic.Int32
	bad := func(ctx context.Context, req *Request) (*Turn, error) {
		calls.Add(1)
		return nil, errors.New("503 from model")
	}
	e, err := NewEngine(Standard(), []Agent{stakeholder("a", "A", bad), stakeholder("b", "B", bad)}, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Record.Decision != voting.Escalate || tr.Escalations[0].Reason != voting.ReasonPhaseFailed {
		t.Fatalf("decision %s escalations %+v, want escalate for a failed phase", tr.Record.Decision, tr.Escalations)
	}
	if calls.Load() != 2 {
		t.Errorf("agents were called %d times, want 2: the debate must stop after the failed phase", calls.Load())
	}
	last := tr.Timeline[len(tr.Timeline)-1]
	if last.Phase != PhaseDecision || tr.Timeline[1].Status != StatusFailed {
		t.Errorf("timeline = %+v", tr.Timeline)
	}
}

func TestEngineLoopRepeatsUntilExitRule(t *testing.T) {
	// Agents that rebut in every round: the loop runs to its maximum.
	p := Standard()
	p.Loop.MaxRounds = 3
	p.Loop.ExitWhen = []ExitRule{ExitStagnation}
	e, _ := NewEngine(p, []Agent{stakeholder("a", "A", opener(voting.Approve)), stakeholder("b", "B", opener(voting.RequestChanges))}, WithClock(fixedClock()))
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Rounds != 3 || !strings.Contains(tr.ExitReason, "maximum of 3") {
		t.Errorf("rounds %d exit %q, want 3 rounds ending at the maximum", tr.Rounds, tr.ExitReason)
	}
	if n := len(tr.ArgumentsIn(PhaseRebuttal)); n != 12 {
		t.Errorf("rebuttals = %d, want 2 per agent per round", n)
	}

	// Agents that say nothing new after the openings: stagnation ends the loop after round 1.
	quiet := func(ctx context.Context, req *Request) (*Turn, error) {
		if req.Phase.Kind == PhaseRebuttal {
			return &Turn{}, nil
		}
		return opener(voting.Approve)(ctx, req)
	}
	e, _ = NewEngine(p, []Agent{stakeholder("a", "A", quiet), stakeholder("b", "B", quiet)}, WithClock(fixedClock()))
	tr, _ = e.Run(context.Background(), subject())
	if tr.Rounds != 1 || !strings.Contains(tr.ExitReason, "no new argument") {
		t.Errorf("rounds %d exit %q, want stagnation after round 1", tr.Rounds, tr.ExitReason)
	}
}

func TestEngineHumanReviewStops(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	agent := stakeholder("a", "A", func(ctx context.Context, req *Request) (*Turn, error) {
		if req.Phase.Kind == PhaseRebuttal {
			cancel(ErrHumanReview)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return opener(voting.Approve)(ctx, req)
	})
	e, _ := NewEngine(Standard(), []Agent{agent, maintainer("core", "CM", voting.RoleCoreMaintainer, voting.Approve)}, WithClock(fixedClock()))
	tr, err := e.Run(ctx, subject())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Record.Decision != voting.Escalate || tr.Escalations[0].Reason != voting.ReasonHumanReview {
		t.Fatalf("decision %s escalations %+v, want a human-review escalation", tr.Record.Decision, tr.Escalations)
	}
	var phases []string
	for _, p := range tr.Timeline {
		phases = append(phases, string(p.Phase)+":"+string(p.Status))
	}
	want := "evidence_gathering:completed opening_arguments:completed rebuttal:stopped decision:completed"
	if strings.Join(phases, " ") != want {
		t.Errorf("timeline = %s, want %s", strings.Join(phases, " "), want)
	}
}

func TestEngineFastTrackTakesOnlyItsAgents(t *testing.T) {
	var perf atomic.Int32
	e, err := NewEngine(FastTrack(), []Agent{
		stakeholder("security", "SS", opener(voting.Approve)),
		stakeholder("performance", "PS", func(ctx context.Context, req *Request) (*Turn, error) { perf.Add(1); return &Turn{}, nil }),
		maintainer("core_maintainer", "CM", voting.RoleCoreMaintainer, voting.Approve),
	}, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	if perf.Load() != 0 || len(tr.Participants) != 2 {
		t.Errorf("fast-track ran performance %d times with %d participants", perf.Load(), len(tr.Participants))
	}
	if len(tr.Timeline) != 3 || tr.Record.Decision != voting.Approve || tr.Record.ConsensusScore != 1 {
		t.Errorf("timeline %d phases, decision %s %.2f", len(tr.Timeline), tr.Record.Decision, tr.Record.ConsensusScore)
	}
}

func TestProtocolsValidate(t *testing.T) {
	for _, name := range []string{ProtocolStandard, ProtocolFastTrack, ProtocolExtended} {
		p, err := Named(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	ext := Extended()
	if ph, ok := ext.Phase(PhaseOpening); !ok || ph.Timeout != 20*time.Minute {
		t.Errorf("extended opening timeout = %v, want twice the standard 10m", ph.Timeout)
	}
	if _, ok := ext.Phase(PhaseDesignReview); !ok {
		t.Error("extended protocol has no design review phase")
	}
	bad := Standard()
	bad.Loop.From = PhaseSynthesis
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "loop synthesis..response") {
		t.Errorf("Validate of a backwards loop = %v", err)
	}
	if _, err := Named("quick"); err == nil || !strings.Contains(err.Error(), `unknown protocol "quick"`) {
		t.Errorf("Named(quick) = %v", err)
	}
}

func TestEngineRecordsGatherNotes(t *testing.T) {
	e, err := NewEngine(Standard(), []Agent{stakeholder("ok", "O", opener(voting.Approve))}, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	s := subject()
	s.GatherNotes = func() []string { return []string{"2 packages analysed"} }
	tr, err := e.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Timeline[0].Notes; tr.Timeline[0].Phase != PhaseEvidence || len(got) != 2 || got[1] != "2 packages analysed" {
		t.Errorf("evidence phase notes = %q", got)
	}
}

// A turn's phase notes are the phase's own: recorded without the agent's name, and kept when
// the turn failed (a call that spoke for several agents and did not answer); what its call spent
// for others is recorded under their names, when it failed too.
func TestEngineRecordsPhaseNotesWithoutTheAgentsName(t *testing.T) {
	shared := func(fail bool) func(context.Context, *Request) (*Turn, error) {
		return func(ctx context.Context, req *Request) (*Turn, error) {
			if req.Phase.Kind != PhaseOpening {
				return opener(voting.Approve)(ctx, req)
			}
			turn, _ := opener(voting.Approve)(ctx, req)
			turn.Notes = []string{"asked again"}
			turn.PhaseNotes = []string{"the panel's call: timed out"}
			turn.UsageFor = map[string]voting.Usage{"maintainer": {Prompt: 7, Completion: 1}}
			if fail {
				return turn, errors.New("no answer")
			}
			return turn, nil
		}
	}
	e, err := NewEngine(Standard(), []Agent{stakeholder("first", "F", shared(false)), stakeholder("second", "S", shared(true))}, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Run(context.Background(), subject())
	if err != nil {
		t.Fatal(err)
	}
	notes := tr.Timeline[1].Notes
	if strings.Count(strings.Join(notes, "\n"), "the panel's call: timed out") != 2 || slices.ContainsFunc(notes, func(n string) bool {
		return strings.HasSuffix(n, ": the panel's call: timed out")
	}) || !slices.Contains(notes, "first: asked again") {
		t.Errorf("opening notes %q: want the phase notes of both turns, the failed one's too, without a name, and the agent's note under its name", notes)
	}
	if got := tr.Timeline[1].ByAgent["maintainer"]; got.Prompt != 14 || tr.UsageByAgent["maintainer"].Completion != 2 {
		t.Errorf("the maintainer's usage in the openings %+v, in all %+v; want both turns' shares", got, tr.UsageByAgent["maintainer"])
	}
}
