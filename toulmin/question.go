package toulmin

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/voting"
)

// Synthesis confidence levels of a design question (seed 002).
const (
	ConfidenceHigh   = "High"
	ConfidenceMedium = "Medium"
	ConfidenceLow    = "Low"
)

// questionSynthesis writes seed 002's synthesis document of a design question from what the
// debate recorded: each seated stakeholder's arguments and accepted trade-offs, what the
// maintainers' syntheses (or, without them, the stances) agree on and pull apart over, and a
// recommendation whose confidence follows the consensus and the convergence. It reads only the
// transcript, so that model-backed and offline debates get the same document.
func (r *run) questionSynthesis(out voting.Outcome, convergence float64) *voting.SynthesisDocument {
	q := &questionDraft{
		r: r, positions: r.t.LatestPositions(), lead: -1, seen: map[string]bool{},
		doc: &voting.SynthesisDocument{Question: r.subject.Question},
	}
	for _, p := range r.participants {
		if !p.Role.IsMaintainer() {
			q.stakeholders = append(q.stakeholders, p)
		}
	}
	q.perspectives()
	resolution := q.syntheses()
	q.stances(out)
	q.recommend(out, resolution)
	q.confidence(out, convergence)
	q.caveats(out)
	q.dissent(out)
	return q.doc
}

// questionDraft is the synthesis document of a design question as its stages fill it in, with
// what the stages share: the latest stances, the seated stakeholders in the panel's order, the
// lead perspective (an index into stakeholders, -1 before one is found) and the lines already
// written (a line appears once in the whole document).
type questionDraft struct {
	r            *run
	doc          *voting.SynthesisDocument
	positions    map[string]Position
	stakeholders []Participant
	lead         int
	seen         map[string]bool
}

// add appends s to list unless it is empty or already written anywhere in the document.
func (q *questionDraft) add(list *[]string, s string) {
	s = strings.TrimSpace(s)
	if s != "" && !q.seen[s] {
		q.seen[s] = true
		*list = append(*list, s)
	}
}

// perspectives writes each stakeholder's view (its arguments not conceded, else its stance's
// reason, and its trade-offs) and picks the lead perspective: the stakeholder that engaged most
// of the question from its own perspective (ties: the panel's order); its recommendation is the
// one synthesised.
func (q *questionDraft) perspectives() {
	t := q.r.t
	for i, p := range q.stakeholders {
		pos, ok := q.positions[p.Name]
		if !ok {
			continue
		}
		view := voting.PerspectiveView{Agent: p.Name, Title: p.Title, TradeOffs: append([]string(nil), pos.TradeOffs...)}
		for _, a := range t.Arguments {
			if a.Agent == p.Name && a.Phase != PhaseSynthesis && !t.Conceded(a.ID) {
				view.KeyArguments = append(view.KeyArguments, a.Claim)
			}
		}
		if len(view.KeyArguments) == 0 && pos.Reason != "" {
			view.KeyArguments = []string{pos.Reason}
		}
		q.doc.Perspectives = append(q.doc.Perspectives, view)
		if q.lead < 0 || len(pos.Engaged) > len(q.positions[q.stakeholders[q.lead].Name].Engaged) {
			q.lead = i
		}
	}
}

// syntheses writes what the maintainers' syntheses agree on and pull apart over (they come
// before what the stances say) and returns the first synthesis's resolution, if any.
func (q *questionDraft) syntheses() (resolution string) {
	for _, a := range q.r.t.ArgumentsIn(PhaseSynthesis) {
		if a.Synthesis == nil {
			continue
		}
		for _, c := range a.Synthesis.ConsensusPoints {
			q.add(&q.doc.Agreement, c)
		}
		for _, c := range a.Synthesis.Conflicts {
			q.add(&q.doc.Tensions, c)
		}
		if resolution == "" {
			resolution = a.Synthesis.Resolution
		}
	}
	return resolution
}

// stances writes the agreement and the tensions that follow from the stances: the stakeholders
// that voted for the outcome together, each pair that voted apart or was seated opposed, and
// each point of the debate left unagreed.
func (q *questionDraft) stances(out voting.Outcome) {
	byVote := map[voting.Option][]string{}
	for _, p := range q.stakeholders {
		if pos, ok := q.positions[p.Name]; ok {
			byVote[pos.Vote] = append(byVote[pos.Vote], p.Title)
		}
	}
	if names := byVote[out.Tally.Winner]; len(names) > 1 {
		q.add(&q.doc.Agreement, fmt.Sprintf("%s agree: %s", strings.Join(names, ", "), agreementOn(out.Tally.Winner)))
	}
	for i, p := range q.stakeholders {
		for _, o := range q.stakeholders[i+1:] {
			pp, okp := q.positions[p.Name]
			po, oko := q.positions[o.Name]
			if !okp || !oko || (pp.Vote == po.Vote && !q.r.opposed(p, o)) {
				continue
			}
			q.add(&q.doc.Tensions, fmt.Sprintf("%s vs %s: %s against %s", p.Title, o.Title, first(pp.Priorities, pp.Reason), first(po.Priorities, po.Reason)))
		}
	}
	for _, pt := range q.r.t.Points {
		if !pt.Agreed {
			q.add(&q.doc.Tensions, "Unresolved: "+pt.Point)
		}
	}
}

