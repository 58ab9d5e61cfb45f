package toulmin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/debatebot/debatebot/voting"
)

// ErrHumanReview is the cause to cancel a debate's context with when /human-review is invoked:
// the engine stops at once, keeps what was said, and the decision escalates to a human.
var ErrHumanReview = errors.New("human review requested")

// ErrInterrupted is returned when the debate's context is cancelled from outside (the server
// shutting down, a lost lease, a newer push) for any reason but human review: the phase that was
// running is neither recorded nor checkpointed, so that resuming from the last checkpoint asks
// it again. Only the debate's own timeouts (a phase's, the whole debate's) end a phase for good.
var ErrInterrupted = errors.New("debate interrupted")

// errTotalTimeout is the cause of the debate's own context when its total time runs out.
var errTotalTimeout = errors.New("the debate ran out of its total time")

// Subject is what a debate is about: the change summarised for agents, or a design question.
type Subject struct {
	DebateID   string
	Repository string
	PRNumber   int
	HeadSHA    string
	Trigger    string
	Title      string
	// Question is the design question of a debate without code.
	Question string
	// Index answers whether a citation is in the change.
	Index ChangeIndex
	// Gather runs evidence gathering; the engine times it as the first phase.
	Gather func(ctx context.Context) ([]Evidence, error)
	// GatherNotes, when set, is asked after Gather returns for what the analyzers want said in
	// the evidence phase's notes (what was analysed, what degraded, what was left out).
	GatherNotes func() []string
	// Data carries what agents need beyond the evidence (the change itself, for review's agents);
	// the engine passes it through untouched.
	Data any
}

// Request is what an agent is asked in one phase.
type Request struct {
	Phase   PhaseSpec
	Round   int
	Subject *Subject
	// Self is the agent's own participant record (with its resolved weight).
	Self         Participant
	Participants []Participant
	Evidence     []Evidence
	// Arguments holds every argument recorded before this turn, in order.
	Arguments []Argument
	// Positions holds every participant's latest stance.
	Positions map[string]Position
	// Transcript gives read access to the debate so far (helpers such as Conceded).
	Transcript *Transcript
	// Guidance is a human's guidance from the checkpoint before this round (seed 002), "" when
	// none. It is untrusted text: an agent weighs it, it does not obey it.
	Guidance string
	// Ahead lists the phases that follow this one, in order, as far as the debate runs them
	// unless it stops early (a budget stop, or the loop's verdict ending a round that could have
	// been followed by another), so that an agent that answers several phases in one call knows
	// what follows.
	Ahead []PhaseSpec
}

// Turn is an agent's reply in one phase.
type Turn struct {
	Arguments []Argument
	// Position, when set, is the agent's stance after this phase.
	Position *Position
	Usage    voting.Usage
	// Notes are recorded in the timeline (e.g. a reply that needed repair), under the agent's
	// name.
	Notes []string
	// PhaseNotes are recorded in the timeline as the phase's own, without the agent's name: what
	// a model call that spoke for several agents reports (one call for the whole panel), which is
	// not the agent's doing. They are kept when the turn failed too.
	PhaseNotes []string
	// UsageFor is what the turn's call spent for other participants, recorded in this phase
	// under their names, when the turn failed too: one call for the whole panel that also wrote
	// their turns of a later phase (a maintainer's synthesis with a round) bills them now, so
	// that no share waits for a phase this process may not reach.
	UsageFor map[string]voting.Usage
}

// Agent is a debate participant: offline (rules over evidence) or backed by a model.
type Agent interface {
	Participant() Participant
	Take(ctx context.Context, req *Request) (*Turn, error)
}

// EventKind says what happened.
type EventKind string

// Events the engine reports as the debate goes.
const (
	EventPhaseStarted EventKind = "phase_started"
	EventPhaseEnded   EventKind = "phase_ended"
)

// Event is reported to the observer synchronously from the engine's goroutine; the transcript
// must not be kept or changed by the observer.
type Event struct {
	Kind       EventKind
	Phase      PhaseRecord
	Transcript *Transcript
}

// Engine drives agents through a protocol.
type Engine struct {
	protocol   Protocol
	agents     []Agent
	weights    voting.Weights
	thresholds voting.Thresholds
	clock      func() time.Time
	observer   func(Event)
	// concurrency bounds the agents speaking at once in a parallel phase (0: no bound).
	concurrency int
	checkpoint  func(context.Context, *Transcript) error
	moderator   Moderator
	// pause asks a human between rounds when the protocol has checkpoints.
	pause RoundCheckpoint
}

// WithCheckpoint is called after every completed phase with the transcript so far, so that a
// debate interrupted by a crash can resume after its last completed phase (see Resume). An error
// ends the debate: a checkpoint that cannot be kept must not be lost silently.
func WithCheckpoint(f func(context.Context, *Transcript) error) Option {
	return func(e *Engine) { e.checkpoint = f }
}

// Option configures an Engine.
type Option func(*Engine)

// WithWeights sets the vote weights.
func WithWeights(w voting.Weights) Option { return func(e *Engine) { e.weights = w } }

// WithThresholds sets the consensus thresholds.
func WithThresholds(t voting.Thresholds) Option { return func(e *Engine) { e.thresholds = t } }

