package voting

import (
	"reflect"
	"strings"
	"testing"
)

func TestResolveWeights(t *testing.T) {
	w := DefaultWeights()
	tests := map[string]struct {
		role       Role
		trust      float64
		wantRole   Role
		wantWeight float64
	}{
		"core maintainer":                    {RoleCoreMaintainer, 1.0, RoleCoreMaintainer, 5.0},
		"subsystem maintainer":               {RoleSubsystemMaintainer, 0.5, RoleSubsystemMaintainer, 3.0},
		"standard stakeholder":               {RoleStakeholder, 1.0, RoleStakeholder, 1.0},
		"trust exactly at threshold":         {RoleStakeholder, 1.2, RoleStakeholder, 1.0},
		"trusted stakeholder becomes senior": {RoleStakeholder, 1.21, RoleSeniorStakeholder, 1.5},
		"maintainer keeps role when trusted": {RoleSubsystemMaintainer, 2.0, RoleSubsystemMaintainer, 3.0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			role, weight := w.Resolve(tc.role, tc.trust)
			if role != tc.wantRole || weight != tc.wantWeight {
				t.Errorf("Resolve(%s, %g) = %s %g, want %s %g", tc.role, tc.trust, role, weight, tc.wantRole, tc.wantWeight)
			}
		})
	}
}

func TestCount(t *testing.T) {
	th := DefaultThresholds()
	b := func(vote Option, w float64) Ballot { return Ballot{Agent: string(vote), Vote: vote, Weight: w} }
	tests := map[string]struct {
		ballots    []Ballot
		wantWinner Option
		wantScore  float64
		wantLevel  Level
	}{
		"unanimous is strong": {[]Ballot{b(Approve, 5), b(Approve, 1)}, Approve, 1, LevelStrong},
		"core maintainer outweighs two stakeholders": {
			[]Ballot{b(ApproveWithChanges, 5), b(ApproveWithChanges, 3), b(RequestChanges, 1), b(RequestChanges, 1)},
			ApproveWithChanges, 0.8, LevelConsensus},
		"exactly at the consensus threshold is none": {
			// 0.65 is not above 0.65.
			[]Ballot{b(Approve, 13), b(RequestChanges, 7)}, Approve, 0.65, LevelNone},
		"tie goes to the cautious option": {[]Ballot{b(Approve, 3), b(RequestChanges, 3)}, RequestChanges, 0.5, LevelNone},
		"three-way tie goes to the most cautious": {
			[]Ballot{b(Approve, 1), b(ApproveWithChanges, 1), b(RequestChanges, 1)}, RequestChanges, 1.0 / 3, LevelNone},
		"no ballots escalate":      {nil, Escalate, 0, LevelNone},
		"zero weights are ignored": {[]Ballot{b(Approve, 0), b(RequestChanges, 1)}, RequestChanges, 1, LevelStrong},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Count(tc.ballots, th)
			if got.Winner != tc.wantWinner || Round2(got.Score) != Round2(tc.wantScore) || got.Level != tc.wantLevel {
				t.Errorf("Count = %s %.3f %s, want %s %.3f %s", got.Winner, got.Score, got.Level, tc.wantWinner, tc.wantScore, tc.wantLevel)
			}
		})
	}
}

