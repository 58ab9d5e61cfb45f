// Package toulmin is the debate protocol itself, independent of GitHub and of LLMs: the Toulmin
// argument model with its validation and quality scoring, the phases and protocols as data, and
// the engine that drives Agents through them while recording a transcript.
package toulmin

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/voting"
)

// Evidence is one finding of evidence gathering: what an analyzer saw at a place in the change.
type Evidence struct {
	ID          string          `json:"id" yaml:"id"`
	Analyzer    string          `json:"analyzer" yaml:"analyzer"`
	Rule        string          `json:"rule" yaml:"rule"`
	Stakeholder string          `json:"stakeholder" yaml:"stakeholder"`
	Severity    voting.Severity `json:"severity" yaml:"severity"`
	Path        string          `json:"path" yaml:"path"`
	Line        int             `json:"line" yaml:"line"`
	Message     string          `json:"message" yaml:"message"`
	// Snippet is the source line the finding is about, secrets redacted.
	Snippet string `json:"snippet,omitempty" yaml:"snippet,omitempty"`
	// Mitigates names the rule of a finding this item weakens (e.g. a path check added next to a
	// file access); empty for findings.
	Mitigates string `json:"mitigates,omitempty" yaml:"mitigates,omitempty"`
	// Replacement is the finding's whole line as it reads once fixed, when the analyzer knows the
	// fix exactly (a constant turned back); a review comment offers it as a suggestion.
	Replacement string `json:"replacement,omitempty" yaml:"replacement,omitempty"`
	// Fingerprint identifies the finding on its code, whatever line the code moves to: its rule,
	// file and the normalised text of the cited line and its neighbours (see scan.Fingerprint).
	// A maintainer's dismissal is kept by it; empty for evidence gathered before it existed.
	Fingerprint string `json:"fingerprint,omitempty" yaml:"fingerprint,omitempty"`
	// Fix is the edit the analyzer proposes, as whole lines of the head replaced, checked to
	// apply to the head inside one hunk of the diff; a review comment offers it as a suggestion.
	Fix *Fix `json:"fix,omitempty" yaml:"fix,omitempty"`
}

// Fix replaces the lines From..To (1-based, inclusive) of the cited file at the head by Text:
// whole lines, each ending in a newline; an empty Text deletes the lines.
type Fix struct {
	From int    `json:"from" yaml:"from"`
	To   int    `json:"to" yaml:"to"`
	Text string `json:"text" yaml:"text"`
}

// Location is "path:line", or the path alone when there is no line.
func (e Evidence) Location() string { return Cite(e.Path, e.Line) }

// Cite formats a citation as path:line.
func Cite(path string, line int) string {
	if line <= 0 {
		return path
	}
	return path + ":" + strconv.Itoa(line)
}

// Ground is one fact an argument rests on, tied to a place in the change.
type Ground struct {
	Path string `json:"path,omitempty" yaml:"path,omitempty"`
	Line int    `json:"line,omitempty" yaml:"line,omitempty"`
	Text string `json:"text" yaml:"text"`
}

// Citation is the ground's path:line, or "" when it cites no place.
func (g Ground) Citation() string {
	if g.Path == "" {
		return ""
	}
	return Cite(g.Path, g.Line)
}

// Backing supports a warrant with an authoritative reference or further evidence.
type Backing struct {
	Reference string `json:"reference,omitempty" yaml:"reference,omitempty"`
	Evidence  string `json:"evidence,omitempty" yaml:"evidence,omitempty"`
}

// Qualifier says how strongly the claim is held.
type Qualifier struct {
	Confidence float64 `json:"confidence" yaml:"confidence"`
	Text       string  `json:"text,omitempty" yaml:"text,omitempty"`
}

// String renders the qualifier as seed 004 writes it: "High confidence (95%)".
func (q Qualifier) String() string {
	word := "Low"
	switch {
	case q.Confidence >= 0.8:
		word = "High"
	case q.Confidence >= 0.5:
		word = "Medium"
	}
	s := fmt.Sprintf("%s confidence (%.0f%%)", word, q.Confidence*100)
	if q.Text != "" {
		s += ": " + q.Text
	}
	return s
}

