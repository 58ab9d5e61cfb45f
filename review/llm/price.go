package llm

import (
	"sort"
	"strings"

	"github.com/debatebot/debatebot/voting"
)

// Price is what a model costs per million tokens, in US dollars.
type Price struct {
	Input       float64 `yaml:"input" json:"input"`
	CachedInput float64 `yaml:"cached_input" json:"cached_input"`
	Output      float64 `yaml:"output" json:"output"`
}

// PriceTable maps model names (or prefixes of them) to prices.
type PriceTable map[string]Price

// DefaultPrices are list prices of common OpenAI models; configure others in debatebot.yml.
func DefaultPrices() PriceTable {
	return PriceTable{
		"gpt-4o":       {Input: 2.50, CachedInput: 1.25, Output: 10.00},
		"gpt-4o-mini":  {Input: 0.15, CachedInput: 0.075, Output: 0.60},
		"gpt-4.1":      {Input: 2.00, CachedInput: 0.50, Output: 8.00},
		"gpt-4.1-mini": {Input: 0.40, CachedInput: 0.10, Output: 1.60},
		"gpt-4.1-nano": {Input: 0.10, CachedInput: 0.025, Output: 0.40},
	}
}

// Lookup finds the price of a model: an exact name, else the longest name that prefixes it
// (gpt-4o-2024-08-06 is priced as gpt-4o).
func (t PriceTable) Lookup(model string) (Price, bool) {
	if p, ok := t[model]; ok {
		return p, true
	}
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, n := range names {
		if strings.HasPrefix(model, n+"-") {
			return t[n], true
		}
	}
	return Price{}, false
}

// Cost estimates the cost of usage on model; 0 for a model not in the table.
func (t PriceTable) Cost(model string, u voting.Usage) float64 {
	p, ok := t.Lookup(model)
	if !ok {
		return 0
	}
	uncached := u.Prompt - u.CachedPrompt
	return (float64(uncached)*p.Input + float64(u.CachedPrompt)*p.CachedInput + float64(u.Completion)*p.Output) / 1e6
}
