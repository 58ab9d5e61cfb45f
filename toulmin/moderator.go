package toulmin

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/debatebot/debatebot/voting"
)

// The moderator of seed 002 does two things. Before the openings it seats 2 to 4 stakeholder
// perspectives that fit the subject (an implementation of Moderator: rules over the change, or a
// model); after each round of confrontation the engine judges the round by rules over the
// transcript (Judgement) and ends the rounds accordingly.

// Bounds of the panel the moderator seats (seed 002: 2 to 4 perspectives).
const (
	MinPerspectives = 2
	MaxPerspectives = 4
)

// ModeratorName is the name under which the moderator's model calls are counted.
const ModeratorName = "moderator"

// PanelConfigured is the method of a panel that was configured rather than chosen.
const PanelConfigured = "configured"

// RepeatShare is the share of an argument's text its author had already said above which the
// argument is flagged as a repetition and does not count as new ground (seed 002: 60%).
const RepeatShare = 0.6

// Moderator seats the stakeholders of a debate before its openings.
type Moderator interface {
	Seat(ctx context.Context, req *SeatRequest) (*Panel, error)
}

// SeatRequest is what the moderator chooses from.
type SeatRequest struct {
	Subject  *Subject
	Evidence []Evidence
	// Candidates are the stakeholders the engine was given, in catalog order; maintainers
	// always take part and are not among them.
	Candidates []Participant
	// Min and Max bound how many to seat (fewer than Min when there are fewer candidates).
	Min, Max int
	// Opening is the phase the seated panel opens with, for a moderator whose call also writes
	// the openings.
	Opening PhaseSpec
}

// Panel is the moderator's choice and its reasons.
type Panel struct {
	// Method is how the choice was made: "rules", "model NAME", or "configured" when the
	// panel was given and the moderator did not choose.
	Method string        `json:"method" yaml:"method"`
	Seated []voting.Seat `json:"seated" yaml:"seated"`
	// Left are the candidates not seated, each with why.
	Left []voting.Seat `json:"left,omitempty" yaml:"left,omitempty"`
	// Opposition names the seated perspectives whose trade-offs oppose each other, for people;
	// Opposed holds the same pairs of agents' names, for the engine.
	Opposition string      `json:"opposition,omitempty" yaml:"opposition,omitempty"`
	Opposed    [][2]string `json:"opposed,omitempty" yaml:"opposed,omitempty"`
	Notes      []string    `json:"notes,omitempty" yaml:"notes,omitempty"`
	// Usage is what choosing cost (a model call); it is counted in the opening phase.
	Usage voting.Usage `json:"usage,omitempty" yaml:"usage,omitempty"`
}

// Names lists the seated agents.
func (p *Panel) Names() []string {
	out := make([]string, len(p.Seated))
	for i, s := range p.Seated {
		out[i] = s.Agent
	}
	return out
}

// WithModerator has m seat the stakeholders before the openings. Without one, every agent
// given takes part. A protocol that names its agents (fast-track) is not moderated.
func WithModerator(m Moderator) Option { return func(e *Engine) { e.moderator = m } }