// recommend writes the recommendation: the maintainers' resolution, else the lead perspective's
// reason, else that no perspective took a stance.
func (q *questionDraft) recommend(out voting.Outcome, resolution string) {
	switch {
	case resolution != "":
		q.doc.Recommendation = resolution
	case q.lead >= 0:
		p := q.stakeholders[q.lead]
		pos := q.positions[p.Name]
		q.doc.Recommendation = fmt.Sprintf("%s (the view of %s, which engaged most of the question)", pos.Reason, p.Title)
	default:
		q.doc.Recommendation = fmt.Sprintf("no perspective gave a stance; the debate's outcome is %s", out.Decision)
	}
}

// confidence rates the recommendation: Low when escalated or without consensus, High only for a
// strong consensus that converged and was argued by a model, Medium otherwise.
func (q *questionDraft) confidence(out voting.Outcome, convergence float64) {
	switch {
	case out.Decision == voting.Escalate || out.Tally.Level == voting.LevelNone:
		q.doc.Confidence = ConfidenceLow
	case out.Tally.Level == voting.LevelStrong && convergence >= 0.8 && !q.r.t.Offline:
		q.doc.Confidence = ConfidenceHigh
	default:
		q.doc.Confidence = ConfidenceMedium
	}
}

// caveats writes what the recommendation rests on: an offline debate, each perspective's first
// accepted trade-off, and each escalation.
func (q *questionDraft) caveats(out voting.Outcome) {
	if q.r.t.Offline {
		q.add(&q.doc.Caveats, "argued offline from the perspectives' priorities and trade-offs, without a model to weigh the question's specifics: confidence is at most Medium")
	}
	for _, v := range q.doc.Perspectives {
		if len(v.TradeOffs) > 0 {
			q.add(&q.doc.Caveats, fmt.Sprintf("the recommendation holds only if what %s accepts is acceptable here: it %s", v.Title, v.TradeOffs[0]))
		}
	}
	for _, e := range out.Escalations {
		q.add(&q.doc.Caveats, fmt.Sprintf("escalated (%s): %s", e.Reason, e.Detail))
	}
}

// dissent writes the dissenting view: the most confident stance against the outcome, or else the
// view of the perspective whose trade-offs oppose the lead's.
func (q *questionDraft) dissent(out voting.Outcome) {
	var dissent []Participant
	for _, p := range q.stakeholders {
		if pos, ok := q.positions[p.Name]; ok && pos.Vote != out.Tally.Winner {
			dissent = append(dissent, p)
		}
	}
	sort.SliceStable(dissent, func(i, j int) bool {
		return q.positions[dissent[i].Name].Confidence > q.positions[dissent[j].Name].Confidence
	})
	switch {
	case len(dissent) > 0:
		pos := q.positions[dissent[0].Name]
		q.doc.Dissent = fmt.Sprintf("%s (%s): %s", dissent[0].Title, pos.Vote, pos.Reason)
	case q.lead >= 0:
		lead := q.stakeholders[q.lead]
		for _, o := range q.stakeholders {
			if o.Name != lead.Name && q.r.opposed(lead, o) {
				pos := q.positions[o.Name]
				q.doc.Dissent = fmt.Sprintf("%s agrees but weighs it differently: %s", o.Title, first(pos.Priorities, pos.Reason))
				break
			}
		}
	}
}

// opposed reports whether the moderator seated the two perspectives as a pair whose trade-offs
// oppose.
func (r *run) opposed(a, b Participant) bool {
	if r.t.Panel == nil {
		return false
	}
	return slices.ContainsFunc(r.t.Panel.Opposed, func(p [2]string) bool {
		return p == [2]string{a.Name, b.Name} || p == [2]string{b.Name, a.Name}
	})
}

// agreementOn says what agreeing on a vote means for a design question.
func agreementOn(o voting.Option) string {
	switch o {
	case voting.Approve:
		return "proceed as the question proposes"
	case voting.ApproveWithChanges:
		return "proceed, on the conditions each perspective sets"
	case voting.RequestChanges:
		return "do not proceed as the question proposes"
	}
	return "a human must decide"
}

func first(list []string, fallback string) string {
	if len(list) > 0 {
		return list[0]
	}
	return fallback
}
