package agents

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// PanelChoice says who decides which stakeholders debate a change.
type PanelChoice int

// Panel choices.
const (
	// PanelAsGiven seats every agent given, and the transcript says nothing of a choice.
	PanelAsGiven PanelChoice = iota
	// PanelModerated has the moderator seat 2 to 4 stakeholders of the catalog (seed 002).
	PanelModerated
	// PanelConfigured seats the stakeholders debatebot.yml lists, and the transcript says the
	// configured list won over the moderator.
	PanelConfigured
)

// NewModerator returns the moderator of a panel of agents: by rules over the change, or, when
// the panel is model-backed, one model call whose choice the same rules check (a failed or
// unusable call falls back to the rules, with a note).
func NewModerator(agents []toulmin.Agent) toulmin.Moderator {
	var ps []Perspective
	var model *LLMAgent
	for _, a := range agents {
		switch a := a.(type) {
		case *OfflineAgent:
			ps = append(ps, a.persp)
		case *LLMAgent:
			ps = append(ps, a.persp)
			if model == nil && !a.p.Role.IsMaintainer() {
				model = a
			}
		}
	}
	rules := NewRuleModerator(ps)
	if model != nil {
		return &llmModerator{a: model, rules: rules}
	}
	return rules
}

// configuredPanel seats every stakeholder it is given: debatebot.yml's list wins.
type ConfiguredPanel struct{}

// Seat implements toulmin.Moderator.
func (ConfiguredPanel) Seat(_ context.Context, req *toulmin.SeatRequest) (*toulmin.Panel, error) {
	p := &toulmin.Panel{Method: toulmin.PanelConfigured}
	for _, c := range req.Candidates {
		p.Seated = append(p.Seated, voting.Seat{Agent: c.Name, Reason: "listed in stakeholders: of debatebot.yml, which wins over the moderator"})
	}
	if len(p.Seated) > req.Max {
		// The bounds are the moderator's; a configured list is taken whole.
		p.Notes = append(p.Notes, fmt.Sprintf("the configured list seats %d stakeholders, more than the moderator's %d", len(p.Seated), req.Max))
	}
	return p, nil
}

// RuleModerator seats stakeholders by rules over the change: each perspective's evidence weighed
// by severity, the paths and languages it names, and its keywords in the change's text; then it
// makes sure that at least two seated perspectives have opposing trade-offs.
type RuleModerator struct {
	catalog map[string]Perspective
}

// NewRuleModerator returns a moderator over the perspectives (stakeholders and maintainers; it
// seats only stakeholders).
func NewRuleModerator(ps []Perspective) *RuleModerator {
	m := &RuleModerator{catalog: map[string]Perspective{}}
	for _, p := range ps {
		m.catalog[p.Name] = p
	}
	return m
}

// Severity weights of evidence when the moderator ranks perspectives.
var seatWeight = map[voting.Severity]float64{
	voting.SeverityInfo: 0.5, voting.SeverityLow: 1, voting.SeverityMedium: 2, voting.SeverityHigh: 4, voting.SeverityCritical: 8,
}

type candidate struct {
	p       Perspective
	title   string
	order   int
	score   float64
	reasons []string
}

// Seat implements toulmin.Moderator.
func (m *RuleModerator) Seat(_ context.Context, req *toulmin.SeatRequest) (*toulmin.Panel, error) {
	cands := m.rank(req)
	seated, left, notes := choose(cands, req.Min, req.Max)
	panel := &toulmin.Panel{Method: "rules", Notes: notes}
	seatAll(panel, seated, left)
	return panel, nil
}

// rank scores every candidate, the highest first (the catalog's order among equals).
func (m *RuleModerator) rank(req *toulmin.SeatRequest) []*candidate {
	c, _ := req.Subject.Data.(*change.Change)
	if c == nil {
		c = &change.Change{}
	}
	words := textWords(req.Subject.Title, req.Subject.Question, c.Title, c.Body, filePaths(c))
	var out []*candidate
	for i, part := range req.Candidates {
		p, ok := m.catalog[part.Name]
		if !ok {
			p = Perspective{Name: part.Name, Title: part.Title, Summary: part.Perspective}
		}
		cand := &candidate{p: p, title: part.Title, order: i}
		cand.weighEvidence(req.Evidence)
		cand.weighChange(c, words)
		out = append(out, cand)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].order < out[j].order
	})
	return out
}

