// Package voting turns the positions of a debate's participants into a decision: role weights,
// trust, the weighted consensus of seed 004, thresholds and the decision record, with the token
// usage (Usage) that the record bills and the debate's transcript counts by phase and agent,
// and the severity scale (Severity) that evidence gathering's findings, the debate's arguments
// and the record share.
//
// It imports nothing of the project's, so that the rules by which a debate is decided can be read
// and tested on their own.
package voting

import (
	"fmt"
	"sort"
)

// Role is the standing of a participant in a debate; it decides the weight of its vote.
type Role string

// Roles of seed 004. A senior stakeholder is a stakeholder whose trust exceeds the seniority
// threshold; it is derived, never configured.
const (
	RoleCoreMaintainer      Role = "core_maintainer"
	RoleSubsystemMaintainer Role = "subsystem_maintainer"
	RoleSeniorStakeholder   Role = "senior_stakeholder"
	RoleStakeholder         Role = "stakeholder"
)

// IsMaintainer reports whether the role takes part in synthesis.
func (r Role) IsMaintainer() bool {
	return r == RoleCoreMaintainer || r == RoleSubsystemMaintainer
}

// Valid reports whether r is one of the known roles.
func (r Role) Valid() bool {
	switch r {
	case RoleCoreMaintainer, RoleSubsystemMaintainer, RoleSeniorStakeholder, RoleStakeholder:
		return true
	}
	return false
}

// Option is what a participant votes for, and what a debate decides.
type Option string

// The options, from the most permissive to the most cautious.
const (
	Approve            Option = "approve"
	ApproveWithChanges Option = "approve_with_changes"
	RequestChanges     Option = "request_changes"
	Escalate           Option = "escalate"
)

// caution orders options: a tie goes to the higher value.
var caution = map[Option]int{Approve: 0, ApproveWithChanges: 1, RequestChanges: 2, Escalate: 3}

// Valid reports whether o is one of the known options.
func (o Option) Valid() bool {
	_, ok := caution[o]
	return ok
}

// MoreCautious returns the more cautious of a and b.
func MoreCautious(a, b Option) Option {
	if caution[b] > caution[a] {
		return b
	}
	return a
}

// Weights are the vote weights of seed 004 and the trust above which a stakeholder is senior.
type Weights struct {
	CoreMaintainer      float64 `yaml:"core_maintainer" json:"core_maintainer"`
	SubsystemMaintainer float64 `yaml:"subsystem_maintainer" json:"subsystem_maintainer"`
	SeniorStakeholder   float64 `yaml:"senior_stakeholder" json:"senior_stakeholder"`
	Stakeholder         float64 `yaml:"stakeholder" json:"stakeholder"`
	// SeniorTrust is the trust a stakeholder must exceed to vote as a senior stakeholder.
	SeniorTrust float64 `yaml:"senior_trust" json:"senior_trust"`
}

// Default weights and thresholds of seed 004.
const (
	DefaultCoreMaintainerWeight      = 5.0
	DefaultSubsystemMaintainerWeight = 3.0
	DefaultSeniorStakeholderWeight   = 1.5
	DefaultStakeholderWeight         = 1.0
	DefaultSeniorTrust               = 1.2
	DefaultStrongThreshold           = 0.80
	DefaultConsensusThreshold        = 0.65
)

// DefaultWeights returns the weights of seed 004.
func DefaultWeights() Weights {
	return Weights{
		CoreMaintainer:      DefaultCoreMaintainerWeight,
		SubsystemMaintainer: DefaultSubsystemMaintainerWeight,
		SeniorStakeholder:   DefaultSeniorStakeholderWeight,
		Stakeholder:         DefaultStakeholderWeight,
		SeniorTrust:         DefaultSeniorTrust,
	}
}

// Resolve returns the role a participant votes with and its weight. A stakeholder whose trust
// exceeds SeniorTrust votes as a senior stakeholder; maintainers keep their role whatever their
// trust.
func (w Weights) Resolve(role Role, trust float64) (Role, float64) {
	switch role {
	case RoleCoreMaintainer:
		return role, w.CoreMaintainer
	case RoleSubsystemMaintainer:
		return role, w.SubsystemMaintainer
	case RoleSeniorStakeholder:
		return role, w.SeniorStakeholder
	}
	if trust > w.SeniorTrust {
		return RoleSeniorStakeholder, w.SeniorStakeholder
	}
	return RoleStakeholder, w.Stakeholder
}

