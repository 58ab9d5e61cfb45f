package dashboard

import (
	"fmt"
	"math"
)

// rateSpec says which way a rate is good, and where it turns fair and poor: a rate is judged,
// not merely drawn, and the judgement is written beside its colour.
type rateSpec struct {
	Label string
	// HigherIsBetter is the good direction; Good and Fair are the bounds of the good and fair
	// bands (at least Good is good when higher is better, at most Good when lower is).
	HigherIsBetter bool
	Good, Fair     float64
	// Means says what the rate counts, for the legend.
	Means string
}

var (
	consensusRate = rateSpec{Label: "consensus", HigherIsBetter: true, Good: 0.70, Fair: 0.40,
		Means: "debates whose agents reached consensus"}
	reversalRate = rateSpec{Label: "reversal", Good: 0.10, Fair: 0.25,
		Means: "decisions a maintainer overturned, of those a maintainer decided"}
	autoEscalationRate = rateSpec{Label: "auto-escalation", Good: 0.15, Fair: 0.35,
		Means: "debates handed to a maintainer without anyone asking"}
)

// Verdicts of a rate, and their colours (the bar's fill); the word is always shown beside it.
const (
	verdictGood   = "good"
	verdictFair   = "fair"
	verdictPoor   = "poor"
	verdictNoData = "no data"
)

var verdictColours = map[string]string{verdictGood: "#1a7f37", verdictFair: "#9a6700", verdictPoor: "#cf222e", verdictNoData: "#8c959f"}

// judge says how good a rate is; a rate over no debates has no verdict.
func (s rateSpec) judge(rate float64, over int) string {
	if over <= 0 || math.IsNaN(rate) {
		return verdictNoData
	}
	if s.HigherIsBetter {
		switch {
		case rate >= s.Good:
			return verdictGood
		case rate >= s.Fair:
			return verdictFair
		}
		return verdictPoor
	}
	switch {
	case rate <= s.Good:
		return verdictGood
	case rate <= s.Fair:
		return verdictFair
	}
	return verdictPoor
}

// Direction says which way is good, and the bands, in words.
func (s rateSpec) Direction() string {
	if s.HigherIsBetter {
		return fmt.Sprintf("higher is better: good from %.0f%%, fair from %.0f%%, poor below", s.Good*100, s.Fair*100)
	}
	return fmt.Sprintf("lower is better: good up to %.0f%%, fair up to %.0f%%, poor above", s.Good*100, s.Fair*100)
}

// rateBar is one rate's bar: its value, its verdict in words and its colour.
type rateBar struct {
	bar
	Verdict, Colour, Direction, Means string
}

// rateBarOf draws a rate over some debates.
func rateBarOf(s rateSpec, rate float64, over int) rateBar {
	v := s.judge(rate, over)
	value := fmt.Sprintf("%.0f%%", rate*100)
	width := math.Round(2000*rate) / 10
	if v == verdictNoData {
		value, width = "–", 0
	}
	return rateBar{bar: bar{Label: s.Label, Value: value, Width: width}, Verdict: v, Colour: verdictColours[v], Direction: s.Direction(), Means: s.Means}
}
