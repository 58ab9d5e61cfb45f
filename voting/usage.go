package voting

import (
	"math"
)

// Usage is the token usage of one or more model calls: of a turn, a phase, an agent or a whole
// debate in the transcript, and of the debate in its decision record (which leaves Calls out).
type Usage struct {
	Prompt     int64 `json:"prompt" yaml:"prompt"`
	Completion int64 `json:"completion" yaml:"completion"`
	// CachedPrompt is the part of Prompt the provider served from its prompt cache.
	CachedPrompt int64 `json:"cached_prompt,omitempty" yaml:"cached_prompt,omitempty"`
	// Calls counts the model calls; the decision record does not write it.
	Calls int `json:"calls,omitempty" yaml:"calls,omitempty"`
	// CostUSD is the estimated cost from the price table of the agent's model.
	CostUSD float64 `json:"cost_usd,omitempty" yaml:"cost_usd,omitempty"`
}

// Add sums usage.
func (u *Usage) Add(o Usage) {
	u.Prompt += o.Prompt
	u.Completion += o.Completion
	u.CachedPrompt += o.CachedPrompt
	u.Calls += o.Calls
	u.CostUSD += o.CostUSD
}

// Empty reports whether u counts nothing (a cost below a micro-cent is rounding).
func (u Usage) Empty() bool {
	return u.Prompt == 0 && u.Completion == 0 && u.CachedPrompt == 0 && u.Calls == 0 && math.Abs(u.CostUSD) < 1e-9
}

// Sub takes o out of u.
func (u *Usage) Sub(o Usage) {
	u.Prompt -= o.Prompt
	u.Completion -= o.Completion
	u.CachedPrompt -= o.CachedPrompt
	u.Calls -= o.Calls
	u.CostUSD -= o.CostUSD
}
