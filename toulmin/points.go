package toulmin

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/voting"
)

// Point is one disputed point of the debate, a row of seed 003's scoring matrix: an argument
// that was rebutted, or the verdict on the change when the stakeholders' stances differ.
type Point struct {
	// Target is the rebutted argument; empty for the verdict point.
	Target string `json:"target,omitempty" yaml:"target,omitempty"`
	Point  string `json:"point" yaml:"point"`
	// Author holds the argument; Challengers rebutted it. For the verdict point, Sides lists
	// each stance with its holders.
	Author      string   `json:"author,omitempty" yaml:"author,omitempty"`
	Challengers []string `json:"challengers,omitempty" yaml:"challengers,omitempty"`
	Sides       []string `json:"sides,omitempty" yaml:"sides,omitempty"`
	// Agreed is set when both sides ended on the same view of the point.
	Agreed bool `json:"agreed" yaml:"agreed"`
	// State says how the confrontation left the point ("conceded", "accepted within its limit",
	// "maintained by both sides", "escalated", "unanswered", "stances differ").
	State string `json:"state" yaml:"state"`
	// Winner is the agent (or agents, joined) whose side prevailed, or for the verdict point the
	// option that did; Confidence how sure that is; Evidence what decided it.
	Winner     string  `json:"winner" yaml:"winner"`
	Confidence float64 `json:"confidence" yaml:"confidence"`
	Evidence   string  `json:"evidence" yaml:"evidence"`
	// Escalated is set when a challenger escalated the point to a human.
	Escalated bool `json:"escalated,omitempty" yaml:"escalated,omitempty"`
	// severity of the disputed argument, to find the core disagreement.
	severity voting.Severity
}

// Row is the point as the decision record shows it.
func (p Point) Row() voting.ScoringRow {
	return voting.ScoringRow{Point: p.Point, Winner: p.Winner, Confidence: voting.Round2(p.Confidence), Evidence: p.Evidence}
}

// points builds the scoring matrix from the transcript so far and the convergence ratio:
// agreed points over all points, 1 when nothing is disputed.
func (r *run) points() ([]Point, float64) {
	t := r.t
	var out []Point
	seen := map[string]bool{}
	for _, reb := range t.Arguments {
		if reb.Phase != PhaseRebuttal || seen[reb.Target] {
			continue
		}
		seen[reb.Target] = true
		target, ok := t.Argument(reb.Target)
		if !ok {
			continue
		}
		out = append(out, disputed(t, target))
	}
	if v, ok := r.verdictPoint(); ok {
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, 1
	}
	agreed := 0
	for _, p := range out {
		if p.Agreed {
			agreed++
		}
	}
	return out, float64(agreed) / float64(len(out))
}

// disputed follows the confrontation over one rebutted argument: the rebuttals, the author's
// answer (accept, partial, reject) and the challengers' responses (accept, maintain, escalate).
// A point both sides agree on goes to the side that was accepted; any other is weighed.
func disputed(t *Transcript, target *Argument) Point {
	p := Point{Target: target.ID, Point: target.ID + ": " + clip(target.Claim, 120), Author: target.Agent, severity: target.Severity}
	var rebuttals []Argument
	for _, a := range t.RebuttalsOf(target.ID) {
		rebuttals = append(rebuttals, a)
		if !slices.Contains(p.Challengers, a.Agent) {
			p.Challengers = append(p.Challengers, a.Agent)
		}
	}
	answer, answered := t.AnswerTo(target.ID)
	var responses []Argument
	if answered {
		responses = t.ResponsesTo(answer.ID)
	}
	switch {
	case !answered:
		p.State = "unanswered"
	case answer.Answer == AnswerAccept || answer.Resolution == Conceded:
		p.Agreed, p.State = true, "conceded"
		p.Winner = strings.Join(p.Challengers, ", ")
		p.Confidence = bestConfidence(rebuttals)
		p.Evidence = firstGround(rebuttals[0]) + " (" + rebuttals[0].ID + ")"
		return p
	default:
		if p.settle(target, answer, responses) {
			return p
		}
	}
	authorSide := []Argument{*target}
	if answered {
		authorSide = append(authorSide, *answer)
	}
	challengerSide := append(append([]Argument(nil), rebuttals...), responses...)
	p.weigh(target, rebuttals, authorSide, challengerSide)
	return p
}

