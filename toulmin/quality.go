package toulmin

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// ChangeIndex answers whether a citation points into the change under debate. review.Change
// implements it; a design question with no code has an index with no files.
type ChangeIndex interface {
	// HasPath reports whether path is one of the files of the change.
	HasPath(path string) bool
	// HasLine reports whether path:line is a line shown by the change (added, removed or context).
	HasLine(path string, line int) bool
	// Empty reports whether the change has no files at all (a design question).
	Empty() bool
}

// Criterion names one of seed 004's argument quality criteria.
type Criterion string

// The five criteria of seed 004, and seed 003's steelman requirement, which rebuttals alone
// are held to.
const (
	Specific      Criterion = "specific"
	EvidenceBased Criterion = "evidence_based"
	Actionable    Criterion = "actionable"
	Scoped        Criterion = "scoped"
	Objective     Criterion = "objective"
	Steelmanned   Criterion = "steelman"
)

// Criteria lists seed 004's criteria in its order; a rebuttal is also scored on Steelmanned.
var Criteria = []Criterion{Specific, EvidenceBased, Actionable, Scoped, Objective}

// Check is one criterion's verdict with the reason for it.
type Check struct {
	Criterion Criterion `json:"criterion" yaml:"criterion"`
	Passed    bool      `json:"passed" yaml:"passed"`
	Reason    string    `json:"reason" yaml:"reason"`
}

// Quality is an argument's score on the five criteria (six for a rebuttal).
type Quality struct {
	// Score is the share of criteria passed, 0..1.
	Score  float64 `json:"score" yaml:"score"`
	Checks []Check `json:"checks" yaml:"checks"`
	// BadCitations lists the path:line citations that are not in the change.
	BadCitations []string `json:"bad_citations,omitempty" yaml:"bad_citations,omitempty"`
}

// Points is how many criteria passed.
func (q Quality) Points() int {
	n := 0
	for _, c := range q.Checks {
		if c.Passed {
			n++
		}
	}
	return n
}

// Passed reports whether the named criterion passed.
func (q Quality) Passed(c Criterion) bool {
	for _, ch := range q.Checks {
		if ch.Criterion == c {
			return ch.Passed
		}
	}
	return false
}

// Verified reports whether every citation of the argument was found in the change.
func (q Quality) Verified() bool { return q.Passed(EvidenceBased) }

// subjective marks wording that states a preference rather than a reason.
var subjective = regexp.MustCompile(`(?i)\b(i (?:don't |do not )?(?:like|prefer|feel|think)|personally|ugly|beautiful|gross|hate|love|obviously|clearly (?:bad|wrong)|in my opinion|looks (?:bad|weird|wrong)|feels (?:wrong|off))\b`)

// Score rates the argument against the five criteria of seed 004 using idx to check citations,
// and a rebuttal also on whether it first states the strongest form of what it answers.
func Score(a *Argument, idx ChangeIndex) Quality {
	var cited, badLines, outside []string
	for _, g := range a.Grounds {
		if g.Path == "" {
			continue
		}
		c := g.Citation()
		cited = append(cited, c)
		switch {
		case !idx.HasPath(g.Path):
			outside = append(outside, c)
		case g.Line > 0 && !idx.HasLine(g.Path, g.Line):
			// A line of 0 cites the file as a whole (a note about the change, not a line).
			badLines = append(badLines, c)
		}
	}
	bad := append(append([]string{}, outside...), badLines...)
	sort.Strings(bad)
	design := idx.Empty()

	var q Quality
	add := func(c Criterion, ok bool, reason string) {
		q.Checks = append(q.Checks, Check{Criterion: c, Passed: ok, Reason: reason})
	}

	switch {
	case len(cited) > 0:
		add(Specific, true, "cites "+strings.Join(limit(cited, 3), ", "))
	case design && len(a.Grounds) > 0:
		add(Specific, true, "a design question has no lines to cite; grounds are stated")
	default:
		add(Specific, false, "no ground cites a path:line")
	}

	switch {
	case len(a.Grounds) == 0:
		add(EvidenceBased, false, "the argument has no grounds")
	case len(bad) > 0:
		add(EvidenceBased, false, "cites lines that are not in the change: "+strings.Join(limit(bad, 5), ", "))
	case len(cited) > 0:
		add(EvidenceBased, true, fmt.Sprintf("all %d citations are lines of the change", len(cited)))
	case design && len(a.Backing) > 0:
		add(EvidenceBased, true, "backed by a reference")
	default:
		add(EvidenceBased, false, "grounds cite no line of the change and no backing is given")
	}

	if len(a.Actions) > 0 {
		add(Actionable, true, "proposes: "+a.Actions[0].String())
	} else {
		add(Actionable, false, "proposes no concrete change")
	}

	switch {
	case len(outside) > 0:
		add(Scoped, false, "cites files outside the change: "+strings.Join(limit(outside, 5), ", "))
	case len(cited) > 0 || design:
		add(Scoped, true, "stays within the change")
	default:
		add(Scoped, false, "cites no file of the change")
	}

	text := strings.Join([]string{a.Claim, a.Warrant, groundsText(a.Grounds)}, " ")
	switch m := subjective.FindString(text); {
	case m != "":
		add(Objective, false, fmt.Sprintf("states a preference (%q) instead of a reason", m))
	case strings.TrimSpace(a.Warrant) == "" && a.Phase != PhaseClarification && a.Phase != PhaseSynthesis:
		add(Objective, false, "gives no warrant linking grounds to claim")
	default:
		add(Objective, true, "reasons from grounds through a stated warrant")
	}

	if a.Phase == PhaseRebuttal {
		if strings.TrimSpace(a.Steelman) != "" {
			add(Steelmanned, true, "states the strongest form of "+a.Target+" before disputing it")
		} else {
			add(Steelmanned, false, "disputes "+a.Target+" without first stating its strongest form")
		}
	}

	q.Score = float64(q.Points()) / float64(len(q.Checks))
	q.BadCitations = bad
	return q
}

func groundsText(gs []Ground) string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = g.Text
	}
	return strings.Join(parts, " ")
}

func limit(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
}