// WithClock sets the time source (tests use a fixed one for byte-identical transcripts).
func WithClock(now func() time.Time) Option { return func(e *Engine) { e.clock = now } }

// WithConcurrency bounds how many agents speak at once in a parallel phase; model-backed agents
// use it to stay within a provider's rate limits.
func WithConcurrency(n int) Option { return func(e *Engine) { e.concurrency = n } }

// WithObserver receives phase events, e.g. to show progress or update a PR comment.
func WithObserver(f func(Event)) Option { return func(e *Engine) { e.observer = f } }

// NewEngine checks the protocol and the agents and returns an engine.
func NewEngine(p Protocol, agents []Agent, opts ...Option) (*Engine, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{protocol: p, weights: voting.DefaultWeights(), thresholds: voting.DefaultThresholds(), clock: time.Now}
	for _, o := range opts {
		o(e)
	}
	if err := e.weights.Validate(); err != nil {
		return nil, fmt.Errorf("invalid weights: %w", err)
	}
	if err := e.thresholds.Validate(); err != nil {
		return nil, fmt.Errorf("invalid thresholds: %w", err)
	}
	allowed := map[string]bool{}
	for _, n := range p.Agents {
		allowed[n] = true
	}
	seen := map[string]bool{}
	for _, a := range agents {
		pt := a.Participant()
		if pt.Name == "" || pt.Abbrev == "" {
			return nil, fmt.Errorf("agent %q needs a name and an abbreviation", pt.Name)
		}
		if !pt.Role.Valid() {
			return nil, fmt.Errorf("agent %q has unknown role %q", pt.Name, pt.Role)
		}
		if seen[pt.Name] {
			return nil, fmt.Errorf("two agents are named %q", pt.Name)
		}
		seen[pt.Name] = true
		if len(allowed) == 0 || allowed[pt.Name] {
			e.agents = append(e.agents, a)
		}
	}
	if len(e.agents) == 0 {
		return nil, fmt.Errorf("protocol %q has no agents to run (it takes %s)", p.Name, strings.Join(p.Agents, ", "))
	}
	return e, nil
}

// run is the state of one debate.
type run struct {
	e       *Engine
	subject *Subject
	t       *Transcript
	// participants and agents are parallel: the seated panel, in the order given to the engine.
	participants []Participant
	agents       []Agent
	seq          map[string]int
	failedPhase  string
	stopped      bool
	// skipped is set by a fast exit: every phase but the decision is skipped.
	skipped bool
}

// Run holds the debate and returns its transcript with the decision record. It returns an error
// only when the debate cannot be held at all (evidence gathering failed); failures of agents are
// recorded in the transcript and the debate goes on or escalates.
func (e *Engine) Run(ctx context.Context, s *Subject) (*Transcript, error) {
	return e.Resume(ctx, s, nil)
}

// Resume continues a debate from a checkpoint: the phases the prior transcript completed are not
// run again (no agent is asked anything for them) and the debate goes on from the next one. A nil
// prior runs the whole debate.
func (e *Engine) Resume(ctx context.Context, s *Subject, prior *Transcript) (*Transcript, error) {
	if s.Index == nil {
		return nil, errors.New("subject has no change index")
	}
	total := startTotalTime(ctx, e.protocol.TotalTimeout)
	defer total.stop()

	r := e.newRun(s)
	done := r.restore(prior)
	if r.t.Panel != nil {
		r.applyPanel(r.t.Panel.Names())
	}
	if err := r.phases(total, done); err != nil {
		return nil, err
	}
	return r.t, nil
}

// totalTime is the debate's own context, bounded by its total time. A pause for a human does
// not count against that time: after one the deadline moves by the time waited.
type totalTime struct {
	// outer is the caller's context; ctx the debate's, derived from it with the deadline.
	outer, ctx context.Context
	deadline   time.Time
	cancel     context.CancelFunc
}

// startTotalTime starts the debate's total time of d from now.
func startTotalTime(outer context.Context, d time.Duration) *totalTime {
	t := &totalTime{outer: outer, deadline: time.Now().Add(d)}
	t.ctx, t.cancel = context.WithDeadlineCause(outer, t.deadline, errTotalTimeout)
	return t
}

// extend moves the deadline by the time a pause took and replaces ctx accordingly.
func (t *totalTime) extend(by time.Duration) {
	t.cancel()
	t.deadline = t.deadline.Add(by)
	t.ctx, t.cancel = context.WithDeadlineCause(t.outer, t.deadline, errTotalTimeout)
}

// stop releases the debate's context.
func (t *totalTime) stop() { t.cancel() }

// newRun seats the engine's agents for a debate on s, with their voting roles and weights, in
// a new transcript.
func (e *Engine) newRun(s *Subject) *run {
	r := &run{e: e, subject: s, seq: map[string]int{}}
	r.t = &Transcript{
		DebateID: s.DebateID, Title: s.Title, Question: s.Question, Protocol: e.protocol.Name,
		StartedAt: e.clock(), Offline: true, UsageByAgent: map[string]voting.Usage{}, Depth: e.protocol.Depth,
	}
	for _, a := range e.agents {
		p := a.Participant()
		p.VotingRole, p.Weight = e.weights.Resolve(p.Role, p.Trust)
		r.participants = append(r.participants, p)
		r.agents = append(r.agents, a)
		r.t.Offline = r.t.Offline && p.Offline
	}
	r.t.Participants = r.participants
	return r
}