// Action is a concrete change an argument proposes.
type Action struct {
	Text     string `json:"text" yaml:"text"`
	Path     string `json:"path,omitempty" yaml:"path,omitempty"`
	Line     int    `json:"line,omitempty" yaml:"line,omitempty"`
	Required bool   `json:"required" yaml:"required"`
	// Fix is the edit itself, when the agent proposed one that applies to the head at Path
	// (Line is one of its lines).
	Fix *Fix `json:"fix,omitempty" yaml:"fix,omitempty"`
}

// String ties the action to its path:line when it has one.
func (a Action) String() string {
	if a.Path == "" {
		return a.Text
	}
	return Cite(a.Path, a.Line) + ": " + a.Text
}

// Resolution is how an agent answers a rebuttal of its argument in clarification.
type Resolution string

// Resolutions.
const (
	Maintained Resolution = "maintained"
	Conceded   Resolution = "conceded"
)

// Answer is a move of the confrontation (seed 001): the author of a rebutted argument answers
// the rebuttal in clarification (accept, partial or reject), and the challenger answers that in
// the response phase (accept, maintain or escalate).
type Answer string

// Answers of the author, in clarification.
const (
	// AnswerAccept concedes the rebuttal: the argument no longer stands.
	AnswerAccept Answer = "accept"
	// AnswerPartial accepts part of the rebuttal: the argument stands within the limit the
	// answer states.
	AnswerPartial Answer = "partial"
	// AnswerReject holds the argument against the rebuttal, saying why.
	AnswerReject Answer = "reject"
)

// Answers of the challenger, in the response phase.
const (
	// AnswerMaintain holds the rebuttal against the author's answer: the point stays disputed.
	AnswerMaintain Answer = "maintain"
	// AnswerEscalate holds the rebuttal and asks a human to settle the point: the decision
	// escalates.
	AnswerEscalate Answer = "escalate"
)

// ofAuthor reports whether the answer is one an author gives in clarification.
func (a Answer) ofAuthor() bool { return a == AnswerAccept || a == AnswerPartial || a == AnswerReject }

// ofChallenger reports whether the answer is one a challenger gives in the response phase.
func (a Answer) ofChallenger() bool {
	return a == AnswerAccept || a == AnswerMaintain || a == AnswerEscalate
}

// Position is a participant's stance at the end of a phase: a vote with what it would take.
type Position struct {
	Vote       voting.Option `json:"vote" yaml:"vote"`
	Confidence float64       `json:"confidence" yaml:"confidence"`
	// Reason says why the stance is what it is (and, when it changed, why it changed).
	Reason     string   `json:"reason" yaml:"reason"`
	Priorities []string `json:"priorities,omitempty" yaml:"priorities,omitempty"`
	TradeOffs  []string `json:"trade_offs,omitempty" yaml:"trade_offs,omitempty"`
	// Engaged says what from the agent's own perspective it examined in the change. An opening
	// that agrees without an argument and without this is no substantive agreement (seed 001's
	// skepticism): it is treated as partial and blocks the fast exit.
	Engaged []string `json:"engaged,omitempty" yaml:"engaged,omitempty"`
}

// Synthesis is a maintainer's review of the whole debate (seed 004, phase 6).
type Synthesis struct {
	ConsensusPoints []string `json:"consensus_points" yaml:"consensus_points"`
	Conflicts       []string `json:"conflicts" yaml:"conflicts"`
	Resolution      string   `json:"resolution" yaml:"resolution"`
}