// seat asks the moderator for the panel and keeps only the seated stakeholders (and every
// maintainer). A moderator that fails, or whose choice breaks the bounds, seats everyone, with a
// note: a debate is never lost to its moderator.
func (r *run) seat(ctx context.Context, spec PhaseSpec, rec *PhaseRecord) {
	var cands []Participant
	for _, p := range r.participants {
		if !p.Role.IsMaintainer() {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, spec.Timeout)
	defer cancel()
	panel, err := r.e.moderator.Seat(pctx, &SeatRequest{Subject: r.subject, Evidence: r.t.Evidence, Candidates: cands, Min: MinPerspectives, Max: MaxPerspectives, Opening: spec})
	if panel != nil {
		r.addUsage(ModeratorName, panel.Usage, rec)
	}
	if ctx.Err() != nil {
		return // interrupted from outside: the phase is taken back and the choice made again
	}
	if err == nil && (panel == nil || panel.Method != PanelConfigured) {
		err = checkPanel(panel, cands)
	}
	if err != nil {
		rec.Notes = append(rec.Notes, fmt.Sprintf("the moderator could not choose (%v); every stakeholder takes part", err))
		panel = &Panel{Method: "fallback"}
		for _, c := range cands {
			panel.Seated = append(panel.Seated, voting.Seat{Agent: c.Name, Reason: "the moderator could not choose"})
		}
	}
	r.t.Panel = panel
	r.applyPanel(panel.Names())
	titles := make([]string, 0, len(panel.Seated))
	for _, s := range panel.Seated {
		titles = append(titles, title(r.t, s.Agent))
	}
	rec.Notes = append(rec.Notes, fmt.Sprintf("the moderator (%s) seated %s", panel.Method, strings.Join(titles, ", ")))
}

// checkPanel holds a choice to the candidates and the bounds.
func checkPanel(p *Panel, cands []Participant) error {
	if p == nil {
		return fmt.Errorf("no choice")
	}
	known := map[string]bool{}
	for _, c := range cands {
		known[c.Name] = true
	}
	seen := map[string]bool{}
	for _, s := range p.Seated {
		if !known[s.Agent] {
			return fmt.Errorf("%q is not a stakeholder of the catalog", s.Agent)
		}
		if seen[s.Agent] {
			return fmt.Errorf("%q is seated twice", s.Agent)
		}
		seen[s.Agent] = true
	}
	least := min(MinPerspectives, len(cands))
	if len(p.Seated) < least || len(p.Seated) > MaxPerspectives {
		return fmt.Errorf("%d stakeholders seated, want %d to %d", len(p.Seated), least, MaxPerspectives)
	}
	return nil
}

// applyPanel keeps the maintainers and the named stakeholders, in the order given to the engine.
func (r *run) applyPanel(names []string) {
	var ps []Participant
	var as []Agent
	for i, p := range r.participants {
		if p.Role.IsMaintainer() || slices.Contains(names, p.Name) {
			ps = append(ps, p)
			as = append(as, r.agents[i])
		}
	}
	r.participants, r.agents = ps, as
	r.t.Participants = ps
	r.t.Offline = true
	for _, p := range ps {
		r.t.Offline = r.t.Offline && p.Offline
	}
}

func title(t *Transcript, agent string) string {
	if p, ok := t.Participant(agent); ok && p.Title != "" {
		return p.Title
	}
	return agent
}

// FastExit records the check of seed 001's fast exit after the openings.
type FastExit struct {
	// Taken is set when the debate skipped to the decision.
	Taken  bool   `json:"taken" yaml:"taken"`
	Reason string `json:"reason" yaml:"reason"`
	// Partial names the agreements treated as partial, each with why.
	Partial []string `json:"partial,omitempty" yaml:"partial,omitempty"`
}

// fastExit checks, after the openings, whether every seated stakeholder agrees on approving and
// nothing above low stands (no standing concern above low, none that requires a change). An agreement with no argument that says nothing of what the agent
// examined from its own perspective is partial (seed 001's skepticism) and blocks the exit.
func (r *run) fastExit(rec *PhaseRecord) {
	if !r.e.protocol.FastExit || r.stopped || rec.Status != StatusCompleted {
		return
	}
	var stakeholders []Participant
	for _, p := range r.participants {
		if !p.Role.IsMaintainer() {
			stakeholders = append(stakeholders, p)
		}
	}
	if len(stakeholders) < 2 {
		return // agreement needs more than one perspective
	}
	opening := map[string]*Position{}
	for i := range r.t.Stances {
		s := &r.t.Stances[i]
		if s.Phase == PhaseOpening {
			opening[s.Agent] = &s.Position
		}
	}
	argued := map[string]bool{}
	for i := range r.t.Arguments {
		a := &r.t.Arguments[i]
		if a.Phase != PhaseOpening {
			continue
		}
		argued[a.Agent] = true
		if r.t.Standing(a) && (a.Severity.Rank() > voting.SeverityLow.Rank() || requires(a)) {
			return // something above low stands: a serious concern, or one that must be fixed
		}
	}
	var vote voting.Option
	var partial []string
	for _, p := range stakeholders {
		pos, ok := opening[p.Name]
		if !ok {
			return // a stakeholder gave no opening stance
		}
		if vote != "" && pos.Vote != vote {
			return
		}
		vote = pos.Vote
		if !argued[p.Name] && len(pos.Engaged) == 0 {
			partial = append(partial, fmt.Sprintf("%s agrees without an argument and names nothing it examined from its perspective", p.Title))
		}
	}
	if vote != voting.Approve && vote != voting.ApproveWithChanges {
		return
	}
	fe := &FastExit{Partial: partial}
	if len(partial) > 0 {
		fe.Reason = fmt.Sprintf("the %d stakeholders agree (%s) and nothing above low stands, but %d agreement(s) engage nothing from their own perspective and count as partial: the debate goes on", len(stakeholders), vote, len(partial))
	} else {
		fe.Taken = true
		fe.Reason = fmt.Sprintf("all %d stakeholders agree (%s) after the openings and nothing above low stands: the debate skips to the decision", len(stakeholders), vote)
		r.skipped = true
	}
	r.t.FastExit = fe
	if fe.Taken {
		rec.Notes = append(rec.Notes, "fast exit: "+fe.Reason)
	} else {
		rec.Notes = append(rec.Notes, "no fast exit: "+fe.Reason)
	}
}

// requires reports whether the argument proposes a change the merge must wait for.
func requires(a *Argument) bool {
	for _, act := range a.Actions {
		if act.Required {
			return true
		}
	}
	return false
}

// Verdict is the moderator's judgement of a round (seed 002).
type Verdict string

// Verdicts.
const (
	VerdictConverging  Verdict = "converging"
	VerdictStagnating  Verdict = "stagnating"
	VerdictNewGround   Verdict = "new_ground"
	VerdictClearWinner Verdict = "clear_winner"
)

// Judgement is the moderator's verdict after one round of confrontation.
type Judgement struct {
	Round   int     `json:"round" yaml:"round"`
	Verdict Verdict `json:"verdict" yaml:"verdict"`
	// Convergence is the share of disputed points agreed after the round.
	Convergence float64 `json:"convergence" yaml:"convergence"`
	// New counts the round's arguments that are not repetitions; Repeated lists those that are.
	New      int      `json:"new" yaml:"new"`
	Repeated []string `json:"repeated,omitempty" yaml:"repeated,omitempty"`
	Detail   string   `json:"detail" yaml:"detail"`
	// Ends is set when the rounds end after this one, and Exit says why.
	Ends bool   `json:"ends" yaml:"ends"`
	Exit string `json:"exit,omitempty" yaml:"exit,omitempty"`
}

// judge rates the round that began at roundStart and decides whether the rounds end.
func (r *run) judge(l *Loop, round, roundStart int) Judgement {
	j := Judgement{Round: round}
	args := r.t.Arguments[roundStart:]
	for _, a := range args {
		if a.Repeats != nil && a.Repeats.Share > RepeatShare {
			j.Repeated = append(j.Repeated, a.ID)
		}
	}
	j.New = len(args) - len(j.Repeated)
	points, conv := r.points()
	j.Convergence = voting.Round2(conv)
	threshold := r.e.protocol.Convergence()
	has := func(rule ExitRule) bool { return slices.Contains(l.ExitWhen, rule) }
	unanimous := r.unanimous()
	share, leader := r.leading()

	switch {
	case j.New == 0:
		j.Verdict = VerdictStagnating
		j.Detail = fmt.Sprintf("round %d added no new argument", round)
		if len(j.Repeated) > 0 {
			j.Detail += fmt.Sprintf(" (%d repeated earlier text: %s)", len(j.Repeated), strings.Join(j.Repeated, ", "))
		}
		if has(ExitStagnation) {
			j.Ends, j.Exit = true, j.Detail
		}
	case unanimous || conv >= threshold:
		j.Verdict = VerdictConverging
		if unanimous {
			j.Detail = fmt.Sprintf("all participants agree after round %d", round)
		} else {
			j.Detail = fmt.Sprintf("convergence %.2f reached the threshold %.2f after round %d", conv, threshold, round)
		}
		if (unanimous && has(ExitUnanimous)) || (conv >= threshold && has(ExitConverged)) {
			j.Ends, j.Exit = true, j.Detail
		}
	case share > r.e.thresholds.Strong && settledForOneSide(points, args):
		j.Verdict = VerdictClearWinner
		j.Detail = fmt.Sprintf("%s holds %.0f%% of the weighted stances and the round settled its disputes for one side", leader, share*100)
		if has(ExitClearWinner) {
			j.Ends, j.Exit = true, "a clear winner after round "+fmt.Sprint(round)+": "+j.Detail
		}
	default:
		j.Verdict = VerdictNewGround
		j.Detail = fmt.Sprintf("%d new argument(s) in round %d; convergence %.2f", j.New, round, conv)
	}
	if !j.Ends && round >= l.MaxRounds {
		j.Ends, j.Exit = true, fmt.Sprintf("reached the maximum of %d round(s)", l.MaxRounds)
	}
	return j
}

// recordJudgement keeps the round's judgement, replacing one of the same round (a resumed
// debate judges its last checkpointed round again).
func (r *run) recordJudgement(j Judgement) {
	for i := range r.t.Judgements {
		if r.t.Judgements[i].Round == j.Round {
			r.t.Judgements[i] = j
			return
		}
	}
	r.t.Judgements = append(r.t.Judgements, j)
}

// leading is the weighted share of the most held current stance, and that stance.
func (r *run) leading() (float64, voting.Option) {
	pos := r.t.LatestPositions()
	var ballots []voting.Ballot
	for _, p := range r.participants {
		if s, ok := pos[p.Name]; ok {
			ballots = append(ballots, voting.Ballot{Agent: p.Name, Weight: p.Weight, Vote: s.Vote})
		}
	}
	t := voting.Count(ballots, r.e.thresholds)
	return t.Score, t.Winner
}

// settledForOneSide reports whether the round raised disputes and every one of them was settled
// the same way: all conceded to the challengers, or all upheld for their authors.
func settledForOneSide(points []Point, round []Argument) bool {
	inRound := map[string]bool{}
	for _, a := range round {
		if a.Phase == PhaseRebuttal {
			inRound[a.Target] = true
		}
	}
	side := ""
	for _, p := range points {
		if !inRound[p.Target] {
			continue
		}
		if !p.Agreed {
			return false
		}
		s := "author"
		if p.Winner != p.Author {
			s = "challengers"
		}
		if side != "" && s != side {
			return false
		}
		side = s
	}
	return side != ""
}

// repetition measures how much of a's text its author said in earlier rounds (seed 002 compares
// with the previous round; the openings come before the first): the share of a's word pairs
// found in those arguments, and the one that shares most. Two arguments of the same round, each
// answering another point, do not repeat each other.
func repetition(a *Argument, earlier []Argument, inLoop func(PhaseKind) bool) *Repetition {
	mine := shingles(argumentText(a))
	if len(mine) == 0 {
		return nil
	}
	all := map[string]bool{}
	best, bestN := "", 0
	for i := range earlier {
		e := &earlier[i]
		if e.Agent != a.Agent || (inLoop(e.Phase) && e.Round >= a.Round) {
			continue
		}
		theirs := shingles(argumentText(e))
		n := 0
		for s := range mine {
			if theirs[s] {
				n++
				all[s] = true
			}
		}
		if n > bestN {
			best, bestN = e.ID, n
		}
	}
	if best == "" {
		return nil
	}
	return &Repetition{Of: best, Share: voting.Round2(float64(len(all)) / float64(len(mine)))}
}

// argumentText is what an argument says in its own words: claim, grounds, warrant and limit
// (not a steelman, which restates another's argument).
func argumentText(a *Argument) string {
	parts := []string{a.Claim, a.Warrant, a.Limit}
	for _, g := range a.Grounds {
		parts = append(parts, g.Text)
	}
	return strings.Join(parts, " ")
}

// shingles are the text's pairs of consecutive words, lower-cased; a one-word text is its word.
func shingles(s string) map[string]bool {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := map[string]bool{}
	if len(words) == 1 {
		out[words[0]] = true
	}
	for i := 0; i+1 < len(words); i++ {
		out[words[i]+" "+words[i+1]] = true
	}
	return out
}