// phases runs the protocol's phases in order, repeating the loop's rounds while the moderator
// judges that they should go on. The phases of done (a checkpoint's timeline) are replayed, not
// run: only the loop's course through them is followed. After a stop or a fast exit only the
// decision is run.
func (r *run) phases(total *totalTime, done []PhaseRecord) error {
	e := r.e
	phases := e.protocol.Phases
	loop := e.protocol.Loop
	round, roundStart, step := 1, 0, 0
	for i := 0; i < len(phases); i++ {
		spec := phases[i]
		if (r.stopped || r.skipped) && spec.Kind != PhaseDecision {
			continue
		}
		if r.budgetSkips(spec.Kind) {
			continue
		}
		if loop != nil && spec.Kind == loop.From {
			roundStart = len(r.t.Arguments)
			if step < len(done) {
				roundStart = r.argumentsBefore(round)
			}
		}
		replayed := step < len(done) && done[step].Phase == spec.Kind && done[step].Round == round
		step++
		if !replayed {
			if err := r.phase(total.ctx, spec, round); err != nil {
				return err
			}
		}
		if loop == nil || spec.Kind != loop.To || r.stopped || r.skipped {
			continue
		}
		r.t.Rounds = round
		if r.t.BudgetStop != nil {
			continue
		}
		again := false
		if replayed && step < len(done) {
			// The checkpoint shows what the loop did after this round.
			next := done[step]
			again = next.Phase == loop.From && next.Round == round+1
		} else {
			var err error
			if again, err = r.endRound(total, loop, round, roundStart); err != nil {
				return err
			}
		}
		if again {
			round++
			i = e.protocol.index(loop.From) - 1
		}
	}
	return nil
}

// endRound judges the round just run and, when the debate goes on and the protocol pauses
// between rounds, pauses for a human (whose wait the total time does not count); it reports
// whether another round follows.
func (r *run) endRound(total *totalTime, loop *Loop, round, roundStart int) (bool, error) {
	j := r.judge(loop, round, roundStart)
	r.recordJudgement(j)
	if j.Ends {
		r.t.ExitReason = j.Exit
		return false, nil
	}
	if r.e.protocol.Checkpoints && r.e.pause != nil {
		start := time.Now()
		end, err := r.pauseAfter(total.outer, round, j)
		if err != nil {
			return false, err
		}
		total.extend(time.Since(start))
		if end {
			return false, nil
		}
	}
	return true, nil
}

// restore loads a checkpoint's completed phases into the run and returns their timeline.
func (r *run) restore(prior *Transcript) []PhaseRecord {
	if prior == nil {
		return nil
	}
	var done []PhaseRecord
	for _, p := range prior.Timeline {
		if p.Phase == PhaseDecision || p.Status == StatusRunning {
			break
		}
		done = append(done, p)
		switch p.Status {
		case StatusFailed, StatusTimedOut:
			r.stopped, r.failedPhase = true, string(p.Phase)
		case StatusStopped:
			r.stopped = true // stopped for human review: only the decision is left
		}
	}
	t := r.t
	t.StartedAt = prior.StartedAt
	t.Timeline = append([]PhaseRecord(nil), done...)
	t.Evidence = append([]Evidence(nil), prior.Evidence...)
	t.Arguments = append([]Argument(nil), prior.Arguments...)
	t.Stances = append([]Stance(nil), prior.Stances...)
	t.Rounds, t.ExitReason = prior.Rounds, prior.ExitReason
	t.Panel, t.FastExit = prior.Panel, prior.FastExit
	if prior.BudgetStop != nil {
		b := *prior.BudgetStop
		b.Skipped = slices.Clone(b.Skipped)
		t.BudgetStop = &b
	}
	t.Judgements = append([]Judgement(nil), prior.Judgements...)
	t.Checkpoints = append([]Checkpoint(nil), prior.Checkpoints...)
	r.skipped = prior.FastExit != nil && prior.FastExit.Taken
	t.Abandoned, t.AbandonedByAgent = prior.Abandoned, maps.Clone(prior.AbandonedByAgent)
	for _, p := range done {
		t.Usage.Add(p.Usage)
		addByAgent(t.UsageByAgent, p.ByAgent)
	}
	// What interrupted phases cost was billed too.
	t.Usage.Add(prior.Abandoned)
	addByAgent(t.UsageByAgent, prior.AbandonedByAgent)
	for _, a := range t.Arguments {
		if i := strings.LastIndexByte(a.ID, '-'); i > 0 {
			var n int
			if _, err := fmt.Sscan(a.ID[i+1:], &n); err == nil && n > r.seq[a.Agent] {
				r.seq[a.Agent] = n
			}
		}
	}
	return done
}

// argumentsBefore counts the arguments recorded before the given round of the loop began.
func (r *run) argumentsBefore(round int) int {
	l := r.e.protocol.Loop
	from, to := r.e.protocol.index(l.From), r.e.protocol.index(l.To)
	n := 0
	for _, a := range r.t.Arguments {
		i := r.e.protocol.index(a.Phase)
		if i < from || i > to || a.Round < round {
			n++
		}
	}
	return n
}