func (c *candidate) weighEvidence(ev []toulmin.Evidence) {
	scope := c.p.Evidence
	if len(scope) == 0 {
		scope = []string{c.p.Name}
	}
	var worst, check *toulmin.Evidence
	n := 0
	for i := range ev {
		e := &ev[i]
		if !containsName(scope, e.Stakeholder) || !matchesAny(c.p.Paths, e.Path) {
			continue
		}
		if e.Rule == rules.RuleMitigation {
			// A check the change adds is what this perspective rebuts another's finding with.
			if check == nil {
				check = e
				c.score += seatWeight[voting.SeverityInfo]
			}
			continue
		}
		n++
		c.score += seatWeight[e.Severity]
		if worst == nil || e.Severity.Rank() > worst.Severity.Rank() {
			worst = e
		}
	}
	if worst != nil {
		where := ""
		if worst.Path != "" {
			where = " at " + worst.Location()
		}
		c.reasons = append(c.reasons, fmt.Sprintf("%d evidence item(s) of its perspective, the worst %s (%s%s)", n, worst.Severity, worst.Rule, where))
	}
	if check != nil {
		c.reasons = append(c.reasons, fmt.Sprintf("the change adds a check that weakens a finding (%s at %s)", check.Mitigates, check.Location()))
	}
}

func (c *candidate) weighChange(ch *change.Change, words wordSet) {
	if len(c.p.Paths) > 0 {
		for _, f := range ch.Files {
			if matchesAny(c.p.Paths, f.Path) {
				c.score += 3
				c.reasons = append(c.reasons, fmt.Sprintf("the change touches %s (%s)", f.Path, strings.Join(c.p.Paths, ", ")))
				break
			}
		}
	}
	if len(c.p.Languages) > 0 {
		var langs []string
		for _, f := range ch.Files {
			if l := change.LanguageOf(f.Path); l != "" && containsName(c.p.Languages, l) && !containsName(langs, l) {
				langs = append(langs, l)
			}
		}
		if len(langs) > 0 {
			c.score++
			c.reasons = append(c.reasons, "the change has "+strings.Join(langs, ", ")+" files")
		}
	}
	var hits []string
	for _, k := range c.p.Keywords {
		if words.has(k) {
			hits = append(hits, k)
		}
	}
	if len(hits) > 0 {
		c.score += min(0.5*float64(len(hits)), 2)
		c.reasons = append(c.reasons, "the change mentions "+strings.Join(evidence.LimitNames(hits, 4), ", "))
	}
}

// choose seats the best-ranked candidates with a reason to be seated, up to max; fills up to
// min, preferring a perspective that opposes those seated; and, when no two seated perspectives
// oppose each other, seats (or swaps in) the best one that opposes them.
func choose(ranked []*candidate, least, most int) (seated, left []*candidate, notes []string) {
	for _, c := range ranked {
		if c.score > 0 && len(seated) < most {
			seated = append(seated, c)
		}
	}
	return complete(seated, ranked, least, most)
}

