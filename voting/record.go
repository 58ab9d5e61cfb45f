package voting

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"gopkg.in/yaml.v3"
)

// EscalationReason says why a debate was escalated to humans.
type EscalationReason string

// The escalation rules of DESIGN.md.
const (
	ReasonNoConsensus        EscalationReason = "no_consensus"
	ReasonCriticalUnrebutted EscalationReason = "critical_finding_unrebutted"
	ReasonHumanReview        EscalationReason = "human_review"
	ReasonPhaseFailed        EscalationReason = "phase_failed"
	ReasonVoted              EscalationReason = "escalation_voted"
	// ReasonPromptInjection: the change carries text addressed to the reviewer; the bot never
	// approves a change that tries to instruct it, whatever the votes.
	ReasonPromptInjection EscalationReason = "prompt_injection"
	// ReasonDisputeEscalated: a challenger escalated a point the author would not concede
	// (seed 001's ESCALATE): agents cannot settle it, a human must.
	ReasonDisputeEscalated EscalationReason = "dispute_escalated"
)

// Input is what a decision is made from.
type Input struct {
	Ballots    []Ballot
	Thresholds Thresholds
	// CriticalUnrebutted lists critical findings that still stand at the end of the debate.
	CriticalUnrebutted []string
	// HumanReview is set when /human-review was invoked: a human decides.
	HumanReview bool
	// FailedPhase names a phase in which every agent failed; empty when none did.
	FailedPhase string
	// Injections quotes (redacted) each place where the change addresses the reviewer: any one
	// escalates the debate to a human, whatever the votes.
	Injections []string
	// Disputes describes each point a challenger escalated: any one escalates the debate.
	Disputes []string
}

// Escalation is one reason a debate escalated, with the detail that triggered it.
type Escalation struct {
	Reason EscalationReason `json:"reason"`
	Detail string           `json:"detail"`
}

// Outcome is the decision with the tally it came from and every reason it escalated.
type Outcome struct {
	Decision    Option
	Tally       Tally
	Escalations []Escalation
}

// Decide applies the rules of DESIGN.md: the weighted vote decides, unless consensus is below the
// consensus threshold, a critical finding stands unrebutted, /human-review was invoked, a whole
// phase failed, the change carries text addressed to the reviewer or a challenger escalated a
// disputed point, in which case the debate escalates. Every applicable reason is recorded.
func Decide(in Input) Outcome {
	tally := Count(in.Ballots, in.Thresholds)
	out := Outcome{Decision: tally.Winner, Tally: tally}
	if in.HumanReview {
		out.Escalations = append(out.Escalations, Escalation{ReasonHumanReview, "a human review was requested; the human decision is final"})
	}
	if in.FailedPhase != "" {
		out.Escalations = append(out.Escalations, Escalation{ReasonPhaseFailed, fmt.Sprintf("every agent failed in phase %s", in.FailedPhase)})
	}
	if tally.Level == LevelNone {
		out.Escalations = append(out.Escalations, Escalation{ReasonNoConsensus,
			fmt.Sprintf("the leading option %s has %.0f%% of the weighted vote, not above the %.0f%% consensus threshold",
				tally.Winner, tally.Score*100, in.Thresholds.Consensus*100)})
	}
	for _, c := range in.CriticalUnrebutted {
		out.Escalations = append(out.Escalations, Escalation{ReasonCriticalUnrebutted, c})
	}
	for _, q := range in.Injections {
		out.Escalations = append(out.Escalations, Escalation{ReasonPromptInjection, q})
	}
	for _, d := range in.Disputes {
		out.Escalations = append(out.Escalations, Escalation{ReasonDisputeEscalated, d})
	}
	if len(out.Escalations) == 0 && tally.Winner == Escalate && len(in.Ballots) > 0 {
		out.Escalations = append(out.Escalations, Escalation{ReasonVoted,
			fmt.Sprintf("%.0f%% of the weighted vote asks for a human decision", tally.Score*100)})
	}
	if len(out.Escalations) > 0 {
		out.Decision = Escalate
	}
	return out
}

// Dissent is an opinion that lost the vote, kept visible.
type Dissent struct {
	Agent   string `yaml:"agent" json:"agent"`
	Concern string `yaml:"concern" json:"concern"`
}