// unanimous: everyone with a stance holds the same vote and no rebuttal is left unanswered.
func (r *run) unanimous() bool {
	pos := r.t.LatestPositions()
	var vote voting.Option
	for _, p := range pos {
		if vote != "" && p.Vote != vote {
			return false
		}
		vote = p.Vote
	}
	for _, a := range r.t.Arguments {
		if a.Phase != PhaseRebuttal {
			continue
		}
		answered := false
		for _, c := range r.t.Arguments {
			if c.Phase == PhaseClarification && c.Target == a.Target {
				answered = true
				break
			}
		}
		if !answered {
			return false
		}
	}
	return vote != ""
}

func (r *run) takers(spec PhaseSpec) []int {
	var idx []int
	for i, p := range r.participants {
		switch spec.Takers {
		case TakersAll:
		case TakersStakeholders:
			if p.Role.IsMaintainer() {
				continue
			}
		case TakersMaintainers:
			if !p.Role.IsMaintainer() {
				continue
			}
		default:
			continue
		}
		idx = append(idx, i)
	}
	return idx
}

func (r *run) emit(kind EventKind, rec PhaseRecord) {
	if r.e.observer != nil {
		r.e.observer(Event{Kind: kind, Phase: rec, Transcript: r.t})
	}
}

func (r *run) phase(ctx context.Context, spec PhaseSpec, round int) error {
	if err := r.cancelled(ctx, spec, round); err != nil {
		return err
	}
	rec := PhaseRecord{Phase: spec.Kind, Round: round, StartedAt: r.e.clock(), Status: StatusRunning}
	r.emit(EventPhaseStarted, rec)
	before := r.mark()
	if err := r.interrupted(ctx, &rec); err == nil {
		if spec.Kind == PhaseOpening && round == 1 && r.t.Panel == nil && r.e.moderator != nil && len(r.e.protocol.Agents) == 0 {
			r.seat(ctx, spec, &rec)
		}
		switch spec.Kind {
		case PhaseEvidence:
			if err := r.gather(ctx, spec, &rec); err != nil {
				if ierr := r.cancelled(ctx, spec, round); ierr != nil {
					return ierr
				}
				return err
			}
		case PhaseDecision:
			r.decide(&rec)
		default:
			if err := r.turns(ctx, spec, round, &rec); err != nil {
				if errors.Is(err, ErrInterrupted) {
					return errors.Join(err, r.abandon(ctx, before))
				}
				return err
			}
			if spec.Kind == PhaseOpening {
				r.fastExit(&rec)
			}
			r.checkBudget(spec, round, &rec)
		}
	}
	rec.EndedAt = r.e.clock()
	r.t.Timeline = append(r.t.Timeline, rec)
	if spec.Kind == PhaseDecision {
		r.t.EndedAt = rec.EndedAt
		r.t.Record.EndedAt = voting.Timestamp(rec.EndedAt)
	}
	r.emit(EventPhaseEnded, rec)
	if r.e.checkpoint != nil && spec.Kind != PhaseDecision {
		if err := r.e.checkpoint(ctx, r.t); err != nil {
			return fmt.Errorf("failed to checkpoint debate %s after %s: %w", r.subject.DebateID, spec.Kind, err)
		}
	}
	return nil
}

// cancelled returns ErrInterrupted (with the cause) when the debate's context was cancelled from
// outside the engine: not by the debate's total time, not for human review. The phase in hand is
// then left unrecorded, to be run again when the debate resumes from its last checkpoint.
func (r *run) cancelled(ctx context.Context, spec PhaseSpec, round int) error {
	if ctx.Err() == nil {
		return nil
	}
	cause := context.Cause(ctx)
	if errors.Is(cause, errTotalTimeout) || errors.Is(cause, ErrHumanReview) {
		return nil
	}
	return fmt.Errorf("%w in %s (round %d) of debate %s: %w", ErrInterrupted, spec.Kind, round, r.subject.DebateID, cause)
}

// interrupted stops the debate when the human asked for review or the total time ran out.
func (r *run) interrupted(ctx context.Context, rec *PhaseRecord) error {
	if ctx.Err() == nil || rec.Phase == PhaseDecision {
		return nil
	}
	r.stop(ctx, rec)
	return ctx.Err()
}

func (r *run) stop(ctx context.Context, rec *PhaseRecord) {
	r.stopped = true
	if errors.Is(context.Cause(ctx), ErrHumanReview) {
		rec.Status = StatusStopped
		rec.Notes = append(rec.Notes, "the debate was stopped for human review")
		return
	}
	rec.Status = StatusTimedOut
	rec.Notes = append(rec.Notes, fmt.Sprintf("the debate ran out of its total time (%s)", r.e.protocol.TotalTimeout))
	r.failedPhase = string(rec.Phase)
}

func (r *run) gather(ctx context.Context, spec PhaseSpec, rec *PhaseRecord) error {
	rec.Status = StatusCompleted
	if r.subject.Gather == nil {
		rec.Notes = append(rec.Notes, "no evidence to gather")
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, spec.Timeout)
	defer cancel()
	ev, err := r.subject.Gather(pctx)
	if err != nil {
		return fmt.Errorf("failed to gather evidence for debate %s: %w", r.subject.DebateID, err)
	}
	r.t.Evidence = ev
	rec.Notes = append(rec.Notes, fmt.Sprintf("%d evidence items", len(ev)))
	if r.subject.GatherNotes != nil {
		rec.Notes = append(rec.Notes, r.subject.GatherNotes()...)
	}
	return nil
}