// settle reads the challengers' responses to the author's answer (each challenger's last one
// counts): if every challenger accepted it, the point is agreed for the author and settle
// reports true; otherwise it only sets the point's state (escalated, not responded to,
// maintained).
func (p *Point) settle(target, answer *Argument, responses []Argument) bool {
	accepted, escalated := 0, false
	for _, c := range p.Challengers {
		var last *Argument
		for i := range responses {
			if responses[i].Agent == c {
				last = &responses[i]
			}
		}
		switch {
		case last == nil:
		case last.Answer == AnswerAccept:
			accepted++
		case last.Answer == AnswerEscalate:
			escalated = true
		}
	}
	switch {
	case escalated:
		p.State, p.Escalated = "escalated", true
	case accepted == len(p.Challengers):
		p.Agreed = true
		p.Winner = target.Agent
		p.Confidence = target.Qualifier.Confidence
		if answer.Answer == AnswerPartial {
			p.State = "accepted within its limit"
			p.Evidence = "limit: " + answer.Limit + " (" + answer.ID + ")"
		} else {
			p.State = "rejection accepted"
			p.Evidence = answer.Warrant + " (" + answer.ID + ")"
		}
		return true
	case len(responses) == 0:
		p.State = string(answer.Answer) + "ed, no response"
		if answer.Answer == AnswerPartial {
			p.State = "partly accepted, no response"
		}
	default:
		p.State = "maintained by both sides"
	}
	return false
}

// weigh decides a point not agreed: technical conflicts are resolved by evidence weight (seed
// 004), each side's arguments weighed by quality times confidence; a tie keeps the argument
// standing.
func (p *Point) weigh(target *Argument, rebuttals, authorSide, challengerSide []Argument) {
	wa, wc := weight(authorSide), weight(challengerSide)
	if wc > wa {
		p.Winner = strings.Join(p.Challengers, ", ")
		p.Evidence = firstGround(rebuttals[0]) + " (" + rebuttals[0].ID + ")"
	} else {
		p.Winner = target.Agent
		p.Evidence = firstGround(*target) + " (" + target.ID + ")"
	}
	if wa+wc > 0 {
		p.Confidence = max(wa, wc) / (wa + wc)
	} else {
		p.Confidence = 0.5
	}
}

// verdictPoint is the change's verdict as a point when the stakeholders' current stances differ:
// the weighted vote of everyone with a stance prevails.
func (r *run) verdictPoint() (Point, bool) {
	pos := r.t.LatestPositions()
	byVote := map[voting.Option][]string{}
	var order []voting.Option
	for _, p := range r.participants {
		s, ok := pos[p.Name]
		if !ok || p.Role.IsMaintainer() {
			continue
		}
		if _, ok := byVote[s.Vote]; !ok {
			order = append(order, s.Vote)
		}
		byVote[s.Vote] = append(byVote[s.Vote], p.Name)
	}
	if len(byVote) < 2 {
		return Point{}, false
	}
	share, leader := r.leading()
	p := Point{Point: "verdict on the change", State: "stances differ", Winner: string(leader), Confidence: share}
	for _, v := range order {
		p.Sides = append(p.Sides, fmt.Sprintf("%s (%s)", v, strings.Join(byVote[v], ", ")))
	}
	p.Point += ": " + strings.Join(p.Sides, " vs ")
	if worst := r.worstStanding(); worst != nil {
		p.Evidence = fmt.Sprintf("%s [%s] %s", worst.ID, worst.Severity, firstGround(*worst))
		p.severity = worst.Severity
	} else {
		p.Evidence = "no verified concern stands"
	}
	return p, true
}

// worstStanding is the most serious standing, verified concern; the first of equals.
func (r *run) worstStanding() *Argument {
	var worst *Argument
	for i := range r.t.Arguments {
		a := &r.t.Arguments[i]
		if a.Phase != PhaseOpening || !r.t.Standing(a) || !a.Quality.Verified() {
			continue
		}
		if worst == nil || a.Severity.Rank() > worst.Severity.Rank() {
			worst = a
		}
	}
	return worst
}

func weight(args []Argument) float64 {
	w := 0.0
	for _, a := range args {
		w += a.Quality.Score * a.Qualifier.Confidence
	}
	return w
}

func bestConfidence(args []Argument) float64 {
	c := 0.0
	for _, a := range args {
		c = max(c, a.Qualifier.Confidence)
	}
	return c
}

// firstGround is the argument's first ground: its citation and text.
func firstGround(a Argument) string {
	if len(a.Grounds) == 0 {
		return clip(a.Claim, 160)
	}
	g := a.Grounds[0]
	text := clip(g.Text, 160)
	if strings.Count(text, "`")%2 == 1 {
		text += "`" // a code span cut short is closed, so that it does not swallow what follows
	}
	if c := g.Citation(); c != "" {
		return c + ": " + text
	}
	return text
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	rs := []rune(strings.TrimSpace(s))
	if len(rs) <= n {
		return string(rs)
	}
	return string(rs[:n-1]) + "…"
}

// escalatedDisputes describes the points a challenger escalated, for the decision.
func escalatedDisputes(points []Point) []string {
	var out []string
	for _, p := range points {
		if p.Escalated {
			out = append(out, fmt.Sprintf("%s: %s holds it, %s escalated", p.Point, p.Author, strings.Join(p.Challengers, ", ")))
		}
	}
	return out
}