// ScoringRow is one disputed point of the debate (seed 003's per-point scoring matrix): the
// point, the side that prevailed, how sure that is, and the evidence that decided it.
type ScoringRow struct {
	Point      string  `yaml:"point" json:"point"`
	Winner     string  `yaml:"winner" json:"winner"`
	Confidence float64 `yaml:"confidence" json:"confidence"`
	Evidence   string  `yaml:"evidence" json:"evidence"`
}

// Seat is one perspective the moderator seated, and why.
type Seat struct {
	Agent  string `yaml:"agent" json:"agent"`
	Reason string `yaml:"reason" json:"reason"`
}

// TradeOff is seed 001's trade-off document of a debate that ended without consensus: the
// leading position, where each perspective stands and why, what the disagreement comes down to,
// and the assumptions behind each side.
type TradeOff struct {
	FinalPosition    string        `yaml:"final_position" json:"final_position"`
	Stances          []TradeStance `yaml:"stances" json:"stances"`
	CoreDisagreement string        `yaml:"core_disagreement" json:"core_disagreement"`
	Assumptions      []Assumption  `yaml:"assumptions" json:"assumptions"`
}

// TradeStance is one perspective's stance in a trade-off document.
type TradeStance struct {
	Agent string `yaml:"agent" json:"agent"`
	Vote  Option `yaml:"vote" json:"vote"`
	// Agrees is set when the vote is the leading option.
	Agrees  bool   `yaml:"agrees" json:"agrees"`
	Concern string `yaml:"concern" json:"concern"`
}

// Assumption is what a side's position rests on, and what would have to be true for the other
// position to be right.
type Assumption struct {
	Agent          string `yaml:"agent" json:"agent"`
	Vote           Option `yaml:"vote" json:"vote"`
	Assumes        string `yaml:"assumes" json:"assumes"`
	OtherSideRight string `yaml:"other_side_right" json:"other_side_right"`
}

// SynthesisDocument is seed 002's answer to a design question: not an approve/request-changes
// vote on code but what each perspective argued and accepted, where they agree and pull apart,
// and a recommendation with its confidence, its caveats and the view that dissents from it.
type SynthesisDocument struct {
	Question     string            `yaml:"question" json:"question"`
	Perspectives []PerspectiveView `yaml:"perspectives" json:"perspectives"`
	Agreement    []string          `yaml:"agreement" json:"agreement"`
	Tensions     []string          `yaml:"tensions" json:"tensions"`
	// Recommendation is the moderator's synthesised answer; Confidence is High, Medium or Low.
	Recommendation string   `yaml:"recommendation" json:"recommendation"`
	Confidence     string   `yaml:"confidence" json:"confidence"`
	Caveats        []string `yaml:"caveats" json:"caveats"`
	// Dissent is the view of the perspective that disagrees with the recommendation most
	// strongly; empty when none does.
	Dissent string `yaml:"dissent" json:"dissent"`
}

// PerspectiveView is one perspective considered in a synthesis document.
type PerspectiveView struct {
	Agent        string   `yaml:"agent" json:"agent"`
	Title        string   `yaml:"title" json:"title"`
	KeyArguments []string `yaml:"key_arguments" json:"key_arguments"`
	// TradeOffs are the trade-offs the perspective accepts.
	TradeOffs []string `yaml:"trade_offs" json:"trade_offs"`
}