type result struct {
	turn *Turn
	err  error
}

func (r *run) request(spec PhaseSpec, round int, self Participant) *Request {
	return &Request{
		Phase: spec, Round: round, Subject: r.subject, Self: self, Participants: r.participants,
		Evidence: r.t.Evidence, Arguments: append([]Argument(nil), r.t.Arguments...),
		Positions: r.t.LatestPositions(), Transcript: r.t, Guidance: r.guidance(spec.Kind, round),
		Ahead: r.ahead(spec.Kind, round),
	}
}

// ahead is the phases that follow kind, the decision excluded, as far as the debate will run
// them unless it stops early: within a round of the loop, the rest of the round, and the phases
// after it only in the loop's last round (an earlier round may be followed by another).
func (r *run) ahead(kind PhaseKind, round int) []PhaseSpec {
	p := r.e.protocol
	i := p.index(kind)
	if i < 0 {
		return nil
	}
	end := len(p.Phases)
	if l := p.Loop; l != nil && r.inLoop(kind) && round < l.MaxRounds {
		end = p.index(l.To) + 1
	}
	var out []PhaseSpec
	for _, ph := range p.Phases[i+1 : end] {
		if ph.Kind != PhaseDecision {
			out = append(out, ph)
		}
	}
	return out
}

// guidance is the human's guidance for a phase of the round, which only the round's phases get.
func (r *run) guidance(kind PhaseKind, round int) string {
	if !r.inLoop(kind) {
		return ""
	}
	return r.t.GuidanceFor(round)
}

// turns asks the phase's takers; it returns an error only when the debate was interrupted from
// outside before every taker answered (see cancelled).
func (r *run) turns(ctx context.Context, spec PhaseSpec, round int, rec *PhaseRecord) error {
	who := r.takers(spec)
	if len(who) == 0 {
		rec.Status = StatusCompleted
		rec.Notes = append(rec.Notes, "no participant takes part in this phase")
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, spec.Timeout)
	defer cancel()

	take := r.takeAtOnce
	if spec.Sequential {
		take = r.takeInTurn
	}
	results, err := take(ctx, pctx, spec, round, who, rec)
	if err != nil {
		return err
	}
	r.conclude(ctx, pctx, spec, results, rec)
	return nil
}

// takeInTurn asks the takers who one after another within the phase's context pctx, each seeing
// the turns recorded before its own. When a turn fails because the debate was interrupted from
// outside (ctx), what that turn cost is billed and the interruption returned.
func (r *run) takeInTurn(ctx, pctx context.Context, spec PhaseSpec, round int, who []int, rec *PhaseRecord) ([]result, error) {
	results := make([]result, len(who))
	for k, i := range who {
		results[k] = call(pctx, r.agents[i], r.request(spec, round, r.participants[i]))
		if results[k].err != nil {
			if err := r.cancelled(ctx, spec, round); err != nil {
				r.billed(who[k:k+1], results[k:k+1], rec)
				return nil, err
			}
		}
		r.record(spec, round, i, results[k], rec)
	}
	return results, nil
}

// takeAtOnce asks the takers who at the same time, at most the engine's concurrency at once,
// within the phase's context pctx, and records their turns in participant order, whatever order
// they finished in, so that the same debate gives the same transcript. When a turn failed
// because the debate was interrupted from outside (ctx), what the turns cost is billed and the
// interruption returned.
func (r *run) takeAtOnce(ctx, pctx context.Context, spec PhaseSpec, round int, who []int, rec *PhaseRecord) ([]result, error) {
	results := make([]result, len(who))
	var wg sync.WaitGroup
	limit := r.e.concurrency
	if limit <= 0 || limit > len(who) {
		limit = len(who)
	}
	slots := make(chan struct{}, limit)
	for k, i := range who {
		req := r.request(spec, round, r.participants[i])
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-pctx.Done():
				results[k] = result{err: fmt.Errorf("no turn before the phase ended: %w", pctx.Err())}
				return
			}
			results[k] = call(pctx, r.agents[i], req)
		}()
	}
	wg.Wait()
	for _, res := range results {
		if res.err == nil {
			continue
		}
		if err := r.cancelled(ctx, spec, round); err != nil {
			r.billed(who, results, rec)
			return nil, err
		}
	}
	for k, i := range who {
		r.record(spec, round, i, results[k], rec)
	}
	return results, nil
}

// conclude sets the phase's status from its takers' results: completed when one answered,
// stopped when the debate was stopped or interrupted, else failed (timed out when the phase ran
// out of time), which ends the debate and escalates it.
func (r *run) conclude(ctx, pctx context.Context, spec PhaseSpec, results []result, rec *PhaseRecord) {
	ok := 0
	for _, res := range results {
		if res.err == nil {
			ok++
		}
	}
	switch {
	case ok < len(results) && errors.Is(context.Cause(ctx), ErrHumanReview):
		// Stopped for a human before every taker answered: what was said is kept, and the
		// phase is not shown as completed.
		r.stop(ctx, rec)
	case ok > 0:
		rec.Status = StatusCompleted
	case ctx.Err() != nil:
		r.stop(ctx, rec)
	default:
		rec.Status = StatusFailed
		if pctx.Err() != nil {
			rec.Status = StatusTimedOut
		}
		r.failedPhase = string(spec.Kind)
		r.stopped = true
		rec.Notes = append(rec.Notes, "every agent failed in this phase; the debate ends and escalates")
	}
}

