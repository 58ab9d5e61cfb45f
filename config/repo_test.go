package config

import (
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

func TestDefaults(t *testing.T) {
	for name, data := range map[string]string{"no file": "", "comments only": "# nothing set\n"} {
		t.Run(name, func(t *testing.T) {
			r, err := Parse([]byte(data), RepoPath)
			if err != nil {
				t.Fatal(err)
			}
			if r.Protocol != "standard" || r.CommandPermission != "write" || *r.MaxDebatesPerHour != 5 || len(r.Triggers.PullRequest) != 4 || r.GitHubReviewEvent() != "COMMENT" {
				t.Errorf("defaults = %+v", r)
			}
			if len(r.Stakeholders) != 6 || r.VotingThresholds() != voting.DefaultThresholds() || *r.Weights != voting.DefaultWeights() {
				t.Errorf("stakeholders %d thresholds %+v weights %+v", len(r.Stakeholders), r.VotingThresholds(), *r.Weights)
			}
		})
	}
}

func TestParseValid(t *testing.T) {
	r, err := Parse([]byte(`
protocol: extended
command_permission: maintain
max_debates_per_hour: 2
ignore: ["vendor/**", "**/*.pb.go"]
thresholds:
  consensus: 0.6
stakeholders:
  - name: security
    trust: 1.5
  - name: privacy
    perspective: "Guards personal data"
    priorities: ["no personal data in logs"]
  - name: core_maintainer
phases:
  opening_arguments: {token_limit: 700, timeout: 90s}
max_rounds: 2
total_timeout: 20m
`), RepoPath)
	if err != nil {
		t.Fatal(err)
	}
	sec := r.Stakeholders[0]
	if sec.Title != "Security Stakeholder" || sec.Abbrev != "SS" || sec.Trust != 1.5 || len(sec.Priorities) == 0 {
		t.Errorf("a built-in name did not inherit its defaults: %+v", sec)
	}
	priv := r.Stakeholders[1]
	if priv.Title != "Privacy" || priv.Abbrev != "P" || priv.Role != voting.RoleStakeholder || priv.Summary != "Guards personal data" {
		t.Errorf("custom stakeholder = %+v", priv)
	}
	if r.VotingThresholds().Consensus != 0.6 || r.VotingThresholds().Strong != 0.8 {
		t.Errorf("thresholds = %+v", r.VotingThresholds())
	}
	p, err := r.DebateProtocol("")
	if err != nil {
		t.Fatal(err)
	}
	open, _ := p.Phase(toulmin.PhaseOpening)
	if p.Name != "extended" || open.TokenLimit != 700 || open.Timeout != 90*time.Second || p.Loop.MaxRounds != 2 || p.TotalTimeout != 20*time.Minute {
		t.Errorf("protocol = %s opening %+v rounds %d total %s", p.Name, open, p.Loop.MaxRounds, p.TotalTimeout)
	}
	fast, err := r.DebateProtocol("fast-track")
	if err != nil || fast.Name != "fast-track" {
		t.Errorf("fast-track = %v %v", fast.Name, err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := map[string]struct {
		data string
		want []string
	}{
		"unknown key":               {"protocl: standard\n", []string{`line 1: unknown key "protocl"`}},
		"nested unknown key":        {"thresholds:\n  strength: 0.9\n", []string{`line 2: unknown key "strength"`}},
		"not a number":              {"thresholds:\n  strong: high\n", []string{`line 2: "high" is not a valid number`}},
		"not yaml":                  {"protocol: [standard\n", []string{"line 1"}},
		"unknown protocol":          {"protocol: quick\n", []string{`protocol: unknown protocol "quick"`}},
		"thresholds out of order":   {"thresholds:\n  strong: 0.6\n  consensus: 0.7\n", []string{"thresholds: strong threshold must be above the consensus threshold"}},
		"bad permission":            {"command_permission: owner\n", []string{`command_permission: "owner" is not a permission level`}},
		"bad review event":          {"review_event: block\n", []string{`review_event: "block" is not a review event (want comment or request_changes)`}},
		"bad glob":                  {"ignore: [\"[abc\"]\n", []string{`ignore[0]: "[abc" is not a valid glob`}},
		"bad duration":              {"phases:\n  rebuttal: {timeout: soon}\n", []string{`line 2: "soon" is not a positive duration`}},
		"unknown phase":             {"phases:\n  debate: {token_limit: 3}\n", []string{`phases: unknown phase "debate"`}},
		"duplicate stakeholder":     {"stakeholders:\n  - name: security\n  - name: security\n", []string{`stakeholders[1].name: "security" appears twice`}},
		"senior is not a role":      {"stakeholders:\n  - name: x\n    role: senior_stakeholder\n", []string{`stakeholders[0].role: "senior_stakeholder" is not a role`}},
		"checkpoints on fast-track": {"protocol: fast-track\ncheckpoints: true\n", []string{"checkpoints: the fast-track protocol has no rounds"}},
		"checkpoint wait too long":  {"checkpoint_timeout: 200h\n", []string{"checkpoint_timeout: at most 168h0m0s"}},
		"checkpoint wait negative":  {"checkpoint_timeout: -5m\n", []string{`line 1: "-5m" is not a positive duration`}},
		"budget of no debates":      {"budget: {debates_per_hour: 0}\n", []string{"budget.debates_per_hour: must be at least 1 (leave it out for the server's default), got 0"}},
		"negative token budget":     {"budget:\n  model_tokens_per_day: -5\n", []string{"budget.model_tokens_per_day: must be at least 1"}},
		"unknown budget key":        {"budget:\n  tokens: 5\n", []string{`line 2: unknown key "tokens"`}},
		"two problems at once":      {"command_permission: owner\nmax_debates_per_hour: -1\n", []string{"command_permission", "max_debates_per_hour: must not be negative"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.data), RepoPath)
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, RepoPath+": ") || strings.Contains(msg, "\n") {
				t.Errorf("error %q must be one line naming the file", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestPermissionAtLeast(t *testing.T) {
	for _, tc := range []struct {
		have, want string
		ok         bool
	}{{"admin", "write", true}, {"write", "write", true}, {"read", "write", false}, {"triage", "write", false}, {"none", "read", false}} {
		if got := PermissionAtLeast(tc.have, tc.want); got != tc.ok {
			t.Errorf("PermissionAtLeast(%s, %s) = %v, want %v", tc.have, tc.want, got, tc.ok)
		}
	}
}

func TestCheckpoints(t *testing.T) {
	for _, tc := range []struct {
		file string
		on   bool
		wait time.Duration
	}{
		{"protocol: standard\n", false, 30 * time.Minute},
		{"protocol: extended\n", true, 30 * time.Minute},
		{"protocol: extended\ncheckpoints: false\n", false, 30 * time.Minute},
		{"protocol: standard\ncheckpoints: true\ncheckpoint_timeout: 2h\n", true, 2 * time.Hour},
		{"protocol: extended\ndepth: quick\ncheckpoints: true\n", false, 30 * time.Minute}, // no rounds left
	} {
		r, err := Parse([]byte(tc.file), RepoPath)
		if err != nil {
			t.Fatalf("%q: %v", tc.file, err)
		}
		p, err := r.DebateProtocol("")
		if err != nil {
			t.Fatalf("%q: %v", tc.file, err)
		}
		if p.Checkpoints != tc.on || p.CheckpointWait() != tc.wait {
			t.Errorf("%q: checkpoints %v wait %s, want %v %s", tc.file, p.Checkpoints, p.CheckpointWait(), tc.on, tc.wait)
		}
	}
}

func TestPerspectivesAndDepth(t *testing.T) {
	r, err := Parse([]byte(`
perspectives:
  - name: privacy
    perspective: "Guards personal data"
    evidence: [security]
    keywords: [gdpr, email]
    languages: [go, python]
    opposes: [performance]
  - name: performance
    keywords: [cache]
depth: deep
max_rounds: 1
convergence_threshold: 0.7
`), RepoPath)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range r.Stakeholders {
		names = append(names, s.Name)
	}
	// The catalog (built-ins, one changed, one added) and the maintainers, who always take part.
	if got := strings.Join(names, ","); got != "security,performance,architecture,maintainability,privacy,architecture_maintainer,core_maintainer" {
		t.Errorf("stakeholders = %s", got)
	}
	perf := r.Stakeholders[1]
	if strings.Join(perf.Keywords, ",") != "cache" || len(perf.Opposes) == 0 || perf.Title != "Performance Stakeholder" {
		t.Errorf("a built-in named in perspectives keeps what it does not set: %+v", perf)
	}
	if r.Panel() != agents.PanelModerated || Default().Panel() != agents.PanelModerated {
		t.Error("without a stakeholders list the moderator seats the panel")
	}
	p, err := r.DebateProtocol("")
	if err != nil {
		t.Fatal(err)
	}
	if p.Depth != toulmin.DepthDeep || p.Loop.MaxRounds != 1 || p.Convergence() != 0.7 {
		t.Errorf("protocol depth %s, %d rounds (max_rounds caps deep's 2), threshold %g", p.Depth, p.Loop.MaxRounds, p.Convergence())
	}
	quick, _ := Parse([]byte("depth: quick\n"), RepoPath)
	if q, err := quick.DebateProtocol(""); err != nil || q.Loop != nil {
		t.Errorf("quick = %+v, %v", q.Loop, err)
	}
	listed, _ := Parse([]byte("stakeholders:\n  - name: security\n"), RepoPath)
	if listed.Panel() != agents.PanelConfigured {
		t.Error("a stakeholders list wins over the moderator")
	}
	if d := Default(); *d.ConvergenceThreshold != 0.8 || d.Depth != "" {
		t.Errorf("defaults: threshold %g depth %q", *d.ConvergenceThreshold, d.Depth)
	}
}

func TestPerspectivesErrors(t *testing.T) {
	tests := map[string]struct {
		data string
		want string
	}{
		"both lists":           {"stakeholders:\n  - name: security\nperspectives:\n  - name: privacy\n", "perspectives: cannot be combined with stakeholders"},
		"opposes an unknown":   {"perspectives:\n  - name: privacy\n    opposes: [speed]\n", `perspectives[0].opposes[0]: "speed" is not a perspective of the catalog (architecture, maintainability, performance, privacy, security)`},
		"opposes itself":       {"perspectives:\n  - name: privacy\n    opposes: [privacy]\n", `perspectives[0].opposes[0]: "privacy" cannot oppose itself`},
		"a maintainer":         {"perspectives:\n  - name: lead\n    role: core_maintainer\n", `perspectives[0].role: "core_maintainer": the catalog holds stakeholders`},
		"unknown language":     {"perspectives:\n  - name: privacy\n    languages: [cobol]\n", `perspectives[0].languages[0]: "cobol" is not a language`},
		"empty keyword":        {"perspectives:\n  - name: privacy\n    keywords: [\" \"]\n", "perspectives[0].keywords[0]: must not be empty"},
		"abbreviation taken":   {"perspectives:\n  - name: cost\n    abbrev: CM\n", `perspectives[0].abbrev: "CM" is used by another stakeholder (core_maintainer)`},
		"a built-in's abbrev":  {"perspectives:\n  - name: speed\n    abbrev: PS\n", `perspectives[0].abbrev: "PS" is used by another stakeholder (performance)`},
		"unknown depth":        {"depth: thorough\n", `depth: unknown depth "thorough" (want quick, standard or deep)`},
		"threshold above one":  {"convergence_threshold: 1.5\n", "convergence_threshold: must be above 0 and at most 1"},
		"threshold not number": {"convergence_threshold: most\n", `line 1: "most" is not a valid number`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.data), RepoPath)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Parse = %v, want one line containing %q", err, tc.want)
			}
		})
	}
}

func TestReviewEvent(t *testing.T) {
	r, err := Parse([]byte("review_event: request_changes\n"), RepoPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.GitHubReviewEvent(); got != "REQUEST_CHANGES" {
		t.Errorf("GitHubReviewEvent() = %q, want REQUEST_CHANGES", got)
	}
}

// budget: its keys are the repository's, unset ones the server's defaults.
func TestBudget(t *testing.T) {
	r, err := Parse([]byte("budget: {debates_per_hour: 3, model_tokens_per_day: 50000}\n"), RepoPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Budget.DebatesPerHourOr(30); got != 3 {
		t.Errorf("debates per hour = %d, want 3", got)
	}
	if got := r.Budget.ModelTokensPerDayOr(1); got != 50000 {
		t.Errorf("tokens per day = %d, want 50000", got)
	}
	d := Default()
	if d.Budget.DebatesPerHourOr(30) != 30 || d.Budget.ModelTokensPerDayOr(7) != 7 {
		t.Errorf("without a budget the server's defaults do not apply: %+v", d.Budget)
	}
}

// max_alert_issues defaults to 5 and is refused outside 1..100; the schema says alerts: issue is
// for private repositories only.
func TestMaxAlertIssues(t *testing.T) {
	r, err := Parse([]byte("alerts: issue\n"), RepoPath)
	if err != nil || r.MaxAlertIssues == nil || *r.MaxAlertIssues != DefaultMaxAlertIssues {
		t.Fatalf("default max_alert_issues: %v %v", r, err)
	}
	for _, bad := range []string{"0", "-1", "101"} {
		if _, err := Parse([]byte("alerts: issue\nmax_alert_issues: "+bad+"\n"), RepoPath); err == nil || !strings.Contains(err.Error(), "max_alert_issues") {
			t.Errorf("max_alert_issues: %s accepted (%v)", bad, err)
		}
	}
	schema, err := Schema()
	if err != nil || !strings.Contains(string(schema), "only in a private repository") {
		t.Errorf("the schema does not say alert issues are for private repositories only (%v)", err)
	}
}

// llm.max_cost_usd is no limit when unset, a debate's budget when set, and refused with a clear
// error when it is not a positive amount; the debate of the repository carries it.
func TestMaxCostUSD(t *testing.T) {
	if c := Default().LLM.MaxCost(); c != 0 {
		t.Errorf("default max cost = %v, want none (0)", c)
	}
	r, err := Parse([]byte("llm:\n  max_cost_usd: 0.25\n"), RepoPath)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.LLM.MaxCost(); c != 0.25 {
		t.Errorf("max cost = %v, want 0.25", c)
	}
	for _, bad := range []string{"0", "-1", ".nan", ".inf"} {
		_, err := Parse([]byte("llm:\n  max_cost_usd: "+bad+"\n"), RepoPath)
		if err == nil || !strings.Contains(err.Error(), "llm.max_cost_usd: must be a positive number of US dollars") {
			t.Errorf("max_cost_usd %s: %v, want a clear error", bad, err)
		}
	}
	if _, err := Parse([]byte("llm:\n  max_cost_usd: cheap\n"), RepoPath); err == nil {
		t.Error("max_cost_usd: cheap was accepted")
	}
}