// Record is the decision record of DESIGN.md; its field names are a contract.
type Record struct {
	DebateID           string    `yaml:"debate_id" json:"debate_id"`
	Repository         string    `yaml:"repository" json:"repository"`
	PRNumber           int       `yaml:"pr_number" json:"pr_number"`
	HeadSHA            string    `yaml:"head_sha" json:"head_sha"`
	Trigger            string    `yaml:"trigger" json:"trigger"`
	Protocol           string    `yaml:"protocol" json:"protocol"`
	Decision           Option    `yaml:"decision" json:"decision"`
	ConsensusScore     float64   `yaml:"consensus_score" json:"consensus_score"`
	ConsensusLevel     Level     `yaml:"consensus_level" json:"consensus_level"`
	Votes              []Ballot  `yaml:"votes" json:"votes"`
	DissentingOpinions []Dissent `yaml:"dissenting_opinions" json:"dissenting_opinions"`
	RequiredChanges    []string  `yaml:"required_changes" json:"required_changes"`
	FollowUp           []string  `yaml:"follow_up" json:"follow_up"`
	// Tokens is what the server billed for the debate: prompt, completion, cached prompt and cost.
	// The number of calls is the transcript's and stays out of the record (see normalised).
	Tokens Usage `yaml:"tokens" json:"tokens"`
	// Convergence is the share of disputed points the debate ended agreed on (seed 003): 1 when
	// nothing was disputed.
	Convergence float64 `yaml:"convergence" json:"convergence"`
	// ScoringMatrix has one row per disputed point.
	ScoringMatrix []ScoringRow `yaml:"scoring_matrix" json:"scoring_matrix"`
	// Depth is the depth the debate was held at (quick, standard, deep); empty for the
	// protocol's own rounds.
	Depth string `yaml:"depth,omitempty" json:"depth,omitempty"`
	// Perspectives are the stakeholders the moderator seated, each with its reason; empty when
	// the panel was configured or given.
	Perspectives []Seat `yaml:"perspectives,omitempty" json:"perspectives,omitempty"`
	// TradeOff is written when the debate ended below the consensus threshold.
	TradeOff *TradeOff `yaml:"trade_off,omitempty" json:"trade_off,omitempty"`
	// Synthesis is the synthesis document of a design question (--question, needs-debate).
	Synthesis *SynthesisDocument `yaml:"synthesis,omitempty" json:"synthesis,omitempty"`
	// HumanDecision is the maintainer's decision after /human-review ("approve" or
	// "request_changes"), set beside the debate's own; empty until a human decided.
	HumanDecision string `yaml:"human_decision" json:"human_decision"`
	StartedAt     string `yaml:"started_at" json:"started_at"`
	EndedAt       string `yaml:"ended_at" json:"ended_at"`
}

// Round2 rounds a share to two decimals, as the record shows it.
func Round2(v float64) float64 { return math.Round(v*100) / 100 }

// Timestamp formats t as the record does: RFC 3339 in UTC.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// envelope gives the record its top-level "decision" key in both formats.
type envelope struct {
	Decision *Record `yaml:"decision" json:"decision"`
}

func (r *Record) normalised() *Record {
	c := *r
	// Empty lists print as [] rather than null so that readers need no special case.
	if c.Votes == nil {
		c.Votes = []Ballot{}
	}
	if c.DissentingOpinions == nil {
		c.DissentingOpinions = []Dissent{}
	}
	if c.RequiredChanges == nil {
		c.RequiredChanges = []string{}
	}
	if c.FollowUp == nil {
		c.FollowUp = []string{}
	}
	if c.ScoringMatrix == nil {
		c.ScoringMatrix = []ScoringRow{}
	}
	// The record's tokens are {prompt, completion, cached_prompt, cost_usd} (DESIGN.md); the
	// calls are counted in the transcript, so they are never written here.
	c.Tokens.Calls = 0
	return &c
}

// YAML renders the record as DESIGN.md shows it, under a top-level "decision" key.
func (r *Record) YAML() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(envelope{r.normalised()}); err != nil {
		return nil, fmt.Errorf("failed to encode decision record %s as YAML: %w", r.DebateID, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("failed to encode decision record %s as YAML: %w", r.DebateID, err)
	}
	return buf.Bytes(), nil
}

// JSON renders the record as an indented JSON object with the same shape as the YAML.
func (r *Record) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(envelope{r.normalised()}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("failed to encode decision record %s as JSON: %w", r.DebateID, err)
	}
	return append(b, '\n'), nil
}

// ParseRecord reads a record written by YAML or JSON (JSON is YAML).
func ParseRecord(b []byte) (*Record, error) {
	var e envelope
	if err := yaml.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("failed to parse decision record: %w", err)
	}
	if e.Decision == nil {
		return nil, fmt.Errorf("failed to parse decision record: no top-level \"decision\" key")
	}
	return e.Decision, nil
}