// Argument is one contribution to a debate in the Toulmin form. Opening and final arguments,
// rebuttals, clarifications and syntheses share it; the phase-specific parts are optional.
type Argument struct {
	ID    string    `json:"id" yaml:"id"`
	Agent string    `json:"agent" yaml:"agent"`
	Phase PhaseKind `json:"phase" yaml:"phase"`
	Round int       `json:"round" yaml:"round"`
	// Target is the ID of the argument this one answers (rebuttals and clarifications).
	Target string `json:"target,omitempty" yaml:"target,omitempty"`

	Claim     string    `json:"claim" yaml:"claim"`
	Grounds   []Ground  `json:"grounds" yaml:"grounds"`
	Warrant   string    `json:"warrant" yaml:"warrant"`
	Backing   []Backing `json:"backing,omitempty" yaml:"backing,omitempty"`
	Qualifier Qualifier `json:"qualifier" yaml:"qualifier"`
	// Rebuttal is the condition under which the claim would not hold ("unless ...").
	Rebuttal string `json:"rebuttal,omitempty" yaml:"rebuttal,omitempty"`
	// Steelman is, in a rebuttal, the strongest form of the argument it answers, stated before
	// it is disputed (seed 003); a rebuttal without one loses a quality point.
	Steelman string `json:"steelman,omitempty" yaml:"steelman,omitempty"`

	Severity voting.Severity `json:"severity,omitempty" yaml:"severity,omitempty"`
	Actions  []Action        `json:"actions,omitempty" yaml:"actions,omitempty"`
	// Rule names the evidence rule the argument is built on, when it is.
	Rule string `json:"rule,omitempty" yaml:"rule,omitempty"`

	Resolution Resolution `json:"resolution,omitempty" yaml:"resolution,omitempty"`
	// Answer is the confrontation move of a clarification (accept, partial, reject) or of a
	// response (accept, maintain, escalate); Limit is, for a partial answer, where what is
	// accepted ends.
	Answer    Answer     `json:"answer,omitempty" yaml:"answer,omitempty"`
	Limit     string     `json:"limit,omitempty" yaml:"limit,omitempty"`
	Synthesis *Synthesis `json:"synthesis,omitempty" yaml:"synthesis,omitempty"`
	// Template holds the seed 004 template fields of a security, performance or architecture
	// concern, for the transcript.
	Template *Template `json:"template,omitempty" yaml:"template,omitempty"`

	// Quality is computed by the engine when the argument is recorded.
	Quality Quality `json:"quality" yaml:"quality"`
	// Repeats is set by the engine on an argument of a round that repeats its author's earlier
	// text; such an argument does not count as new ground.
	Repeats *Repetition `json:"repeats,omitempty" yaml:"repeats,omitempty"`
}

// Repetition says how much of an argument's text its author had already said, and where most.
type Repetition struct {
	// Of is the author's earlier argument the text overlaps most.
	Of string `json:"of" yaml:"of"`
	// Share is the part of the argument's word pairs found in the author's earlier arguments.
	Share float64 `json:"share" yaml:"share"`
}

// Template kinds of seed 004.
const (
	TemplateSecurity     = "security"
	TemplatePerformance  = "performance"
	TemplateArchitecture = "architecture"
)

// Template is a concern in the form of one of seed 004's templates: a security concern (type,
// severity, location, attack vector, impact, mitigation), a performance one (metric, expected
// change, complexity) or an architecture one (principle, pattern impact, refactoring). Severity
// and location are the argument's own.
type Template struct {
	Kind string `json:"kind" yaml:"kind"`
	// Security.
	Type         string `json:"type,omitempty" yaml:"type,omitempty"`
	AttackVector string `json:"attack_vector,omitempty" yaml:"attack_vector,omitempty"`
	Impact       string `json:"impact,omitempty" yaml:"impact,omitempty"`
	Mitigation   string `json:"mitigation,omitempty" yaml:"mitigation,omitempty"`
	// Performance.
	Metric         string `json:"metric,omitempty" yaml:"metric,omitempty"`
	ExpectedChange string `json:"expected_change,omitempty" yaml:"expected_change,omitempty"`
	Complexity     string `json:"complexity,omitempty" yaml:"complexity,omitempty"`
	// Architecture.
	Principle     string `json:"principle,omitempty" yaml:"principle,omitempty"`
	PatternImpact string `json:"pattern_impact,omitempty" yaml:"pattern_impact,omitempty"`
	Refactoring   string `json:"refactoring,omitempty" yaml:"refactoring,omitempty"`
}

// Normalize reconciles the two ways a clarification can say how it answers a rebuttal: the
// answer of the confrontation (accept, partial, reject) and the resolution the engine counts by
// (conceded, maintained). Whichever is given fills the other; accept is a concession, partial
// and reject maintain the argument. Parts a phase does not use are cleared.
func (a *Argument) Normalize() {
	switch a.Phase {
	case PhaseClarification:
		switch {
		case a.Answer == "" && a.Resolution == Conceded:
			a.Answer = AnswerAccept
		case a.Answer == "" && a.Resolution == Maintained:
			a.Answer = AnswerReject
		case a.Resolution == "" && a.Answer == AnswerAccept:
			a.Resolution = Conceded
		case a.Resolution == "" && (a.Answer == AnswerPartial || a.Answer == AnswerReject):
			a.Resolution = Maintained
		}
	case PhaseResponse:
		a.Resolution = ""
	default:
		a.Answer, a.Resolution = "", ""
	}
	if a.Answer != AnswerPartial {
		a.Limit = ""
	}
	if a.Phase != PhaseRebuttal {
		a.Steelman = ""
	}
}