// call runs one agent's turn and turns a panic or a late reply into an error, so that one agent
// cannot take the debate down.
func call(ctx context.Context, a Agent, req *Request) (res result) {
	defer func() {
		if p := recover(); p != nil {
			res = result{err: fmt.Errorf("agent panicked: %v", p)}
		}
	}()
	turn, err := a.Take(ctx, req)
	if err == nil && turn == nil {
		err = errors.New("agent returned no turn")
	}
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("reply came after the phase ended: %w", ctx.Err())
	}
	return result{turn: turn, err: err}
}

// record validates and stores one agent's turn.
func (r *run) record(spec PhaseSpec, round, i int, res result, rec *PhaseRecord) {
	p := r.participants[i]
	if res.turn != nil {
		rec.Notes = append(rec.Notes, res.turn.PhaseNotes...)
	}
	if res.err != nil {
		// A failed turn may still have cost model calls (an unusable reply, a late one): the
		// record counts every call the server billed.
		r.addTurnUsage(p.Name, res.turn, rec)
		rec.Notes = append(rec.Notes, fmt.Sprintf("%s was left out of this phase: %v", p.Title, res.err))
		return
	}
	turn := res.turn
	rec.Agents = append(rec.Agents, p.Name)
	r.addTurnUsage(p.Name, turn, rec)
	for _, n := range turn.Notes {
		rec.Notes = append(rec.Notes, p.Title+": "+n)
	}
	kept := 0
	for _, a := range turn.Arguments {
		if spec.MaxPerAgent > 0 && kept >= spec.MaxPerAgent {
			rec.Notes = append(rec.Notes, fmt.Sprintf("%s: only %d %s arguments are allowed per agent; the rest were dropped", p.Title, spec.MaxPerAgent, spec.Kind))
			break
		}
		r.seq[p.Name]++
		a.ID = fmt.Sprintf("%s-%d", p.Abbrev, r.seq[p.Name])
		a.Agent, a.Phase, a.Round = p.Name, spec.Kind, round
		a.Normalize()
		a.Repeats = nil
		if err := r.checkTarget(&a); err != nil {
			rec.Notes = append(rec.Notes, fmt.Sprintf("%s: argument dropped: %v", p.Title, err))
			continue
		}
		if err := a.Validate(); err != nil {
			rec.Notes = append(rec.Notes, fmt.Sprintf("%s: argument dropped: %v", p.Title, err))
			continue
		}
		a.Quality = Score(&a, r.subject.Index)
		if len(a.Quality.BadCitations) > 0 {
			rec.Notes = append(rec.Notes, fmt.Sprintf("%s: %s cites lines that are not in the change: %s", p.Title, a.ID, strings.Join(a.Quality.BadCitations, ", ")))
		}
		if r.inLoop(spec.Kind) {
			// Seed 002's repetition detection: what an agent already said is not new ground.
			if rep := repetition(&a, r.t.Arguments, r.inLoop); rep != nil && rep.Share > RepeatShare {
				a.Repeats = rep
				rec.Notes = append(rec.Notes, fmt.Sprintf("%s: %s repeats %.0f%% of its earlier text (most of %s) and does not count as new", p.Title, a.ID, rep.Share*100, rep.Of))
			}
		}
		r.t.Arguments = append(r.t.Arguments, a)
		kept++
	}
	if turn.Position != nil {
		pos := *turn.Position
		if !pos.Vote.Valid() {
			rec.Notes = append(rec.Notes, fmt.Sprintf("%s: stance ignored: unknown vote %q", p.Title, pos.Vote))
			return
		}
		pos.Confidence = clamp(pos.Confidence)
		prev, had := r.t.LatestPositions()[p.Name]
		st := Stance{Agent: p.Name, Phase: spec.Kind, Round: round, Position: pos, Changed: had && prev.Vote != pos.Vote}
		if st.Changed {
			st.From = prev.Vote
		}
		r.t.Stances = append(r.t.Stances, st)
	}
}

