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
	t := r.t
	positions := t.LatestPositions()
	doc := &voting.SynthesisDocument{Question: r.subject.Question}

	// The lead perspective is the stakeholder that engaged most of the question from its own
	// perspective (ties: the panel's order); its recommendation is the one synthesised.
	var stakeholders []Participant
	for _, p := range r.participants {
		if !p.Role.IsMaintainer() {
			stakeholders = append(stakeholders, p)
		}
	}
	lead := -1
	for i, p := range stakeholders {
		pos, ok := positions[p.Name]
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
		doc.Perspectives = append(doc.Perspectives, view)
		if lead < 0 || len(pos.Engaged) > len(positions[stakeholders[lead].Name].Engaged) {
			lead = i
		}
	}

	// What the maintainers' syntheses say comes first; the rest follows from the stances.
	seen := map[string]bool{}
	add := func(list *[]string, s string) {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	resolution := ""
	for _, a := range t.ArgumentsIn(PhaseSynthesis) {
		if a.Synthesis == nil {
			continue
		}
		for _, c := range a.Synthesis.ConsensusPoints {
			add(&doc.Agreement, c)
		}
		for _, c := range a.Synthesis.Conflicts {
			add(&doc.Tensions, c)
		}
		if resolution == "" {
			resolution = a.Synthesis.Resolution
		}
	}
	byVote := map[voting.Option][]string{}
	for _, p := range stakeholders {
		if pos, ok := positions[p.Name]; ok {
			byVote[pos.Vote] = append(byVote[pos.Vote], p.Title)
		}
	}
	if names := byVote[out.Tally.Winner]; len(names) > 1 {
		add(&doc.Agreement, fmt.Sprintf("%s agree: %s", strings.Join(names, ", "), agreementOn(out.Tally.Winner)))
	}
	for i, p := range stakeholders {
		for _, q := range stakeholders[i+1:] {
			pp, okp := positions[p.Name]
			pq, okq := positions[q.Name]
			if !okp || !okq || (pp.Vote == pq.Vote && !r.opposed(p, q)) {
				continue
			}
			add(&doc.Tensions, fmt.Sprintf("%s vs %s: %s against %s", p.Title, q.Title, first(pp.Priorities, pp.Reason), first(pq.Priorities, pq.Reason)))
		}
	}
	for _, pt := range r.t.Points {
		if !pt.Agreed {
			add(&doc.Tensions, "Unresolved: "+pt.Point)
		}
	}

	switch {
	case resolution != "":
		doc.Recommendation = resolution
	case lead >= 0:
		p := stakeholders[lead]
		pos := positions[p.Name]
		doc.Recommendation = fmt.Sprintf("%s (the view of %s, which engaged most of the question)", pos.Reason, p.Title)
	default:
		doc.Recommendation = fmt.Sprintf("no perspective gave a stance; the debate's outcome is %s", out.Decision)
	}

	switch {
	case out.Decision == voting.Escalate || out.Tally.Level == voting.LevelNone:
		doc.Confidence = ConfidenceLow
	case out.Tally.Level == voting.LevelStrong && convergence >= 0.8 && !t.Offline:
		doc.Confidence = ConfidenceHigh
	default:
		doc.Confidence = ConfidenceMedium
	}
	if t.Offline {
		add(&doc.Caveats, "argued offline from the perspectives' priorities and trade-offs, without a model to weigh the question's specifics: confidence is at most Medium")
	}
	for _, v := range doc.Perspectives {
		if len(v.TradeOffs) > 0 {
			add(&doc.Caveats, fmt.Sprintf("the recommendation holds only if what %s accepts is acceptable here: it %s", v.Title, v.TradeOffs[0]))
		}
	}
	for _, e := range out.Escalations {
		add(&doc.Caveats, fmt.Sprintf("escalated (%s): %s", e.Reason, e.Detail))
	}

	// The dissenting view: the most confident stance against the outcome, or else the view of the
	// perspective whose trade-offs oppose the lead's.
	var dissent []Participant
	for _, p := range stakeholders {
		if pos, ok := positions[p.Name]; ok && pos.Vote != out.Tally.Winner {
			dissent = append(dissent, p)
		}
	}
	sort.SliceStable(dissent, func(i, j int) bool {
		return positions[dissent[i].Name].Confidence > positions[dissent[j].Name].Confidence
	})
	switch {
	case len(dissent) > 0:
		pos := positions[dissent[0].Name]
		doc.Dissent = fmt.Sprintf("%s (%s): %s", dissent[0].Title, pos.Vote, pos.Reason)
	case lead >= 0:
		for _, q := range stakeholders {
			if q.Name != stakeholders[lead].Name && r.opposed(stakeholders[lead], q) {
				pos := positions[q.Name]
				doc.Dissent = fmt.Sprintf("%s agrees but weighs it differently: %s", q.Title, first(pos.Priorities, pos.Reason))
				break
			}
		}
	}
	return doc
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
