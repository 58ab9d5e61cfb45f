package review

import (
	"context"
	"testing"

	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// seatOnly is a moderator that seats one stakeholder, whatever the change.
type seatOnly string

func (s seatOnly) Seat(_ context.Context, req *toulmin.SeatRequest) (*toulmin.Panel, error) {
	p := &toulmin.Panel{Method: "test"}
	for _, c := range req.Candidates {
		if c.Name == string(s) {
			p.Seated = append(p.Seated, voting.Seat{Agent: c.Name, Reason: "chosen"})
		} else {
			p.Left = append(p.Left, voting.Seat{Agent: c.Name, Reason: "not chosen"})
		}
	}
	return p, nil
}

func TestWithAlertsRequiresTheSecurityStakeholder(t *testing.T) {
	panel := agents.OfflinePanel(agents.DefaultPerspectives())
	d := &Debate{Panel: agents.PanelModerated, Agents: panel, Moderator: seatOnly("performance")}
	d.WithAlerts(evidence.Alert{Kind: "code_scanning", Number: 3, Tool: "CodeQL", Rule: "go/sql-injection", Severity: "high", Message: "tainted", Path: "a.go", Line: 3})
	var cands []toulmin.Participant
	for _, a := range panel {
		if !a.Participant().Role.IsMaintainer() {
			cands = append(cands, a.Participant())
		}
	}
	p, err := d.Moderator.Seat(context.Background(), &toulmin.SeatRequest{Candidates: cands, Min: 2, Max: 4})
	if err != nil {
		t.Fatal(err)
	}
	var seated []string
	for _, s := range p.Seated {
		seated = append(seated, s.Agent)
	}
	if len(seated) != 2 || seated[1] != "security" || p.Seated[1].Reason != "required: a security alert concerns this change" {
		t.Errorf("seated %v", p.Seated)
	}
	for _, l := range p.Left {
		if l.Agent == "security" {
			t.Error("security is both seated and left")
		}
	}
	if n := len(d.Analyzers); n != len(evidence.DefaultAnalyzers())+1 {
		t.Errorf("analyzers %d, want the defaults and the alerts", n)
	}
	// Seated already: nothing changes.
	d2 := &Debate{Panel: agents.PanelModerated, Agents: panel, Moderator: seatOnly("security")}
	d2.WithAlerts(evidence.Alert{Kind: "dependabot", Number: 1, Message: "x"})
	if p, _ := d2.Moderator.Seat(context.Background(), &toulmin.SeatRequest{Candidates: cands}); len(p.Seated) != 1 {
		t.Errorf("seated %v", p.Seated)
	}
}
