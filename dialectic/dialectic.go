package dialectic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/debatebot/debatebot/voting"
)

// Resolution is how the orchestrator resolves a debate.
type Resolution string

// Resolutions (seed 000). Planning debates resolve to PROCEED, MODIFY or ESCALATE; failure
// debates to RETRY, PIVOT or ESCALATE.
const (
	Proceed  Resolution = "PROCEED"
	Modify   Resolution = "MODIFY"
	Retry    Resolution = "RETRY"
	Pivot    Resolution = "PIVOT"
	Escalate Resolution = "ESCALATE"
)

// Type is the kind of debate.
type Type string

// Debate types.
const (
	Planning Type = "planning"
	Failure  Type = "failure"
)

// Stakes of a planning debate.
type Stakes string

// Stakes levels.
const (
	Low    Stakes = "low"
	Medium Stakes = "medium"
	High   Stakes = "high"
)

// MaxAttemptsAfterDebate is the seed's bound: one more attempt after a failure debate, then
// the task escalates without another debate.
const MaxAttemptsAfterDebate = 1

// Attempt is one failed attempt at a task.
type Attempt struct {
	N           int       `json:"attempt"`
	At          time.Time `json:"ts"`
	Fingerprint string    `json:"error"`
	// Message is the error as the failure stated it (untrusted, bounded).
	Message string `json:"message,omitempty"`
	// Head is the commit the attempt ran on.
	Head string `json:"head,omitempty"`
	// Files are the files the error names (paths in annotations or in the error's lines).
	Files []string `json:"files,omitempty"`
}

// FailureRequest is seed 000's DEBATE_FAILURE: the task and its last two attempts, with what
// changed between them.
type FailureRequest struct {
	Task     string    `json:"task"`
	TaskID   string    `json:"task_id"`
	Attempts []Attempt `json:"attempts"`
	// Log holds the failing log's relevant lines (untrusted, bounded).
	Log []string `json:"log,omitempty"`
	// Changed are the files that changed between the two attempts' heads; ChangeKnown says
	// whether they could be read (false: unknown, not "nothing").
	Changed     []string `json:"changed,omitempty"`
	ChangeKnown bool     `json:"change_known"`
	// PullRequestFiles are the files of the whole change under review.
	PullRequestFiles []string `json:"pull_request_files,omitempty"`
	// PreviousPatterns are the patterns earlier failure debates of this task identified.
	PreviousPatterns []string `json:"previous_patterns,omitempty"`
}

// Last returns the latest attempt.
func (r *FailureRequest) Last() Attempt {
	if len(r.Attempts) == 0 {
		return Attempt{}
	}
	return r.Attempts[len(r.Attempts)-1]
}

