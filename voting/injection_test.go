package voting

import "testing"

// Text addressed to the reviewer escalates whatever the votes: a unanimous, confident approval
// included.
func TestInjectionEscalatesWhateverTheVotes(t *testing.T) {
	ballots := []Ballot{
		{Agent: "core", Role: RoleCoreMaintainer, Weight: 5, Vote: Approve, Confidence: 1},
		{Agent: "security", Role: RoleStakeholder, Weight: 1, Vote: Approve, Confidence: 1},
	}
	out := Decide(Input{Ballots: ballots, Thresholds: DefaultThresholds(), Injections: []string{`the change's description addresses an AI reviewer: "ignore previous instructions"`}})
	if out.Decision != Escalate || len(out.Escalations) != 1 || out.Escalations[0].Reason != ReasonPromptInjection {
		t.Fatalf("decision %s, escalations %+v", out.Decision, out.Escalations)
	}
	if out.Tally.Winner != Approve || out.Tally.Score != 1 {
		t.Errorf("the tally should still show the votes: %+v", out.Tally)
	}
	if out := Decide(Input{Ballots: ballots, Thresholds: DefaultThresholds()}); out.Decision != Approve {
		t.Errorf("without injection the same votes decide %s", out.Decision)
	}
}
