package handlers

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/debatebot/debatebot/store"
)

// statsCollector exports the debate metrics of seeds 004 and 000, computed from the store at
// each scrape, so that every replica reports the same figures.
type statsCollector struct {
	st                                     *store.Store
	debates, consensus, auto, reversal     *prometheus.Desc
	tokens, duration, decisions, humanDone *prometheus.Desc
	// Seed 000's failure and planning debates.
	dialectic, helped, falsePositive *prometheus.Desc
}

func newStatsCollector(st *store.Store) *statsCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("debatebot_"+name, help, labels, nil)
	}
	return &statsCollector{
		st:        st,
		debates:   d("recorded_debates", "Debates decided, from the store."),
		consensus: d("consensus_rate", "Share of debates that reached consensus."),
		auto:      d("auto_escalation_rate", "Share of debates that escalated without a human asking."),
		reversal:  d("reversal_rate", "Share of human-decided debates the human decided otherwise."),
		tokens:    d("tokens_per_debate", "Mean model tokens per debate."),
		duration:  d("debate_mean_seconds", "Mean debate duration by protocol.", "protocol"),
		decisions: d("recorded_decisions", "Debates by decision, from the store.", "decision"),
		humanDone: d("human_decisions", "Debates a human decided."),
		dialectic: d("dialectic_debates", "Failure and planning debates by type and resolution; type escalation counts the failures escalated without another debate.", "type", "resolution"),
		helped:    d("dialectic_helped_rate", "Share of failure debates whose task's next run succeeded on a new commit."),
		falsePositive: d("dialectic_false_positive_rate",
			"Share of failure debates whose task's next run succeeded on the debated commit (a flaky failure: the debate was not needed)."),
	}
}

func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.debates, c.consensus, c.auto, c.reversal, c.tokens, c.duration, c.decisions, c.humanDone, c.dialectic, c.helped, c.falsePositive} {
		ch <- d
	}
}

func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := c.st.Stats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.debates, err)
		return
	}
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	g(c.debates, float64(s.Debates))
	g(c.consensus, s.ConsensusRate)
	g(c.auto, s.AutoEscalationRate)
	g(c.reversal, s.ReversalRate)
	g(c.tokens, s.TokensPerDebate)
	g(c.humanDone, float64(s.HumanDecided))
	for p, v := range s.MeanSecondsByProtocol {
		g(c.duration, v, p)
	}
	for d, n := range s.Decisions {
		g(c.decisions, float64(n), d)
	}
	for typ, byRes := range s.Dialectic.ByType {
		for res, n := range byRes {
			g(c.dialectic, float64(n), typ, res)
		}
	}
	g(c.helped, s.Dialectic.HelpedRate)
	g(c.falsePositive, s.Dialectic.FalsePositiveRate)
}
