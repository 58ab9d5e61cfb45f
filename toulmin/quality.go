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
	c := cite(a, idx)
	design := idx.Empty()
	q := Quality{Checks: []Check{
		specific(a, c, design),
		evidenceBased(a, c, design),
		actionable(a),
		scoped(c, design),
		objective(a),
	}}
	if a.Phase == PhaseRebuttal {
		q.Checks = append(q.Checks, steelmanned(a))
	}
	q.Score = float64(q.Points()) / float64(len(q.Checks))
	q.BadCitations = c.bad
	return q
}

// citations are an argument's grounds checked against the change.
type citations struct {
	// cited lists the citation of every ground that names a path.
	cited []string
	// outside lists those whose file is not in the change; bad those and the ones whose line
	// is not in the change, sorted.
	outside, bad []string
}

// cite checks the citations of a's grounds against idx. A line of 0 cites the file as a whole
// (a note about the change, not a line).
func cite(a *Argument, idx ChangeIndex) citations {
	var c citations
	var badLines []string
	for _, g := range a.Grounds {
		if g.Path == "" {
			continue
		}
		at := g.Citation()
		c.cited = append(c.cited, at)
		switch {
		case !idx.HasPath(g.Path):
			c.outside = append(c.outside, at)
		case g.Line > 0 && !idx.HasLine(g.Path, g.Line):
			badLines = append(badLines, at)
		}
	}
	c.bad = append(append([]string{}, c.outside...), badLines...)
	sort.Strings(c.bad)
	return c
}

// specific checks that the argument cites a path:line, or on a design question (no lines to
// cite) that it states grounds.
func specific(a *Argument, c citations, design bool) Check {
	switch {
	case len(c.cited) > 0:
		return Check{Specific, true, "cites " + strings.Join(limit(c.cited, 3), ", ")}
	case design && len(a.Grounds) > 0:
		return Check{Specific, true, "a design question has no lines to cite; grounds are stated"}
	default:
		return Check{Specific, false, "no ground cites a path:line"}
	}
}

// evidenceBased checks that the argument has grounds and that all its citations are lines of
// the change, or on a design question that it is backed by a reference.
func evidenceBased(a *Argument, c citations, design bool) Check {
	switch {
	case len(a.Grounds) == 0:
		return Check{EvidenceBased, false, "the argument has no grounds"}
	case len(c.bad) > 0:
		return Check{EvidenceBased, false, "cites lines that are not in the change: " + strings.Join(limit(c.bad, 5), ", ")}
	case len(c.cited) > 0:
		return Check{EvidenceBased, true, fmt.Sprintf("all %d citations are lines of the change", len(c.cited))}
	case design && len(a.Backing) > 0:
		return Check{EvidenceBased, true, "backed by a reference"}
	default:
		return Check{EvidenceBased, false, "grounds cite no line of the change and no backing is given"}
	}
}

// actionable checks that the argument proposes a concrete change.
func actionable(a *Argument) Check {
	if len(a.Actions) > 0 {
		return Check{Actionable, true, "proposes: " + a.Actions[0].String()}
	}
	return Check{Actionable, false, "proposes no concrete change"}
}

// scoped checks that the argument cites only files of the change.
func scoped(c citations, design bool) Check {
	switch {
	case len(c.outside) > 0:
		return Check{Scoped, false, "cites files outside the change: " + strings.Join(limit(c.outside, 5), ", ")}
	case len(c.cited) > 0 || design:
		return Check{Scoped, true, "stays within the change"}
	default:
		return Check{Scoped, false, "cites no file of the change"}
	}
}

// objective checks that the argument reasons rather than states a preference, and (outside
// clarification and synthesis) gives a warrant linking its grounds to its claim.
func objective(a *Argument) Check {
	text := strings.Join([]string{a.Claim, a.Warrant, groundsText(a.Grounds)}, " ")
	switch m := subjective.FindString(text); {
	case m != "":
		return Check{Objective, false, fmt.Sprintf("states a preference (%q) instead of a reason", m)}
	case strings.TrimSpace(a.Warrant) == "" && a.Phase != PhaseClarification && a.Phase != PhaseSynthesis:
		return Check{Objective, false, "gives no warrant linking grounds to claim"}
	default:
		return Check{Objective, true, "reasons from grounds through a stated warrant"}
	}
}

// steelmanned checks that a rebuttal states the strongest form of what it disputes first.
func steelmanned(a *Argument) Check {
	if strings.TrimSpace(a.Steelman) != "" {
		return Check{Steelmanned, true, "states the strongest form of " + a.Target + " before disputing it"}
	}
	return Check{Steelmanned, false, "disputes " + a.Target + " without first stating its strongest form"}
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
