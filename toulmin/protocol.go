package toulmin

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// PhaseKind names a phase of seed 004 (plus the extended protocol's design review).
type PhaseKind string

// The phases, in the order seed 004 runs them.
const (
	PhaseEvidence      PhaseKind = "evidence_gathering"
	PhaseOpening       PhaseKind = "opening_arguments"
	PhaseRebuttal      PhaseKind = "rebuttal"
	PhaseClarification PhaseKind = "clarification"
	// PhaseResponse is seed 001's challenger rebuttal: each challenger whose rebuttal was
	// answered partly or rejected accepts, maintains or escalates.
	PhaseResponse     PhaseKind = "response"
	PhaseFinal        PhaseKind = "final_arguments"
	PhaseDesignReview PhaseKind = "design_review"
	PhaseSynthesis    PhaseKind = "synthesis"
	PhaseDecision     PhaseKind = "decision"
)

var phaseTitles = map[PhaseKind]string{
	PhaseEvidence:      "Evidence Gathering",
	PhaseOpening:       "Opening Arguments",
	PhaseRebuttal:      "Rebuttals",
	PhaseClarification: "Clarification",
	PhaseResponse:      "Challengers' Responses",
	PhaseFinal:         "Final Arguments",
	PhaseDesignReview:  "Design Review",
	PhaseSynthesis:     "Synthesis",
	PhaseDecision:      "Decision",
}

// Valid reports whether k is a known phase.
func (k PhaseKind) Valid() bool {
	_, ok := phaseTitles[k]
	return ok
}

// Title is the phase's human name.
func (k PhaseKind) Title() string { return phaseTitles[k] }

// Takers says which participants take turns in a phase.
type Takers string

// Who takes part in a phase.
const (
	TakersAll          Takers = "all"
	TakersStakeholders Takers = "stakeholders"
	TakersMaintainers  Takers = "maintainers"
	TakersNone         Takers = "none"
)

// PhaseSpec is one phase as data: who speaks, how much and for how long.
type PhaseSpec struct {
	Kind PhaseKind `yaml:"kind" json:"kind"`
	// TokenLimit bounds one agent's reply in this phase (seed 004's token budget).
	TokenLimit int `yaml:"token_limit" json:"token_limit"`
	// Timeout bounds the whole phase; agents still speaking then are left out.
	Timeout time.Duration `yaml:"timeout" json:"timeout"`
	Takers  Takers        `yaml:"takers" json:"takers"`
	// MaxPerAgent bounds the arguments one agent may record in the phase per round (0: no bound).
	MaxPerAgent int `yaml:"max_per_agent" json:"max_per_agent"`
	// Sequential makes agents speak one after another, each seeing the turns before it; otherwise
	// they speak concurrently and see only earlier phases.
	Sequential bool `yaml:"sequential" json:"sequential"`
}

// ExitRule ends a repeated block of phases early.
type ExitRule string

// Exit rules of seeds 001, 002 and 003. After each round the moderator judges it (see
// Judgement); a rule lets its verdict end the loop.
const (
	// ExitUnanimous: every participant holds the same stance and no concern is contested.
	ExitUnanimous ExitRule = "unanimous"
	// ExitStagnation: the last round added no new argument (a repeated one does not count).
	ExitStagnation ExitRule = "stagnation"
	// ExitConverged: the convergence ratio reached the loop's threshold (seed 003).
	ExitConverged ExitRule = "converged"
	// ExitClearWinner: one stance holds above the strong threshold and the round settled its
	// disputes for one side (seed 002).
	ExitClearWinner ExitRule = "clear_winner"
)

// DefaultConvergenceThreshold is seed 003's default: the share of disputed points agreed at
// which a deep debate stops.
const DefaultConvergenceThreshold = 0.80

// Loop repeats the phases From..To (inclusive) up to MaxRounds times; after each round the exit
// rules are checked and the first that holds ends the loop.
type Loop struct {
	From      PhaseKind  `yaml:"from" json:"from"`
	To        PhaseKind  `yaml:"to" json:"to"`
	MaxRounds int        `yaml:"max_rounds" json:"max_rounds"`
	ExitWhen  []ExitRule `yaml:"exit_when" json:"exit_when"`
}

// Depth is seed 003's depth of a debate: how many rounds it may take, counting the openings as
// the first. Quick is the openings alone; standard adds one round of rebuttal, clarification
// and response; deep up to two, stopping once convergence reaches the threshold.
type Depth string

// Depths.
const (
	DepthQuick    Depth = "quick"
	DepthStandard Depth = "standard"
	DepthDeep     Depth = "deep"
)

