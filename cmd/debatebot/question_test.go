package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A design question through debatebot debate --question: the moderator seats opposing
// perspectives, offline agents argue from their priorities and trade-offs, and the record and the
// transcript carry seed 002's synthesis document instead of a vote on code.
func TestQuestionProducesASynthesisDocument(t *testing.T) {
	q := "Should we use Redis or PostgreSQL for caching session data?"
	md, _ := debateBoth(t, "--question", q)
	code, js, errOut := runCmd(t, "", nil, "debate", "--question", q, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var env struct {
		Decision struct {
			Decision  string `json:"decision"`
			Synthesis *struct {
				Question     string `json:"question"`
				Perspectives []struct {
					Agent        string   `json:"agent"`
					KeyArguments []string `json:"key_arguments"`
					TradeOffs    []string `json:"trade_offs"`
				} `json:"perspectives"`
				Agreement      []string `json:"agreement"`
				Tensions       []string `json:"tensions"`
				Recommendation string   `json:"recommendation"`
				Confidence     string   `json:"confidence"`
				Caveats        []string `json:"caveats"`
				Dissent        string   `json:"dissent"`
			} `json:"synthesis"`
		} `json:"decision"`
	}
	if err := json.Unmarshal([]byte(js), &env); err != nil {
		t.Fatalf("record is not JSON: %v\n%s", err, js)
	}
	rec := env.Decision
	if rec.Decision == "escalate" {
		t.Errorf("an offline design question escalated by default")
	}
	syn := rec.Synthesis
	if syn == nil {
		t.Fatalf("no synthesis in the record:\n%s", js)
	}
	var agents []string
	for _, p := range syn.Perspectives {
		agents = append(agents, p.Agent)
		if len(p.KeyArguments) == 0 || len(p.TradeOffs) == 0 {
			t.Errorf("perspective %s lacks key arguments or trade-offs", p.Agent)
		}
	}
	// "session" seats security, "caching" performance; their trade-offs oppose.
	if strings.Join(agents, ",") != "security,performance" {
		t.Errorf("perspectives %v, want security and performance", agents)
	}
	if syn.Question != q || syn.Confidence != "Medium" || syn.Recommendation == "" || len(syn.Caveats) == 0 {
		t.Errorf("synthesis %+v, want the question, a recommendation, Medium confidence and caveats", syn)
	}
	if len(syn.Tensions) == 0 || !strings.Contains(syn.Tensions[0], "Security Stakeholder vs Performance Stakeholder") {
		t.Errorf("tensions %v, want the opposed perspectives' tension", syn.Tensions)
	}
	if !strings.Contains(syn.Dissent, "Performance Stakeholder") {
		t.Errorf("dissent %q, want the opposing perspective's view", syn.Dissent)
	}
	for _, want := range []string{"**Recommendation** (confidence Medium)", "### Key tensions", "Security Stakeholder vs Performance Stakeholder", "### Dissenting view"} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
}
