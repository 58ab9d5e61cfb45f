package store

import (
	"context"
	"sort"
	"strings"
)

// Stats are the debate metrics of seeds 004 and 000, computed from the store.
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
	// Dialectic are seed 000's failure and planning debates.
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
	return st, nil
}

// StatsOf computes the metrics over the finished debates of one repository.
func (s *Store) StatsOf(ctx context.Context, repository string) (*Stats, error) {
	ds, err := s.debates(ctx, "WHERE repository = ? AND decision <> ''", repository)
	if err != nil {
		return nil, err
	}
	return statsOf(ds), nil
}

func statsOf(ds []Debate) *Stats {
	st := &Stats{Decisions: map[string]int{}, MeanSecondsByProtocol: map[string]float64{}}
	count := map[string]int{}
	var consensus, auto, reversed, tokens int64
	for _, d := range ds {
		if d.Decision == "" {
			continue
		}
		st.Debates++
		st.Decisions[d.Decision]++
		count[d.Protocol]++
		st.MeanSecondsByProtocol[d.Protocol] += d.EndedAt.Sub(d.StartedAt).Seconds()
		if d.ConsensusLevel == "consensus" || d.ConsensusLevel == "strong" {
			consensus++
		}
		if d.Decision == "escalate" && !strings.Contains(d.Escalations, "human_review") {
			auto++
		}
		if h := d.HumanDecision; h != "" && h != "pending" {
			st.HumanDecided++
			if d.Decision != "escalate" && !Agrees(d.Decision, h) {
				reversed++
			}
		}
		tokens += d.Prompt + d.Completion
	}
	protocols := make([]string, 0, len(count))
	for p := range count {
		protocols = append(protocols, p)
	}
	sort.Strings(protocols)
	for _, p := range protocols {
		st.MeanSecondsByProtocol[p] /= float64(count[p])
	}
	if st.Debates > 0 {
		n := float64(st.Debates)
		st.ConsensusRate, st.AutoEscalationRate, st.TokensPerDebate = float64(consensus)/n, float64(auto)/n, float64(tokens)/n
	}
	if st.HumanDecided > 0 {
		st.ReversalRate = float64(reversed) / float64(st.HumanDecided)
	}
	return st
}