// ParseDepth checks a depth's name; "" is no depth (the protocol's own rounds).
func ParseDepth(s string) (Depth, error) {
	switch d := Depth(s); d {
	case "", DepthQuick, DepthStandard, DepthDeep:
		return d, nil
	}
	return "", fmt.Errorf("unknown depth %q (want %s, %s or %s)", s, DepthQuick, DepthStandard, DepthDeep)
}

// DebateRounds is how many rounds of the debate a depth allows, the openings counted.
func (d Depth) DebateRounds() int {
	switch d {
	case DepthQuick:
		return 1
	case DepthStandard:
		return 2
	case DepthDeep:
		return 3
	}
	return 0
}

// Protocol is a whole debate as data: phases, repetition, time and who takes part.
type Protocol struct {
	Name   string      `yaml:"name" json:"name"`
	Phases []PhaseSpec `yaml:"phases" json:"phases"`
	Loop   *Loop       `yaml:"loop,omitempty" json:"loop,omitempty"`
	// TotalTimeout bounds the whole debate.
	TotalTimeout time.Duration `yaml:"total_timeout" json:"total_timeout"`
	// MaxCostUSD, when positive, is the debate's model budget in US dollars: once the debate has
	// spent it, the phases still ahead are skipped but for the synthesis and the decision
	// (Transcript.BudgetStop). Zero: no limit.
	MaxCostUSD float64 `yaml:"max_cost_usd,omitempty" json:"max_cost_usd,omitempty"`
	// Agents restricts the participants by name; empty means every agent given to the engine.
	Agents []string `yaml:"agents,omitempty" json:"agents,omitempty"`
	// FastExit skips to the decision when every stakeholder's opening agrees, substantively,
	// and nothing above low stands (seed 001).
	FastExit bool `yaml:"fast_exit" json:"fast_exit"`
	// ConvergenceThreshold is the convergence ratio at which the moderator judges a round
	// converging and ExitConverged ends the loop (seed 003; 0 means the default 0.80).
	ConvergenceThreshold float64 `yaml:"convergence_threshold" json:"convergence_threshold"`
	// Depth is the depth the protocol was cut to (see WithDepth); empty for the protocol's own.
	Depth Depth `yaml:"depth,omitempty" json:"depth,omitempty"`
	// Checkpoints pauses the debate after each round of confrontation that another round would
	// follow, for a human to continue, guide or end it (seed 002). The engine pauses only when it
	// was given a way to ask (WithRoundCheckpoint).
	Checkpoints bool `yaml:"checkpoints" json:"checkpoints"`
	// CheckpointTimeout bounds the wait for the human's answer at a checkpoint; without one the
	// debate ends its rounds and goes to synthesis (0 means DefaultCheckpointTimeout).
	CheckpointTimeout time.Duration `yaml:"checkpoint_timeout" json:"checkpoint_timeout"`
}

// DefaultCheckpointTimeout is seed 002's wait for a human at a checkpoint.
const DefaultCheckpointTimeout = 30 * time.Minute

// CheckpointWait returns the checkpoint timeout, the default when unset.
func (p *Protocol) CheckpointWait() time.Duration {
	if p.CheckpointTimeout <= 0 {
		return DefaultCheckpointTimeout
	}
	return p.CheckpointTimeout
}

// Convergence returns the threshold, the default when unset.
func (p *Protocol) Convergence() float64 {
	if p.ConvergenceThreshold <= 0 {
		return DefaultConvergenceThreshold
	}
	return p.ConvergenceThreshold
}

// loopPhases are the phases a round of confrontation takes, in order.
var loopPhases = []PhaseKind{PhaseRebuttal, PhaseClarification, PhaseResponse}

// Answers reports whether the phase's arguments answer another argument (the phases of a round
// of confrontation).
func (k PhaseKind) Answers() bool { return slices.Contains(loopPhases, k) }

// WithDepth cuts the protocol to a depth (seed 003): quick keeps the openings alone (no
// rebuttal round, no final arguments: the synthesis weighs the openings); standard one round of
// rebuttal, clarification and response; deep up to two, ending as soon as convergence reaches
// the threshold. maxRounds, when positive, caps the rounds of confrontation further. A
// protocol without a round of confrontation (fast-track) is left as it is.
func (p Protocol) WithDepth(d Depth, maxRounds int) (Protocol, error) {
	if _, err := ParseDepth(string(d)); err != nil {
		return p, err
	}
	if d == "" || p.Loop == nil {
		return p, nil
	}
	p.Depth = d
	loop := *p.Loop
	loop.ExitWhen = append([]ExitRule(nil), loop.ExitWhen...)
	p.Loop = &loop
	switch d {
	case DepthQuick:
		var kept []PhaseSpec
		for _, ph := range p.Phases {
			if ph.Kind == PhaseFinal || ph.Kind.Answers() {
				continue
			}
			kept = append(kept, ph)
		}
		p.Phases, p.Loop = kept, nil
		return p, p.Validate()
	case DepthStandard:
		loop.MaxRounds = 1
	case DepthDeep:
		loop.MaxRounds = 2
		if !slices.Contains(loop.ExitWhen, ExitConverged) {
			loop.ExitWhen = append(loop.ExitWhen, ExitConverged)
		}
	}
	if maxRounds > 0 && maxRounds < loop.MaxRounds {
		loop.MaxRounds = maxRounds
	}
	return p, p.Validate()
}

