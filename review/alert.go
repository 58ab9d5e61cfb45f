package review

import (
	"context"
	"slices"

	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// WithAlerts makes the debate take the alerts as evidence, besides what its analyzers find, and
// seat the security stakeholder whatever the moderator would choose: a security alert is the
// security stakeholder's to answer.
func (d *Debate) WithAlerts(alerts ...evidence.Alert) {
	if len(alerts) == 0 {
		return
	}
	if d.Analyzers == nil {
		d.Analyzers = evidence.DefaultAnalyzers()
	}
	d.Analyzers = append(slices.Clip(d.Analyzers), evidence.AlertAnalyzer{Alerts: alerts})
	if d.Panel == agents.PanelModerated {
		inner := d.Moderator
		if inner == nil {
			inner = agents.NewModerator(d.Agents)
		}
		d.Moderator = requireSeat{inner: inner, agent: rules.Security, reason: "required: a security alert concerns this change"}
	}
}

// requireSeat seats one stakeholder whatever the moderator chose, when it is a candidate.
type requireSeat struct {
	inner  toulmin.Moderator
	agent  string
	reason string
}

// Seat implements toulmin.Moderator.
func (m requireSeat) Seat(ctx context.Context, req *toulmin.SeatRequest) (*toulmin.Panel, error) {
	p, err := m.inner.Seat(ctx, req)
	if err != nil {
		return nil, err
	}
	for _, s := range p.Seated {
		if s.Agent == m.agent {
			return p, nil
		}
	}
	for _, c := range req.Candidates {
		if c.Name != m.agent {
			continue
		}
		p.Seated = append(p.Seated, voting.Seat{Agent: m.agent, Reason: m.reason})
		p.Left = slices.DeleteFunc(p.Left, func(s voting.Seat) bool { return s.Agent == m.agent })
		return p, nil
	}
	p.Notes = append(p.Notes, "the "+m.agent+" stakeholder is required by a security alert but is not on the panel")
	return p, nil
}