// FieldError is a validation failure of one field of an argument.
type FieldError struct {
	Argument string
	Field    string
	Problem  string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("argument %q: %s: %s", e.Argument, e.Field, e.Problem)
}

// Validate checks the argument's structure and returns every problem found, each naming the
// argument and the field.
func (a *Argument) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Argument: a.ID, Field: field, Problem: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(a.ID) == "" {
		bad("id", "must not be empty")
	}
	if strings.TrimSpace(a.Agent) == "" {
		bad("agent", "must not be empty")
	}
	if !a.Phase.Valid() {
		bad("phase", "unknown phase %q", a.Phase)
	}
	if strings.TrimSpace(a.Claim) == "" {
		bad("claim", "must not be empty")
	}
	for i, g := range a.Grounds {
		field := fmt.Sprintf("grounds[%d]", i)
		if strings.TrimSpace(g.Text) == "" {
			bad(field+".text", "must not be empty")
		}
		if g.Path == "" && g.Line != 0 {
			bad(field+".path", "a line (%d) is given without a path", g.Line)
		}
		if g.Path != "" && g.Line < 0 {
			// 0 cites the file as a whole (a note about the change, not about one line).
			bad(field+".line", "must be 0 (the whole file) or a line number, got %d", g.Line)
		}
	}
	needsWarrant := a.Phase == PhaseOpening || a.Phase == PhaseRebuttal || a.Phase == PhaseFinal || a.Phase == PhaseDesignReview
	if needsWarrant && strings.TrimSpace(a.Warrant) == "" {
		bad("warrant", "must not be empty in a %s argument", a.Phase)
	}
	if needsWarrant && len(a.Grounds) == 0 {
		bad("grounds", "a %s argument needs at least one ground", a.Phase)
	}
	for i, b := range a.Backing {
		if strings.TrimSpace(b.Reference) == "" && strings.TrimSpace(b.Evidence) == "" {
			bad(fmt.Sprintf("backing[%d]", i), "needs a reference or evidence")
		}
	}
	if a.Qualifier.Confidence < 0 || a.Qualifier.Confidence > 1 {
		bad("qualifier.confidence", "must be between 0 and 1, got %g", a.Qualifier.Confidence)
	}
	if a.Severity != "" && !a.Severity.Valid() {
		bad("severity", "unknown severity %q", a.Severity)
	}
	for i, act := range a.Actions {
		if strings.TrimSpace(act.Text) == "" {
			bad(fmt.Sprintf("actions[%d].text", i), "must not be empty")
		}
	}
	if a.Phase.Answers() && a.Target == "" {
		bad("target", "a %s must name the argument it answers", a.Phase)
	}
	if a.Phase == PhaseClarification {
		if a.Resolution != Maintained && a.Resolution != Conceded {
			bad("resolution", "must be %q or %q, got %q", Maintained, Conceded, a.Resolution)
		}
		switch {
		case a.Answer != "" && !a.Answer.ofAuthor():
			bad("answer", "a clarification answers a rebuttal with %q, %q or %q, got %q", AnswerAccept, AnswerPartial, AnswerReject, a.Answer)
		case (a.Answer == AnswerAccept) != (a.Resolution == Conceded):
			bad("answer", "%q does not agree with resolution %q (accept concedes; partial and reject maintain)", a.Answer, a.Resolution)
		case a.Answer == AnswerPartial && strings.TrimSpace(a.Limit) == "":
			bad("limit", "a partial answer must say where what it accepts ends")
		}
	}
	if a.Phase == PhaseResponse && !a.Answer.ofChallenger() {
		bad("answer", "a response answers with %q, %q or %q, got %q", AnswerAccept, AnswerMaintain, AnswerEscalate, a.Answer)
	}
	if a.Phase == PhaseSynthesis && a.Synthesis == nil {
		bad("synthesis", "a synthesis argument needs consensus points, conflicts and a resolution")
	}
	return errors.Join(errs...)
}