// complete fills a choice up to least and makes sure it holds opposing trade-offs, taking
// candidates in rank order; the rest are left, each with why.
func complete(seated, ranked []*candidate, least, most int) (_, left []*candidate, notes []string) {
	least = min(least, len(ranked))
	rest := map[*candidate]bool{}
	for _, c := range ranked {
		if !slices.Contains(seated, c) {
			rest[c] = true
		}
	}
	next := func(prefer func(*candidate) bool) *candidate {
		for _, c := range ranked {
			if rest[c] && prefer(c) {
				return c
			}
		}
		return nil
	}
	opposes := func(c *candidate) bool {
		for _, s := range seated {
			if c.p.OpposedBy(s.p) {
				return true
			}
		}
		return false
	}
	for len(seated) < least {
		c := next(opposes)
		why := "seated to hear at least two perspectives"
		if c != nil && len(seated) > 0 {
			why += "; its trade-offs oppose " + opposedTitles(c, seated)
		}
		if c == nil {
			c = next(func(*candidate) bool { return true })
		}
		delete(rest, c)
		c.reasons = append(c.reasons, why)
		seated = append(seated, c)
	}
	if _, pairs := opposition(seated); len(seated) >= 2 && len(pairs) == 0 {
		if c := next(opposes); c != nil {
			c.reasons = append(c.reasons, "seated so that opposing trade-offs are heard: it opposes "+opposedTitles(c, seated))
			delete(rest, c)
			if len(seated) == most {
				out := seated[len(seated)-1]
				out.reasons = append(out.reasons, "gave its seat to "+c.title+", whose trade-offs oppose the others'")
				rest[out] = true
				seated = seated[:len(seated)-1]
			}
			seated = append(seated, c)
		} else {
			notes = append(notes, "no perspective of the catalog opposes the seated ones' trade-offs")
		}
	}
	for _, c := range ranked {
		if !rest[c] {
			continue
		}
		if len(c.reasons) == 0 {
			c.reasons = append(c.reasons, "nothing in the change calls for it (no evidence, path, language or keyword of its own)")
		} else if c.score > 0 && !strings.Contains(strings.Join(c.reasons, ";"), "gave its seat") {
			c.reasons = append(c.reasons, fmt.Sprintf("ranked below the %d seated", len(seated)))
		}
		left = append(left, c)
	}
	return seated, left, notes
}

// opposition names the pairs of seated perspectives whose trade-offs oppose ("" when there is
// none), and lists them by name.
func opposition(seated []*candidate) (string, [][2]string) {
	var text []string
	var pairs [][2]string
	for i, a := range seated {
		for _, b := range seated[i+1:] {
			if a.p.OpposedBy(b.p) {
				text = append(text, a.title+" against "+b.title)
				pairs = append(pairs, [2]string{a.p.Name, b.p.Name})
			}
		}
	}
	return strings.Join(text, "; "), pairs
}

func opposedTitles(c *candidate, seated []*candidate) string {
	var out []string
	for _, s := range seated {
		if c.p.OpposedBy(s.p) {
			out = append(out, s.title)
		}
	}
	return strings.Join(out, ", ")
}

func containsName(list []string, name string) bool {
	for _, n := range list {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// matchesAny reports whether path matches one of the globs; no globs match everything.
func matchesAny(globs []string, path string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, path); ok {
			return true
		}
	}
	return false
}

func filePaths(c *change.Change) string {
	var b strings.Builder
	for _, f := range c.Files {
		b.WriteString(f.Path)
		b.WriteByte(' ')
	}
	return b.String()
}

// wordSet holds the lower-case words of some texts, for keyword matching.
type wordSet struct {
	set    map[string]bool
	joined string // " w1 w2 ... ", for keywords of several words
}

func textWords(texts ...string) wordSet {
	words := strings.FieldsFunc(strings.ToLower(strings.Join(texts, " ")), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	ws := wordSet{set: map[string]bool{}, joined: " " + strings.Join(words, " ") + " "}
	for _, w := range words {
		ws.set[w] = true
	}
	return ws
}

// has reports whether the keyword is one of the words, or a phrase of them.
func (ws wordSet) has(keyword string) bool {
	k := strings.Join(strings.FieldsFunc(strings.ToLower(keyword), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
	if k == "" {
		return false
	}
	if !strings.Contains(k, " ") {
		return ws.set[k]
	}
	return strings.Contains(ws.joined, " "+k+" ")
}

// seatAll writes the moderator's choice into the panel: the seated and the left-out candidates
// with their reasons, and the opposition among the seated.
func seatAll(panel *toulmin.Panel, seated, left []*candidate) {
	for _, c := range seated {
		panel.Seated = append(panel.Seated, voting.Seat{Agent: c.p.Name, Reason: strings.Join(c.reasons, "; ")})
	}
	for _, c := range left {
		panel.Left = append(panel.Left, voting.Seat{Agent: c.p.Name, Reason: strings.Join(c.reasons, "; ")})
	}
	panel.Opposition, panel.Opposed = opposition(seated)
}