// Validate reports weights that cannot produce a meaningful vote.
func (w Weights) Validate() error {
	for name, v := range map[string]float64{
		"core_maintainer": w.CoreMaintainer, "subsystem_maintainer": w.SubsystemMaintainer,
		"senior_stakeholder": w.SeniorStakeholder, "stakeholder": w.Stakeholder,
	} {
		if v <= 0 {
			return fmt.Errorf("weight %s must be greater than 0, got %g", name, v)
		}
	}
	if w.SeniorTrust <= 0 {
		return fmt.Errorf("senior_trust must be greater than 0, got %g", w.SeniorTrust)
	}
	return nil
}

// Thresholds are the weighted-agreement levels of seed 004.
type Thresholds struct {
	Strong    float64 `yaml:"strong" json:"strong"`
	Consensus float64 `yaml:"consensus" json:"consensus"`
}

// DefaultThresholds returns strong > 0.80 and consensus > 0.65.
func DefaultThresholds() Thresholds {
	return Thresholds{Strong: DefaultStrongThreshold, Consensus: DefaultConsensusThreshold}
}

// Validate requires 0 < consensus < strong <= 1.
func (t Thresholds) Validate() error {
	if t.Consensus <= 0 || t.Consensus >= 1 {
		return fmt.Errorf("consensus threshold must be between 0 and 1, got %g", t.Consensus)
	}
	if t.Strong <= t.Consensus || t.Strong > 1 {
		return fmt.Errorf("strong threshold must be above the consensus threshold (%g) and at most 1, got %g", t.Consensus, t.Strong)
	}
	return nil
}

// Level names how broad the agreement is.
type Level string

// Consensus levels.
const (
	LevelStrong    Level = "strong"
	LevelConsensus Level = "consensus"
	LevelNone      Level = "none"
)

// Level classifies a weighted share: strictly above a threshold reaches it.
func (t Thresholds) Level(score float64) Level {
	switch {
	case score > t.Strong:
		return LevelStrong
	case score > t.Consensus:
		return LevelConsensus
	}
	return LevelNone
}

// Ballot is one participant's vote.
type Ballot struct {
	Agent      string  `yaml:"agent" json:"agent"`
	Role       Role    `yaml:"role" json:"role"`
	Weight     float64 `yaml:"weight" json:"weight"`
	Vote       Option  `yaml:"vote" json:"vote"`
	Confidence float64 `yaml:"confidence" json:"confidence"`
}

// Tally is the outcome of a weighted vote.
type Tally struct {
	// Winner is the option with the largest weighted share; ties go to the more cautious option.
	Winner Option
	// Score is the winner's weighted share: sum of the weights voting for it over all weights.
	Score float64
	Level Level
	// Shares holds every option's weighted share.
	Shares map[Option]float64
}

// Count computes the weighted consensus of seed 004 (weighted_sum / total_weight) for every
// option and picks the winner. With no ballots, or no weight, it returns an escalation with score 0.
func Count(ballots []Ballot, t Thresholds) Tally {
	total := 0.0
	sums := map[Option]float64{}
	for _, b := range ballots {
		if b.Weight <= 0 || !b.Vote.Valid() {
			continue
		}
		total += b.Weight
		sums[b.Vote] += b.Weight
	}
	if total == 0 {
		return Tally{Winner: Escalate, Level: LevelNone, Shares: map[Option]float64{}}
	}
	options := make([]Option, 0, len(sums))
	for o := range sums {
		options = append(options, o)
	}
	// Most weight first; among equals the more cautious option first.
	sort.Slice(options, func(i, j int) bool {
		if sums[options[i]] != sums[options[j]] {
			return sums[options[i]] > sums[options[j]]
		}
		return caution[options[i]] > caution[options[j]]
	})
	shares := make(map[Option]float64, len(sums))
	for o, s := range sums {
		shares[o] = s / total
	}
	score := shares[options[0]]
	return Tally{Winner: options[0], Score: score, Level: t.Level(score), Shares: shares}
}