// Protocol names.
const (
	ProtocolStandard  = "standard"
	ProtocolFastTrack = "fast-track"
	ProtocolExtended  = "extended"
)

// Seed 004's token budget per call.
const (
	DefaultEvidenceTokens      = 1000
	DefaultOpeningTokens       = 500
	DefaultRebuttalTokens      = 300
	DefaultClarificationTokens = 200
	DefaultResponseTokens      = 200
	DefaultFinalTokens         = 400
	DefaultSynthesisTokens     = 800
	DefaultDesignReviewTokens  = 800
	DefaultMaxRebuttals        = 2
)

// StandardPhases returns seed 004's seven phases with its token limits and time limits, and
// seed 001's challengers' responses after clarification (the seed 004 timing of clarification).
// Synthesis and decision have no time in the seed; they get 10 and 1 minutes.
func StandardPhases() []PhaseSpec {
	return []PhaseSpec{
		{Kind: PhaseEvidence, TokenLimit: DefaultEvidenceTokens, Timeout: 5 * time.Minute, Takers: TakersNone},
		{Kind: PhaseOpening, TokenLimit: DefaultOpeningTokens, Timeout: 10 * time.Minute, Takers: TakersStakeholders},
		{Kind: PhaseRebuttal, TokenLimit: DefaultRebuttalTokens, Timeout: 10 * time.Minute, Takers: TakersStakeholders, MaxPerAgent: DefaultMaxRebuttals},
		{Kind: PhaseClarification, TokenLimit: DefaultClarificationTokens, Timeout: 5 * time.Minute, Takers: TakersStakeholders},
		{Kind: PhaseResponse, TokenLimit: DefaultResponseTokens, Timeout: 5 * time.Minute, Takers: TakersStakeholders},
		{Kind: PhaseFinal, TokenLimit: DefaultFinalTokens, Timeout: 5 * time.Minute, Takers: TakersStakeholders},
		{Kind: PhaseSynthesis, TokenLimit: DefaultSynthesisTokens, Timeout: 10 * time.Minute, Takers: TakersMaintainers},
		{Kind: PhaseDecision, Timeout: time.Minute, Takers: TakersNone},
	}
}

// defaultExits are the moderator's verdicts that end a round of confrontation.
func defaultExits() []ExitRule {
	return []ExitRule{ExitUnanimous, ExitConverged, ExitStagnation, ExitClearWinner}
}

// Standard is seed 004's protocol: one round of rebuttal, clarification and response, with
// seed 001's fast exit.
func Standard() Protocol {
	return Protocol{
		Name:         ProtocolStandard,
		Phases:       StandardPhases(),
		Loop:         &Loop{From: PhaseRebuttal, To: PhaseResponse, MaxRounds: 1, ExitWhen: defaultExits()},
		TotalTimeout: 45 * time.Minute,
		FastExit:     true,
	}
}

// FastTrack is seed 004's protocol for urgent fixes: evidence, arguments, decision, ten minutes,
// the security stakeholder and the core maintainer only.
func FastTrack() Protocol {
	std := Standard()
	evidence, _ := std.Phase(PhaseEvidence)
	opening, _ := std.Phase(PhaseOpening)
	decision, _ := std.Phase(PhaseDecision)
	all := *opening
	all.Takers = TakersAll
	return Protocol{
		Name:         ProtocolFastTrack,
		Phases:       []PhaseSpec{*evidence, all, *decision},
		TotalTimeout: 10 * time.Minute,
		Agents:       []string{"security", "core_maintainer"},
	}
}