func clamp(v float64) float64 {
	switch {
	case v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// billed counts the usage of turns that will not be recorded because the debate was interrupted:
// their calls were billed all the same.
func (r *run) billed(who []int, results []result, rec *PhaseRecord) {
	for k, i := range who {
		r.addTurnUsage(r.participants[i].Name, results[k].turn, rec)
	}
}

// addTurnUsage records what a turn's calls cost (none without a turn): its own usage under the
// agent's name, and what they spent for others under theirs.
func (r *run) addTurnUsage(name string, turn *Turn, rec *PhaseRecord) {
	if turn == nil {
		return
	}
	r.addUsage(name, turn.Usage, rec)
	for _, other := range slices.Sorted(maps.Keys(turn.UsageFor)) {
		r.addUsage(other, turn.UsageFor[other], rec)
	}
}

// progress is how far a debate had got when a phase started, so that a phase interrupted from
// outside can be taken back.
type progress struct {
	arguments, stances int
	usage              voting.Usage
	byAgent            map[string]voting.Usage
	// The panel as it was: a choice made in an interrupted opening is made again on resume.
	panel        *Panel
	participants []Participant
	agents       []Agent
}

func (r *run) mark() progress {
	return progress{len(r.t.Arguments), len(r.t.Stances), r.t.Usage, maps.Clone(r.t.UsageByAgent), r.t.Panel, r.participants, r.agents}
}

// abandon takes back what a phase interrupted from outside had recorded (its arguments and
// stances: the phase runs again on resume) but keeps what its calls cost as Abandoned, and
// checkpoints that, so that the resumed debate's record counts every call the server billed.
func (r *run) abandon(ctx context.Context, before progress) error {
	r.t.Arguments, r.t.Stances = r.t.Arguments[:before.arguments], r.t.Stances[:before.stances]
	if r.t.Panel != before.panel {
		r.t.Panel, r.participants, r.agents = before.panel, before.participants, before.agents
		r.t.Participants = before.participants
	}
	spent := r.t.Usage
	spent.Sub(before.usage)
	if spent.Empty() || r.e.checkpoint == nil {
		return nil
	}
	r.t.Abandoned.Add(spent)
	for agent, u := range r.t.UsageByAgent {
		u.Sub(before.byAgent[agent])
		if u.Empty() {
			continue
		}
		if r.t.AbandonedByAgent == nil {
			r.t.AbandonedByAgent = map[string]voting.Usage{}
		}
		addAgent(r.t.AbandonedByAgent, agent, u)
	}
	if err := r.e.checkpoint(context.WithoutCancel(ctx), r.t); err != nil {
		return fmt.Errorf("failed to keep the usage of the interrupted phase of debate %s: %w", r.subject.DebateID, err)
	}
	return nil
}

// addUsage counts one agent's usage in the phase and the debate.
func (r *run) addUsage(name string, usage voting.Usage, rec *PhaseRecord) {
	if usage == (voting.Usage{}) {
		return
	}
	rec.Usage.Add(usage)
	if rec.ByAgent == nil {
		rec.ByAgent = map[string]voting.Usage{}
	}
	addAgent(rec.ByAgent, name, usage)
	r.t.Usage.Add(usage)
	addAgent(r.t.UsageByAgent, name, usage)
}

// addAgent adds u to agent's sum in m (not nil).
func addAgent(m map[string]voting.Usage, agent string, u voting.Usage) {
	sum := m[agent]
	sum.Add(u)
	m[agent] = sum
}

// addByAgent adds each agent's usage in from to its sum in m (not nil).
func addByAgent(m, from map[string]voting.Usage) {
	for agent, u := range from {
		addAgent(m, agent, u)
	}
}

// inLoop reports whether the phase is one of the protocol's repeated rounds.
func (r *run) inLoop(kind PhaseKind) bool {
	l := r.e.protocol.Loop
	if l == nil {
		return false
	}
	i := r.e.protocol.index(kind)
	return i >= r.e.protocol.index(l.From) && i <= r.e.protocol.index(l.To)
}

// checkTarget requires rebuttals, clarifications and responses to answer an argument that
// exists; a rebuttal may not answer its own author, a clarification only its own argument, and a
// response only the answer to an argument its author rebutted.
func (r *run) checkTarget(a *Argument) error {
	if !a.Phase.Answers() {
		return nil
	}
	target, ok := r.t.Argument(a.Target)
	if !ok {
		return fmt.Errorf("%s answers unknown argument %q", a.Phase, a.Target)
	}
	if a.Phase == PhaseResponse {
		return CheckResponseTarget(r.t, a.Agent, target)
	}
	if a.Phase == PhaseRebuttal && target.Agent == a.Agent {
		return fmt.Errorf("a rebuttal cannot answer the agent's own argument %s", a.Target)
	}
	if a.Phase == PhaseClarification && target.Agent != a.Agent {
		return fmt.Errorf("a clarification answers the agent's own argument, %s is %s's", a.Target, target.Agent)
	}
	return nil
}

// CheckResponseTarget requires a response to answer a clarification of an argument its author
// rebutted.
func CheckResponseTarget(t *Transcript, agent string, target *Argument) error {
	if target.Phase != PhaseClarification {
		return fmt.Errorf("a response answers the author's answer to a rebuttal (a clarification), %s is a %s", target.ID, target.Phase)
	}
	for _, reb := range t.RebuttalsOf(target.Target) {
		if reb.Agent == agent {
			return nil
		}
	}
	return fmt.Errorf("%s answers rebuttals of %s, none of which is %s's", target.ID, target.Target, agent)
}

// decide tallies the latest stances into the decision record.
func (r *run) decide(rec *PhaseRecord) {
	rec.Status = StatusCompleted
	t := r.t
	positions := t.LatestPositions()
	var ballots []voting.Ballot
	for _, p := range r.participants {
		pos, ok := positions[p.Name]
		if !ok {
			continue
		}
		ballots = append(ballots, voting.Ballot{Agent: p.Name, Role: p.VotingRole, Weight: p.Weight, Vote: pos.Vote, Confidence: pos.Confidence})
	}
	points, convergence := r.points()
	out := voting.Decide(voting.Input{
		Ballots: ballots, Thresholds: r.e.thresholds, CriticalUnrebutted: r.criticalStanding(),
		HumanReview: r.humanReview(), FailedPhase: r.failedPhase, Injections: r.injections(),
		Disputes: escalatedDisputes(points),
	})
	t.Points, t.Convergence = points, voting.Round2(convergence)
	rows := make([]voting.ScoringRow, len(points))
	for i, p := range points {
		rows[i] = p.Row()
	}
	t.TradeOff = nil
	if out.Tally.Level == voting.LevelNone && len(ballots) > 0 {
		t.TradeOff = r.tradeOff(out.Tally, ballots, points)
	}
	t.Escalations = out.Escalations
	t.Shares = out.Tally.Shares

	required, followUp := r.actions(out.Decision)
	var dissent []voting.Dissent
	for _, b := range ballots {
		if b.Vote != out.Tally.Winner {
			dissent = append(dissent, voting.Dissent{Agent: b.Agent, Concern: fmt.Sprintf("votes %s: %s", b.Vote, positions[b.Agent].Reason)})
		}
	}
	s := r.subject
	t.Record = voting.Record{
		DebateID: s.DebateID, Repository: s.Repository, PRNumber: s.PRNumber, HeadSHA: s.HeadSHA,
		Trigger: s.Trigger, Protocol: r.e.protocol.Name, Decision: out.Decision,
		ConsensusScore: voting.Round2(out.Tally.Score), ConsensusLevel: out.Tally.Level,
		Votes: ballots, DissentingOpinions: dissent, RequiredChanges: required, FollowUp: followUp,
		Tokens: voting.Usage{Prompt: t.Usage.Prompt, Completion: t.Usage.Completion, CachedPrompt: t.Usage.CachedPrompt,
			CostUSD: math.Round(t.Usage.CostUSD*1e6) / 1e6},
		Convergence: t.Convergence, ScoringMatrix: rows, Depth: string(t.Depth), TradeOff: t.TradeOff,
		StartedAt: voting.Timestamp(t.StartedAt),
	}
	if t.Panel != nil && t.Panel.Method != PanelConfigured {
		t.Record.Perspectives = t.Panel.Seated
	}
	if s.Question != "" {
		t.Record.Synthesis = r.questionSynthesis(out, t.Convergence)
	}
	rec.Notes = append(rec.Notes, fmt.Sprintf("%s with %.0f%% of the weighted vote (%s)", out.Decision, out.Tally.Score*100, out.Tally.Level))
	if t.BudgetStop != nil {
		rec.Notes = append(rec.Notes, t.BudgetStop.Sentence())
	}
}

func (r *run) humanReview() bool {
	for _, p := range r.t.Timeline {
		if p.Status == StatusStopped {
			return true
		}
	}
	return false
}

// criticalStanding lists critical concerns whose citations hold and that nobody conceded.
func (r *run) criticalStanding() []string {
	seen := map[string]bool{}
	var out []string
	for i := range r.t.Arguments {
		a := &r.t.Arguments[i]
		if a.Severity != voting.SeverityCritical || !r.t.Standing(a) || !a.Quality.Verified() {
			continue
		}
		where := ""
		if len(a.Grounds) > 0 {
			where = a.Grounds[0].Citation()
		}
		// A final argument restates its author's opening concern at the same place: one entry.
		key := a.Agent + "|" + where
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, fmt.Sprintf("%s (%s, %s)", a.Claim, a.ID, where))
	}
	return out
}

// actions splits proposed actions into required changes and follow-ups. Required changes come
// from standing, verified concerns; unverified ones, optional ones, and everything when the
// debate approves outright, become follow-ups; conceded concerns are dropped.
func (r *run) actions(decision voting.Option) (required, followUp []string) {
	seenReq, seenFollow := map[string]bool{}, map[string]bool{}
	type item struct {
		text string
		sev  int
		path string
		line int
	}
	var req, fol []item
	for i := range r.t.Arguments {
		a := &r.t.Arguments[i]
		standing := r.t.Standing(a)
		if r.t.Conceded(a.ID) {
			continue // withdrawn by its author: neither required nor a follow-up
		}
		for _, act := range a.Actions {
			s := act.String()
			it := item{s, a.Severity.Rank(), act.Path, act.Line}
			if act.Required && standing && a.Quality.Verified() && decision != voting.Approve {
				if !seenReq[s] {
					seenReq[s] = true
					req = append(req, it)
				}
				continue
			}
			if a.Phase.Answers() {
				continue
			}
			if !seenFollow[s] {
				seenFollow[s] = true
				fol = append(fol, it)
			}
		}
	}
	order := func(items []item) []string {
		sort.SliceStable(items, func(i, j int) bool {
			if items[i].sev != items[j].sev {
				return items[i].sev > items[j].sev
			}
			if items[i].path != items[j].path {
				return items[i].path < items[j].path
			}
			return items[i].line < items[j].line
		})
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = it.text
		}
		return out
	}
	required = order(req)
	for _, text := range order(fol) {
		if !seenReq[text] {
			followUp = append(followUp, text)
		}
	}
	return required, followUp
}