// FailingFiles are the files the attempts' errors name.
func (r *FailureRequest) FailingFiles() []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range r.Attempts {
		for _, f := range a.Files {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// Validate checks what a failure debate needs.
func (r *FailureRequest) Validate() error {
	if len(r.Attempts) < 2 {
		return fmt.Errorf("a failure debate needs two attempts, got %d", len(r.Attempts))
	}
	return nil
}

// CSP is the request in seed 000's CSP/1 form.
func (r *FailureRequest) CSP() string {
	var atts, errs []string
	for _, a := range r.Attempts {
		atts = append(atts, fmt.Sprintf("%d", a.N))
		errs = append(errs, fmt.Sprintf("%q", a.Fingerprint))
	}
	return fmt.Sprintf("DEBATE_FAILURE REQ:%q ATTEMPTS:[%s] ERRORS:[%s]", r.Task, strings.Join(atts, ", "), strings.Join(errs, ", "))
}

// FailureAdvocacy is the advocate's answer to a failure: DIAGNOSIS, FIX, DIFF_FROM_PREVIOUS.
type FailureAdvocacy struct {
	Diagnosis        string `json:"diagnosis"`
	Fix              string `json:"fix"`
	DiffFromPrevious string `json:"diff_from_previous"`
	// Substantial is the orchestrator's judgment of DIFF_FROM_PREVIOUS (seed 000: a changed
	// approach or a new tool is substantial; a typo fix or a tweak is not).
	Substantial bool `json:"substantial"`
}

// FailureCritique is the critic's answer: PATTERN, BLIND_SPOT, SHOULD_ESCALATE.
type FailureCritique struct {
	Pattern        string `json:"pattern"`
	BlindSpot      string `json:"blind_spot"`
	ShouldEscalate bool   `json:"should_escalate"`
}

// PlanRequest is seed 000's DEBATE REQ.
type PlanRequest struct {
	Proposal string `json:"proposal"`
	Rounds   int    `json:"rounds"`
	Stakes   Stakes `json:"stakes"`
	// Context is what the proposal is about (an issue's or pull request's title), untrusted.
	Context string `json:"context,omitempty"`
}

// CSP is the request in seed 000's CSP/1 form.
func (r *PlanRequest) CSP() string {
	return fmt.Sprintf("DEBATE REQ:%q ROUNDS:%d STAKES:%s", r.Proposal, max(r.Rounds, 1), r.Stakes)
}

// PlanAdvocacy is the advocate's answer to a proposal: CLAIM, SUPPORTS, CONFIDENCE.
type PlanAdvocacy struct {
	Claim      string   `json:"claim"`
	Supports   []string `json:"supports"`
	Confidence float64  `json:"confidence"`
}

// PlanCritique is the critic's answer: OBJECTION, RISKS, COUNTER, with its SEVERITY and
// whether the counter is actionable (a specific risk with a mitigation, or a known failure
// mode; not a vague concern).
type PlanCritique struct {
	Objection  string   `json:"objection"`
	Risks      []string `json:"risks"`
	Counter    string   `json:"counter"`
	Severity   Stakes   `json:"severity"`
	Actionable bool     `json:"actionable"`
}

// Agents argue both sides. Calls are sequential: the critic gets the advocate's answer.
type Agents interface {
	// Name says who argues ("rules", or a model's name), for the record.
	Name() string
	FailureAdvocate(ctx context.Context, r *FailureRequest) (*FailureAdvocacy, error)
	FailureCritic(ctx context.Context, r *FailureRequest, a *FailureAdvocacy) (*FailureCritique, error)
	PlanAdvocate(ctx context.Context, r *PlanRequest) (*PlanAdvocacy, error)
	PlanCritic(ctx context.Context, r *PlanRequest, a *PlanAdvocacy) (*PlanCritique, error)
}

// Synthesis is the orchestrator's answer (seed 000's synthesis response).
type Synthesis struct {
	Resolution Resolution `json:"resolution"`
	Rationale  string     `json:"rationale"`
	// Modifications are a MODIFY's changes; NextApproach a RETRY's or PIVOT's; EscalateTo an
	// ESCALATE's.
	Modifications    []string `json:"modifications,omitempty"`
	NextApproach     string   `json:"next_approach,omitempty"`
	EscalateTo       string   `json:"escalate_to,omitempty"`
	NextAttemptLimit int      `json:"next_attempt_limit"`
	// JudgedBy names the orchestrator that judged a case the rules left open between
	// JudgedBetween (seed 000: "if ambiguous, the orchestrator applies LLM judgment"); empty
	// when the rules decided.
	JudgedBy      string       `json:"judged_by,omitempty"`
	JudgedBetween []Resolution `json:"judged_between,omitempty"`
}

// Judge is implemented by agents that can judge what seed 000's rules leave open, the way the
// seed's orchestrator does: with a bias toward accepting substantial differences and actionable
// counters. A judgment must pick one of candidates; the rules' synthesis stands otherwise.
type Judge interface {
	JudgeFailure(ctx context.Context, r *FailureRequest, a *FailureAdvocacy, c *FailureCritique, candidates []Resolution) (*Judgment, error)
	JudgePlan(ctx context.Context, r *PlanRequest, a *PlanAdvocacy, c *PlanCritique, candidates []Resolution) (*Judgment, error)
}

// Judgment is an orchestrator's answer to a case the rules leave open (at most 200 tokens).
type Judgment struct {
	Resolution Resolution `json:"resolution"`
	Rationale  string     `json:"rationale"`
	// NextApproach is a RETRY's or PIVOT's; Modifications a MODIFY's.
	NextApproach  string   `json:"next_approach"`
	Modifications []string `json:"modifications"`
}

// FailureOpen returns the resolutions seed 000's failure rules leave open for these answers:
// RETRY and PIVOT when exactly one of RETRY's two conditions holds (a substantial difference
// from the previous attempt; no blind spot), nothing when a rule decides.
func FailureOpen(r *FailureRequest, a *FailureAdvocacy, c *FailureCritique) []Resolution {
	if c.ShouldEscalate || repeatsPattern(r, c) || a.Substantial == noBlindSpot(c) {
		return nil
	}
	return []Resolution{Retry, Pivot}
}

// repeatsPattern reports whether the critic's pattern is one an earlier failure debate of the
// task identified (the loop survived a debate).
func repeatsPattern(r *FailureRequest, c *FailureCritique) bool {
	return c.Pattern != "" && matchesPrevious(c.Pattern, r.PreviousPatterns)
}

func noBlindSpot(c *FailureCritique) bool { return strings.TrimSpace(c.BlindSpot) == "" }

// The planning rules' own cases (seed 000), shared by SynthesizePlan and PlanOpen.
func severeAndActionable(c *PlanCritique) bool { return c.Severity == High && c.Actionable }

func confidentUnopposed(a *PlanAdvocacy, c *PlanCritique) bool {
	return a.Confidence >= 0.8 && (c.Severity == Low || c.Objection == "")
}

func disagrees(c *PlanCritique) bool {
	return strings.TrimSpace(c.Objection) != "" && c.Severity != Low
}

// PlanOpen returns the resolutions seed 000's planning rules leave open: none when a severe
// objection has an actionable counter (MODIFY), a confident advocate meets a low objection
// (PROCEED), or high stakes meet disagreement (MODIFY or ESCALATE, by the counter); otherwise
// PROCEED, MODIFY (when there is a counter to apply) and ESCALATE.
func PlanOpen(r *PlanRequest, a *PlanAdvocacy, c *PlanCritique) []Resolution {
	if severeAndActionable(c) || confidentUnopposed(a, c) || (r.Stakes == High && disagrees(c)) {
		return nil
	}
	if strings.TrimSpace(c.Counter) == "" {
		return []Resolution{Proceed, Escalate}
	}
	return []Resolution{Proceed, Modify, Escalate}
}

// judged turns a judgment into the synthesis, or reports why it cannot stand.
func judged(j *Judgment, by string, open []Resolution, counter string) (Synthesis, error) {
	if !slices.Contains(open, j.Resolution) {
		return Synthesis{}, fmt.Errorf("it answered %q, not one of %v", j.Resolution, open)
	}
	if strings.TrimSpace(j.Rationale) == "" {
		return Synthesis{}, errors.New("it gave no rationale")
	}
	s := Synthesis{Resolution: j.Resolution, Rationale: oneSentence(j.Rationale), JudgedBy: by, JudgedBetween: open}
	switch j.Resolution {
	case Retry, Pivot:
		s.NextAttemptLimit, s.NextApproach = MaxAttemptsAfterDebate, oneSentence(orElse(j.NextApproach, "a different approach than the last attempt"))
	case Modify:
		s.NextAttemptLimit = 2
		for _, m := range j.Modifications {
			if m = strings.TrimSpace(m); m != "" {
				s.Modifications = append(s.Modifications, oneSentence(m))
			}
		}
		if len(s.Modifications) == 0 {
			s.Modifications = []string{counter}
		}
	case Escalate:
		s.EscalateTo = "human"
	}
	return s, nil
}

// judge lets agents that are a Judge decide an open case; a judge that fails or answers out of
// bounds leaves the rules' synthesis, with a note.
func (rec *Record) judge(ctx context.Context, agents Agents, open []Resolution, ask func(Judge) (*Judgment, error), counter string) error {
	j, ok := agents.(Judge)
	if !ok || len(open) < 2 {
		return nil
	}
	out, err := ask(j)
	if err == nil {
		var s Synthesis
		if s, err = judged(out, agents.Name(), open, counter); err == nil {
			rec.Synthesis = s
			return nil
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("the debate's orchestrator stopped: %w", err)
	}
	rec.Notes = append(rec.Notes, fmt.Sprintf("the orchestrator (%s) could not judge between %v (%v); the rules decided", agents.Name(), open, err))
	return nil
}

// CSP is the synthesis in seed 000's CSP/1 form.
func (s *Synthesis) CSP() string {
	var b strings.Builder
	fmt.Fprintf(&b, "RESOLUTION %s\nRATIONALE %s\n", s.Resolution, s.Rationale)
	switch {
	case s.Resolution == Modify:
		fmt.Fprintf(&b, "MODIFICATIONS [%s]\n", strings.Join(s.Modifications, "; "))
	case s.Resolution == Escalate:
		fmt.Fprintf(&b, "ESCALATE_TO %s\n", s.EscalateTo)
	case s.NextApproach != "":
		fmt.Fprintf(&b, "NEXT_APPROACH %s\n", s.NextApproach)
	}
	if s.Resolution == Modify || s.Resolution == Retry || s.Resolution == Pivot {
		fmt.Fprintf(&b, "NEXT_ATTEMPT_LIMIT %d\n", s.NextAttemptLimit)
	}
	return b.String()
}

// Record is one debate as it was held: what was asked, both answers and the synthesis.
type Record struct {
	Type      Type             `json:"type"`
	By        string           `json:"by"`
	Failure   *FailureRequest  `json:"failure,omitempty"`
	Plan      *PlanRequest     `json:"plan,omitempty"`
	FAdv      *FailureAdvocacy `json:"failure_advocate,omitempty"`
	FCrit     *FailureCritique `json:"failure_critic,omitempty"`
	PAdv      *PlanAdvocacy    `json:"plan_advocate,omitempty"`
	PCrit     *PlanCritique    `json:"plan_critic,omitempty"`
	Synthesis Synthesis        `json:"synthesis"`
	// Notes say what went wrong on the way (an agent that failed and what stood in for it).
	Notes []string `json:"notes,omitempty"`
	// Usage is what the agents' model calls cost, when they report it (Spender).
	Usage voting.Usage `json:"usage"`
}

// Spender is implemented by agents that call a model: what their calls cost so far.
type Spender interface {
	Spent() voting.Usage
}

func spent(a Agents) voting.Usage {
	if s, ok := a.(Spender); ok {
		return s.Spent()
	}
	return voting.Usage{}
}

// DebateFailure holds a failure debate: the advocate, then the critic with the advocate's
// answer, then the synthesis. An agent that fails is replaced by the rules, with a note, so that
// a broken model never leaves a failure loop undebated.
func DebateFailure(ctx context.Context, agents Agents, r *FailureRequest) (*Record, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	rec := &Record{Type: Failure, By: agents.Name(), Failure: r}
	adv, err := argue(ctx, rec, agents, "failure", "advocate", func(a Agents) (*FailureAdvocacy, error) { return a.FailureAdvocate(ctx, r) })
	if err != nil {
		return nil, err
	}
	crit, err := argue(ctx, rec, agents, "failure", "critic", func(a Agents) (*FailureCritique, error) { return a.FailureCritic(ctx, r, adv) })
	if err != nil {
		return nil, err
	}
	rec.FAdv, rec.FCrit = adv, crit
	rec.Synthesis = SynthesizeFailure(r, adv, crit)
	open := FailureOpen(r, adv, crit)
	if err := rec.judge(ctx, agents, open, func(j Judge) (*Judgment, error) { return j.JudgeFailure(ctx, r, adv, crit, open) }, ""); err != nil {
		return nil, err
	}
	rec.Usage = spent(agents)
	return rec, nil
}

// argue has one side of a debate argued by agents; an agent that fails is replaced by the rules
// (which do not fail), with a note, unless the debate itself was stopped. debate and role name
// the side in the error and the note.
func argue[T any](ctx context.Context, rec *Record, agents Agents, debate, role string, side func(Agents) (T, error)) (T, error) {
	out, err := side(agents)
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil {
		return out, fmt.Errorf("the %s debate's %s stopped: %w", debate, role, err)
	}
	rec.Notes = append(rec.Notes, fmt.Sprintf("the %s (%s) failed (%v); the rules argued instead", role, agents.Name(), err))
	out, _ = side(Rules{})
	return out, nil
}

// SynthesizeFailure applies seed 000's failure rules, in order: the critic's SHOULD_ESCALATE
// escalates (no override); a pattern the critic identified that an earlier debate of the task
// identified already escalates (the loop survived a debate); a substantial difference from the
// previous attempt with no blind spot retries; anything else pivots. RETRY and PIVOT allow one
// more attempt (MaxAttemptsAfterDebate).
func SynthesizeFailure(r *FailureRequest, a *FailureAdvocacy, c *FailureCritique) Synthesis {
	switch {
	case c.ShouldEscalate:
		return Synthesis{Resolution: Escalate, EscalateTo: "human",
			Rationale: oneSentence("The critic asks to escalate: " + orElse(c.Pattern, "the failure is not the change's to fix"))}
	case repeatsPattern(r, c):
		return Synthesis{Resolution: Escalate, EscalateTo: "human",
			Rationale: oneSentence("The same pattern was identified by an earlier failure debate of this task: " + c.Pattern)}
	case a.Substantial && noBlindSpot(c):
		return Synthesis{Resolution: Retry, NextAttemptLimit: MaxAttemptsAfterDebate, NextApproach: orElse(a.Fix, "retry with the advocate's adjustment"),
			Rationale: oneSentence("The latest attempt differs substantially from the previous one and the critic found no blind spot: " + a.DiffFromPrevious)}
	}
	why := "the latest attempt does not differ substantially from the previous one"
	if !noBlindSpot(c) {
		why = "the critic found a blind spot: " + c.BlindSpot
	}
	next := c.BlindSpot
	if next == "" {
		next = "a different approach than " + orElse(a.Fix, "the last attempt")
	} else {
		next = "address the blind spot first: " + c.BlindSpot
	}
	return Synthesis{Resolution: Pivot, NextAttemptLimit: MaxAttemptsAfterDebate, NextApproach: next, Rationale: oneSentence("Pivot, as " + why)}
}

// DebatePlan holds a planning debate.
func DebatePlan(ctx context.Context, agents Agents, r *PlanRequest) (*Record, error) {
	if strings.TrimSpace(r.Proposal) == "" {
		return nil, errors.New("a planning debate needs a proposal")
	}
	if r.Stakes == "" {
		r.Stakes = StakesOf(r.Proposal)
	}
	rec := &Record{Type: Planning, By: agents.Name(), Plan: r}
	adv, err := argue(ctx, rec, agents, "planning", "advocate", func(a Agents) (*PlanAdvocacy, error) { return a.PlanAdvocate(ctx, r) })
	if err != nil {
		return nil, err
	}
	crit, err := argue(ctx, rec, agents, "planning", "critic", func(a Agents) (*PlanCritique, error) { return a.PlanCritic(ctx, r, adv) })
	if err != nil {
		return nil, err
	}
	rec.PAdv, rec.PCrit = adv, crit
	rec.Synthesis = SynthesizePlan(r, adv, crit)
	open := PlanOpen(r, adv, crit)
	if err := rec.judge(ctx, agents, open, func(j Judge) (*Judgment, error) { return j.JudgePlan(ctx, r, adv, crit, open) }, crit.Counter); err != nil {
		return nil, err
	}
	rec.Usage = spent(agents)
	return rec, nil
}

// SynthesizePlan applies seed 000's planning rules: a high-severity objection with an actionable
// counter modifies the plan with the counter; a confident advocate (0.8 or more) against a
// low-severity objection proceeds; with high stakes, any disagreement errs toward MODIFY (an
// actionable counter) or ESCALATE (none); otherwise a medium objection with an actionable
// counter modifies, and the rest proceeds when the advocate is at least fairly confident and
// escalates when not.
func SynthesizePlan(r *PlanRequest, a *PlanAdvocacy, c *PlanCritique) Synthesis {
	disagree := disagrees(c)
	modify := func(why string) Synthesis {
		return Synthesis{Resolution: Modify, Modifications: []string{c.Counter}, NextAttemptLimit: 2, Rationale: oneSentence(why)}
	}
	switch {
	case severeAndActionable(c):
		return modify("The critic's objection is severe and its counter actionable: " + c.Objection)
	case confidentUnopposed(a, c):
		return Synthesis{Resolution: Proceed, Rationale: oneSentence("The advocate is confident and the critic found no blocking issue")}
	case r.Stakes == High && disagree && c.Actionable:
		return modify("The stakes are high and the critic disagrees with an actionable counter: " + c.Objection)
	case r.Stakes == High && disagree:
		return Synthesis{Resolution: Escalate, EscalateTo: "human", Rationale: oneSentence("The stakes are high and the critic's objection has no actionable counter: " + c.Objection)}
	case c.Severity == Medium && c.Actionable:
		return modify("The critic's counter is actionable: " + c.Objection)
	case c.Severity == High:
		return Synthesis{Resolution: Escalate, EscalateTo: "human", Rationale: oneSentence("The critic's objection is severe and no mitigation was offered: " + c.Objection)}
	case a.Confidence >= 0.5:
		return Synthesis{Resolution: Proceed, Rationale: oneSentence("No blocking objection stands against the plan")}
	}
	return Synthesis{Resolution: Escalate, EscalateTo: "human", Rationale: oneSentence("Neither side is confident enough to proceed")}
}

func matchesPrevious(pattern string, previous []string) bool {
	p := Canonical(pattern)
	for _, q := range previous {
		if Canonical(q) == p {
			return true
		}
	}
	return false
}

func orElse(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// oneSentence keeps a rationale to one line of at most 300 bytes (seed 000: one sentence).
func oneSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		cut := 300
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "…") {
		s += "."
	}
	return s
}