func TestDecideEscalates(t *testing.T) {
	th := DefaultThresholds()
	agree := []Ballot{{Agent: "core", Vote: Approve, Weight: 5}, {Agent: "sec", Vote: Approve, Weight: 1}}
	tests := map[string]struct {
		in          Input
		want        Option
		wantReasons []EscalationReason
	}{
		"clear approval":      {Input{Ballots: agree, Thresholds: th}, Approve, nil},
		"critical unrebutted": {Input{Ballots: agree, Thresholds: th, CriticalUnrebutted: []string{"secret at a.go:3"}}, Escalate, []EscalationReason{ReasonCriticalUnrebutted}},
		"human review":        {Input{Ballots: agree, Thresholds: th, HumanReview: true}, Escalate, []EscalationReason{ReasonHumanReview}},
		"no consensus": {Input{Ballots: []Ballot{{Vote: Approve, Weight: 1}, {Vote: RequestChanges, Weight: 1}}, Thresholds: th},
			Escalate, []EscalationReason{ReasonNoConsensus}},
		"failed phase and no votes": {Input{Thresholds: th, FailedPhase: "opening"}, Escalate, []EscalationReason{ReasonPhaseFailed, ReasonNoConsensus}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Decide(tc.in)
			if got.Decision != tc.want {
				t.Errorf("Decision = %s, want %s", got.Decision, tc.want)
			}
			var reasons []EscalationReason
			for _, e := range got.Escalations {
				reasons = append(reasons, e.Reason)
				if e.Detail == "" {
					t.Errorf("escalation %s has no detail", e.Reason)
				}
			}
			if !reflect.DeepEqual(reasons, tc.wantReasons) {
				t.Errorf("reasons = %v, want %v", reasons, tc.wantReasons)
			}
		})
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := &Record{
		DebateID: "deb-1", Trigger: "cli", Protocol: "standard", Decision: ApproveWithChanges,
		ConsensusScore: 0.72, ConsensusLevel: LevelConsensus,
		Votes:              []Ballot{{Agent: "security", Role: RoleStakeholder, Weight: 1, Vote: RequestChanges, Confidence: 0.9}},
		DissentingOpinions: []Dissent{{Agent: "security", Concern: "SQL built by concatenation at db.go:12"}},
		RequiredChanges:    []string{"db.go:12: use a parameterised query"},
		Tokens:             Usage{Prompt: 10, Completion: 2},
		StartedAt:          "2026-01-02T03:04:05Z", EndedAt: "2026-01-02T03:04:06Z",
	}
	y, err := r.YAML()
	if err != nil {
		t.Fatal(err)
	}
	// The field names are a contract with tools that read the record.
	for _, key := range []string{"decision:\n  debate_id: deb-1", "  pr_number: 0", "  head_sha: \"\"", "  consensus_score: 0.72",
		"  consensus_level: consensus", "  votes:\n    - agent: security\n      role: stakeholder\n      weight: 1\n      vote: request_changes\n      confidence: 0.9",
		"  dissenting_opinions:", "  required_changes:", "  follow_up: []", "  tokens:\n    prompt: 10\n    completion: 2", "  started_at: \"2026-01-02T03:04:05Z\""} {
		if !strings.Contains(string(y), key) {
			t.Errorf("YAML lacks %q:\n%s", key, y)
		}
	}
	for _, enc := range []func() ([]byte, error){r.YAML, r.JSON} {
		b, err := enc()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRecord(b)
		if err != nil {
			t.Fatal(err)
		}
		want := r.normalised()
		if !reflect.DeepEqual(back, want) {
			t.Errorf("round trip:\n got %+v\nwant %+v", back, want)
		}
	}
	if _, err := ParseRecord([]byte("other: 1\n")); err == nil || !strings.Contains(err.Error(), "decision") {
		t.Errorf("ParseRecord without decision key: err = %v", err)
	}
}

// The record's tokens are {prompt, completion, cached_prompt, cost_usd}: the calls a usage counts
// stay in the transcript.
func TestRecordTokensLeaveCallsOut(t *testing.T) {
	r := &Record{DebateID: "deb-1", Tokens: Usage{Prompt: 10, Completion: 2, CachedPrompt: 4, Calls: 3, CostUSD: 0.01}}
	for _, enc := range []func() ([]byte, error){r.YAML, r.JSON} {
		b, err := enc()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "calls") || !strings.Contains(string(b), "cached_prompt") || !strings.Contains(string(b), "cost_usd") {
			t.Errorf("the record's tokens are not {prompt, completion, cached_prompt, cost_usd}:\n%s", b)
		}
	}
	if r.Tokens.Calls != 3 {
		t.Errorf("writing the record changed its usage: %+v", r.Tokens)
	}
}

func TestThresholdsValidate(t *testing.T) {
	if err := DefaultThresholds().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Thresholds{{Strong: 0.6, Consensus: 0.65}, {Strong: 0.9, Consensus: 0}, {Strong: 1.2, Consensus: 0.5}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", bad)
		}
	}
}