// Extended is seed 004's protocol for major architectural changes: a design review phase, twice the
// time, and up to three rounds of rebuttal, clarification and response.
func Extended() Protocol {
	var phases []PhaseSpec
	for _, p := range StandardPhases() {
		p.Timeout *= 2
		if p.Kind == PhaseSynthesis {
			phases = append(phases, PhaseSpec{Kind: PhaseDesignReview, TokenLimit: DefaultDesignReviewTokens, Timeout: 20 * time.Minute, Takers: TakersMaintainers})
		}
		phases = append(phases, p)
	}
	return Protocol{
		Name:         ProtocolExtended,
		Phases:       phases,
		Loop:         &Loop{From: PhaseRebuttal, To: PhaseResponse, MaxRounds: 3, ExitWhen: defaultExits()},
		TotalTimeout: 90 * time.Minute,
		FastExit:     true,
		// Seed 002: an architectural debate pauses for a human after each round.
		Checkpoints: true,
	}
}

// Named returns the built-in protocol of that name.
func Named(name string) (Protocol, error) {
	switch name {
	case ProtocolStandard, "":
		return Standard(), nil
	case ProtocolFastTrack:
		return FastTrack(), nil
	case ProtocolExtended:
		return Extended(), nil
	}
	return Protocol{}, fmt.Errorf("unknown protocol %q (want %s, %s or %s)", name, ProtocolStandard, ProtocolFastTrack, ProtocolExtended)
}

// Phase returns the spec of the phase of that kind.
func (p *Protocol) Phase(kind PhaseKind) (*PhaseSpec, bool) {
	for i := range p.Phases {
		if p.Phases[i].Kind == kind {
			return &p.Phases[i], true
		}
	}
	return nil, false
}

func (p *Protocol) index(kind PhaseKind) int {
	for i := range p.Phases {
		if p.Phases[i].Kind == kind {
			return i
		}
	}
	return -1
}

// Validate checks that the protocol can be run.
func (p *Protocol) Validate() error {
	if len(p.Phases) == 0 {
		return fmt.Errorf("protocol %q has no phases", p.Name)
	}
	if p.MaxCostUSD < 0 || math.IsNaN(p.MaxCostUSD) || math.IsInf(p.MaxCostUSD, 0) {
		return fmt.Errorf("protocol %q: the model budget must be a positive number of US dollars (0: no limit), got %v", p.Name, p.MaxCostUSD)
	}
	seen := map[PhaseKind]bool{}
	for i, ph := range p.Phases {
		if !ph.Kind.Valid() {
			return fmt.Errorf("protocol %q: phases[%d]: unknown phase %q", p.Name, i, ph.Kind)
		}
		if seen[ph.Kind] {
			return fmt.Errorf("protocol %q: phase %s appears twice", p.Name, ph.Kind)
		}
		seen[ph.Kind] = true
		if ph.TokenLimit < 0 {
			return fmt.Errorf("protocol %q: phase %s: token limit must not be negative, got %d", p.Name, ph.Kind, ph.TokenLimit)
		}
		if ph.Timeout <= 0 {
			return fmt.Errorf("protocol %q: phase %s: timeout must be positive, got %s", p.Name, ph.Kind, ph.Timeout)
		}
		switch ph.Takers {
		case TakersAll, TakersStakeholders, TakersMaintainers, TakersNone:
		default:
			return fmt.Errorf("protocol %q: phase %s: unknown takers %q", p.Name, ph.Kind, ph.Takers)
		}
	}
	if p.Phases[len(p.Phases)-1].Kind != PhaseDecision {
		return fmt.Errorf("protocol %q: the last phase must be %s", p.Name, PhaseDecision)
	}
	if p.TotalTimeout <= 0 {
		return fmt.Errorf("protocol %q: total timeout must be positive, got %s", p.Name, p.TotalTimeout)
	}
	if l := p.Loop; l != nil {
		from, to := p.index(l.From), p.index(l.To)
		if from < 0 || to < 0 || from > to {
			return fmt.Errorf("protocol %q: loop %s..%s does not name phases of the protocol in order", p.Name, l.From, l.To)
		}
		if l.MaxRounds < 1 {
			return fmt.Errorf("protocol %q: loop max_rounds must be at least 1, got %d", p.Name, l.MaxRounds)
		}
		for _, r := range l.ExitWhen {
			switch r {
			case ExitUnanimous, ExitStagnation, ExitConverged, ExitClearWinner:
			default:
				return fmt.Errorf("protocol %q: unknown exit rule %q", p.Name, r)
			}
		}
	}
	if p.CheckpointTimeout < 0 {
		return fmt.Errorf("protocol %q: checkpoint timeout must not be negative, got %s", p.Name, p.CheckpointTimeout)
	}
	if p.ConvergenceThreshold < 0 || p.ConvergenceThreshold > 1 {
		return fmt.Errorf("protocol %q: convergence threshold must be between 0 and 1, got %g", p.Name, p.ConvergenceThreshold)
	}
	return nil
}
