package toulmin

import (
	"fmt"
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
	PhaseFinal         PhaseKind = "final_arguments"
	PhaseDesignReview  PhaseKind = "design_review"
	PhaseSynthesis     PhaseKind = "synthesis"
	PhaseDecision      PhaseKind = "decision"
)

var phaseTitles = map[PhaseKind]string{
	PhaseEvidence:      "Evidence Gathering",
	PhaseOpening:       "Opening Arguments",
	PhaseRebuttal:      "Rebuttals",
	PhaseClarification: "Clarification",
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

// Exit rules of seeds 001 and 002.
const (
	// ExitUnanimous: every participant holds the same stance and no concern is contested.
	ExitUnanimous ExitRule = "unanimous"
	// ExitStagnation: the last round added no new argument.
	ExitStagnation ExitRule = "stagnation"
)

// Loop repeats the phases From..To (inclusive) up to MaxRounds times; after each round the exit
// rules are checked and the first that holds ends the loop.
type Loop struct {
	From      PhaseKind  `yaml:"from" json:"from"`
	To        PhaseKind  `yaml:"to" json:"to"`
	MaxRounds int        `yaml:"max_rounds" json:"max_rounds"`
	ExitWhen  []ExitRule `yaml:"exit_when" json:"exit_when"`
}

// Protocol is a whole debate as data: phases, repetition, time and who takes part.
type Protocol struct {
	Name   string      `yaml:"name" json:"name"`
	Phases []PhaseSpec `yaml:"phases" json:"phases"`
	Loop   *Loop       `yaml:"loop,omitempty" json:"loop,omitempty"`
	// TotalTimeout bounds the whole debate.
	TotalTimeout time.Duration `yaml:"total_timeout" json:"total_timeout"`
	// Agents restricts the participants by name; empty means every agent given to the engine.
	Agents []string `yaml:"agents,omitempty" json:"agents,omitempty"`
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
	DefaultFinalTokens         = 400
	DefaultSynthesisTokens     = 800
	DefaultDesignReviewTokens  = 800
	DefaultMaxRebuttals        = 2
)

// StandardPhases returns seed 004's seven phases with its token limits and time limits. Synthesis
// and decision have no time in the seed; they get 10 and 1 minutes.
func StandardPhases() []PhaseSpec {
	return []PhaseSpec{
		{Kind: PhaseEvidence, TokenLimit: DefaultEvidenceTokens, Timeout: 5 * time.Minute, Takers: TakersNone},
		{Kind: PhaseOpening, TokenLimit: DefaultOpeningTokens, Timeout: 10 * time.Minute, Takers: TakersStakeholders},
		{Kind: PhaseRebuttal, TokenLimit: DefaultRebuttalTokens, Timeout: 10 * time.Minute, Takers: TakersStakeholders, MaxPerAgent: DefaultMaxRebuttals},
		{Kind: PhaseClarification, TokenLimit: DefaultClarificationTokens, Timeout: 5 * time.Minute, Takers: TakersStakeholders},
		{Kind: PhaseFinal, TokenLimit: DefaultFinalTokens, Timeout: 5 * time.Minute, Takers: TakersStakeholders},
		{Kind: PhaseSynthesis, TokenLimit: DefaultSynthesisTokens, Timeout: 10 * time.Minute, Takers: TakersMaintainers},
		{Kind: PhaseDecision, Timeout: time.Minute, Takers: TakersNone},
	}
}

// Standard is seed 004's protocol: one round of rebuttal and clarification.
func Standard() Protocol {
	return Protocol{
		Name:         ProtocolStandard,
		Phases:       StandardPhases(),
		Loop:         &Loop{From: PhaseRebuttal, To: PhaseClarification, MaxRounds: 1, ExitWhen: []ExitRule{ExitUnanimous, ExitStagnation}},
		TotalTimeout: 45 * time.Minute,
	}
}

// FastTrack is seed 004's protocol for urgent fixes: evidence, arguments, decision, ten minutes,
// the security stakeholder and the core maintainer only.
func FastTrack() Protocol {
	std := StandardPhases()
	opening := std[1]
	opening.Takers = TakersAll
	return Protocol{
		Name:         ProtocolFastTrack,
		Phases:       []PhaseSpec{std[0], opening, std[6]},
		TotalTimeout: 10 * time.Minute,
		Agents:       []string{"security", "core_maintainer"},
	}
}

// Extended is seed 004's protocol for major architectural changes: a design review phase, twice the
// time, and up to three rounds of rebuttal and clarification.
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
		Loop:         &Loop{From: PhaseRebuttal, To: PhaseClarification, MaxRounds: 3, ExitWhen: []ExitRule{ExitUnanimous, ExitStagnation}},
		TotalTimeout: 90 * time.Minute,
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
			if r != ExitUnanimous && r != ExitStagnation {
				return fmt.Errorf("protocol %q: unknown exit rule %q", p.Name, r)
			}
		}
	}
	return nil
}