// tradeOff writes seed 001's trade-off document for a debate without consensus: the contested
// position, each perspective's stance and concern, the core disagreement, and the assumptions
// behind each side, taken from the arguments themselves. A side that holds a concern assumes its
// warrant, and the more permissive position is right if the concern's rebuttal condition
// ("unless ...") holds; a more permissive side assumes that what it weighs does not block, and
// the more cautious position is right if the concern that side rests on holds.
func (r *run) tradeOff(tally voting.Tally, ballots []voting.Ballot, points []Point) *voting.TradeOff {
	positions := r.t.LatestPositions()
	to := &voting.TradeOff{FinalPosition: fmt.Sprintf("%s, contested: %.0f%% of the weighted vote, not above the %.0f%% consensus threshold",
		tally.Winner, tally.Score*100, r.e.thresholds.Consensus*100)}
	runnerUp := voting.Option("")
	for o, share := range tally.Shares {
		if o != tally.Winner && (runnerUp == "" || share > tally.Shares[runnerUp] || share == tally.Shares[runnerUp] && o < runnerUp) {
			runnerUp = o
		}
	}
	worst := r.worstStanding()
	for _, b := range ballots {
		reason := clip(positions[b.Agent].Reason, 240)
		to.Stances = append(to.Stances, voting.TradeStance{Agent: b.Agent, Vote: b.Vote, Agrees: b.Vote == tally.Winner, Concern: reason})
		other := tally.Winner
		if b.Vote == tally.Winner {
			other = runnerUp
		}
		a := voting.Assumption{Agent: b.Agent, Vote: b.Vote}
		own := r.ownWorst(b.Agent)
		if own == nil && b.Vote != voting.Approve {
			own = worst // a maintainer weighs the stakeholders' concerns
		}
		cautious := other == "" || voting.MoreCautious(b.Vote, other) == b.Vote
		switch {
		case cautious && own != nil:
			a.Assumes = fmt.Sprintf("%s (%s)", strings.TrimSuffix(own.Warrant, "."), own.ID)
			a.OtherSideRight = condition(own)
		case cautious:
			a.Assumes = reason
			a.OtherSideRight = "a concern the debate did not raise holds"
		default:
			a.Assumes = "what its perspective weighs does not block the merge: " + reason
			if worst != nil {
				a.OtherSideRight = fmt.Sprintf("%s holds: %s", worst.ID, clip(worst.Claim, 160))
			} else {
				a.OtherSideRight = "a concern the debate did not verify holds"
			}
		}
		to.Assumptions = append(to.Assumptions, a)
	}
	to.CoreDisagreement = r.coreDisagreement(ballots, points)
	return to
}

// ownWorst is the agent's most serious standing concern (its opening, final or design argument).
func (r *run) ownWorst(agent string) *Argument {
	var worst *Argument
	for i := range r.t.Arguments {
		a := &r.t.Arguments[i]
		if a.Agent != agent || a.Phase == PhaseSynthesis || !r.t.Standing(a) || strings.TrimSpace(a.Warrant) == "" {
			continue
		}
		if worst == nil || a.Severity.Rank() > worst.Severity.Rank() {
			worst = a
		}
	}
	return worst
}

// condition turns an argument's rebuttal condition into what would make the other side right.
func condition(a *Argument) string {
	c := strings.TrimSpace(a.Rebuttal)
	if c == "" {
		return fmt.Sprintf("the finding at %s does not hold as claimed", firstGround(*a))
	}
	lower := strings.ToLower(c)
	for _, p := range []string{"unless ", "if "} {
		if strings.HasPrefix(lower, p) {
			c = c[len(p):]
			break
		}
	}
	return c
}

// coreDisagreement names what could not be resolved: the most serious point still disputed, or
// else the heaviest two stances of the vote and the concern between them.
func (r *run) coreDisagreement(ballots []voting.Ballot, points []Point) string {
	var open []Point
	for _, p := range points {
		if !p.Agreed && p.Target != "" {
			open = append(open, p)
		}
	}
	if len(open) > 0 {
		sort.SliceStable(open, func(i, j int) bool { return open[i].severity.Rank() > open[j].severity.Rank() })
		p := open[0]
		return fmt.Sprintf("%s — %s holds it, %s disputes it (%s)", p.Point, p.Author, strings.Join(p.Challengers, ", "), p.State)
	}
	weights := map[voting.Option]float64{}
	who := map[voting.Option][]string{}
	for _, b := range ballots {
		weights[b.Vote] += b.Weight
		who[b.Vote] = append(who[b.Vote], b.Agent)
	}
	var opts []voting.Option
	for o := range weights {
		opts = append(opts, o)
	}
	sort.Slice(opts, func(i, j int) bool {
		if weights[opts[i]] != weights[opts[j]] {
			return weights[opts[i]] > weights[opts[j]]
		}
		return opts[i] < opts[j]
	})
	if len(opts) < 2 {
		return "no stance reached the consensus threshold"
	}
	what := "how serious the standing concerns are"
	if w := r.worstStanding(); w != nil {
		what = fmt.Sprintf("whether %s (%s, %s) blocks the merge", w.ID, w.Severity, clip(w.Claim, 100))
	}
	return fmt.Sprintf("%s (%s) against %s (%s): %s", opts[0], strings.Join(who[opts[0]], ", "), opts[1], strings.Join(who[opts[1]], ", "), what)
}
