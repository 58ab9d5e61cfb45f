package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Stats are the debate metrics, computed from the store.
type Stats struct {
	Debates int `json:"debates"`
	// Decisions counts debates by decision.
	Decisions map[string]int `json:"decisions"`
	// MeanSecondsByProtocol is the average duration of a debate of each protocol.
	MeanSecondsByProtocol map[string]float64 `json:"mean_seconds_by_protocol"`
	// ConsensusRate is the share of debates that reached consensus (level consensus or strong).
	ConsensusRate float64 `json:"consensus_rate"`
	// AutoEscalationRate is the share of debates that escalated without a human asking.
	AutoEscalationRate float64 `json:"auto_escalation_rate"`
	// HumanDecided counts debates a human decided; ReversalRate is the share of those in which
	// the human decided otherwise than the debate (escalations excluded).
	HumanDecided int     `json:"human_decided"`
	ReversalRate float64 `json:"reversal_rate"`
	// TokensPerDebate is the mean of prompt plus completion tokens.
	TokensPerDebate float64 `json:"tokens_per_debate"`
	// CostUSD is the estimated model cost of the debates (0 offline), and CostPerDebate its
	// mean.
	CostUSD       float64 `json:"cost_usd"`
	CostPerDebate float64 `json:"cost_per_debate"`
	// Dialectic are the failure and planning debates.
	Dialectic DialecticStats `json:"dialectic"`
}

// Agrees reports whether a vote agrees with a human decision ("approve" or "request_changes").
func Agrees(vote, human string) bool {
	switch human {
	case "approve":
		return vote == "approve" || vote == "approve_with_changes"
	case "request_changes":
		return vote == "request_changes"
	}
	return false
}

// Stats computes the metrics over every finished debate.
func (s *Store) Stats(ctx context.Context) (*Stats, error) {
	ds, err := s.Debates(ctx)
	if err != nil {
		return nil, err
	}
	st := statsOf(ds)
	if st.Dialectic, err = s.dialecticStats(ctx); err != nil {
		return nil, err
	}
	if err := s.db.QueryRowContext(ctx, "SELECT COALESCE(SUM(cost_usd), 0) FROM debates WHERE decision <> ''").Scan(&st.CostUSD); err != nil {
		return nil, fmt.Errorf("failed to sum the cost of the debates: %w", err)
	}
	if st.Debates > 0 {
		st.CostPerDebate = st.CostUSD / float64(st.Debates)
	}
	return st, nil
}

// StatsOf computes the metrics over the finished debates of one repository.
func (s *Store) StatsOf(ctx context.Context, repository string) (*Stats, error) {
	by, err := s.StatsByRepository(ctx, []string{repository})
	if err != nil {
		return nil, err
	}
	return by[repository], nil
}

// StatsByRepository computes the metrics over the finished debates of each repository, read in
// one query; every repository asked for has its metrics, zero when it has no finished debate.
func (s *Store) StatsByRepository(ctx context.Context, repos []string) (map[string]*Stats, error) {
	if len(repos) == 0 {
		return map[string]*Stats{}, nil
	}
	args := make([]any, len(repos))
	for i, r := range repos {
		args[i] = r
	}
	in := strings.TrimSuffix(strings.Repeat("?, ", len(repos)), ", ")
	// Each repository's debates are added up as they are read, in the order the query gives
	// them, without keeping them.
	sums := make(map[string]*statsSum, len(repos))
	for _, r := range repos {
		sums[r] = newStatsSum()
	}
	rows, err := s.queryDebates(ctx, "WHERE decision <> '' AND repository IN ("+in+")", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		d, err := scanDebate(rows)
		if err != nil {
			return nil, err
		}
		if sum := sums[d.Repository]; sum != nil {
			sum.add(&d)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make(map[string]*Stats, len(sums))
	for r, sum := range sums {
		out[r] = sum.stats()
	}
	if err := s.costs(ctx, in, args, out); err != nil {
		return nil, err
	}
	return out, nil
}

// costs adds each repository's model cost, over its decided debates, to its metrics.
func (s *Store) costs(ctx context.Context, in string, args []any, out map[string]*Stats) error {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT repository, COALESCE(SUM(cost_usd), 0) FROM debates WHERE decision <> '' AND repository IN ("+in+") GROUP BY repository"), args...)
	if err != nil {
		return fmt.Errorf("failed to sum the cost of each repository's debates: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var repo string
		var cost float64
		if err := rows.Scan(&repo, &cost); err != nil {
			return fmt.Errorf("failed to read a repository's cost: %w", err)
		}
		if st := out[repo]; st != nil {
			st.CostUSD = cost
			if st.Debates > 0 {
				st.CostPerDebate = cost / float64(st.Debates)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("failed to sum the cost of each repository's debates: %w", err)
	}
	return nil
}

func statsOf(ds []Debate) *Stats {
	sum := newStatsSum()
	for i := range ds {
		sum.add(&ds[i])
	}
	return sum.stats()
}

// statsSum adds up debates, one at a time, into their Stats.
type statsSum struct {
	st                                *Stats
	count                             map[string]int
	consensus, auto, reversed, tokens int64
}

func newStatsSum() *statsSum {
	return &statsSum{st: &Stats{Decisions: map[string]int{}, MeanSecondsByProtocol: map[string]float64{}}, count: map[string]int{}}
}

func (a *statsSum) add(d *Debate) {
	if d.Decision == "" {
		return
	}
	st := a.st
	st.Debates++
	st.Decisions[d.Decision]++
	a.count[d.Protocol]++
	st.MeanSecondsByProtocol[d.Protocol] += d.EndedAt.Sub(d.StartedAt).Seconds()
	if d.ConsensusLevel == "consensus" || d.ConsensusLevel == "strong" {
		a.consensus++
	}
	if d.Decision == "escalate" && !strings.Contains(d.Escalations, "human_review") {
		a.auto++
	}
	if h := d.HumanDecision; h != "" && h != "pending" {
		st.HumanDecided++
		if d.Decision != "escalate" && !Agrees(d.Decision, h) {
			a.reversed++
		}
	}
	a.tokens += d.Prompt + d.Completion
}

// stats finishes the sum: the means and rates of what was added.
func (a *statsSum) stats() *Stats {
	st := a.st
	protocols := make([]string, 0, len(a.count))
	for p := range a.count {
		protocols = append(protocols, p)
	}
	sort.Strings(protocols)
	for _, p := range protocols {
		st.MeanSecondsByProtocol[p] /= float64(a.count[p])
	}
	if st.Debates > 0 {
		n := float64(st.Debates)
		st.ConsensusRate, st.AutoEscalationRate, st.TokensPerDebate = float64(a.consensus)/n, float64(a.auto)/n, float64(a.tokens)/n
	}
	if st.HumanDecided > 0 {
		st.ReversalRate = float64(a.reversed) / float64(st.HumanDecided)
	}
	return st
}
