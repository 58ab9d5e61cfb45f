// Package config reads debatebot's configuration: the per-repository file .github/debatebot.yml
// (parsed strictly, validated with errors that name the key and the line, defaults filled in).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"

	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// RepoPath is where a repository keeps its configuration, read from the base branch.
const RepoPath = ".github/debatebot.yml"

// Defaults of the repository file.
const (
	DefaultCommandPermission = "write"
	// DefaultHumanReviewPermission is who may stop a debate with /human-review.
	DefaultHumanReviewPermission = "write"
	DefaultMaxDebatesPerHour     = 5
	// DefaultReviewEvent posts the inline review as comments, which block nothing.
	DefaultReviewEvent = ReviewEventComment
)

// Values of review_event.
const (
	ReviewEventComment        = "comment"
	ReviewEventRequestChanges = "request_changes"
)

// GitHubReviewEvent is the event of the pull request review API that review_event names.
func (r *Repo) GitHubReviewEvent() string {
	if r.ReviewEvent == ReviewEventRequestChanges {
		return publish.ReviewEventRequestChanges
	}
	return publish.ReviewEventComment
}

// Duration is a time.Duration written as "90s", "10m" or "1h30m".
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return fmt.Errorf("line %d: want a duration such as 90s or 10m", n.Line)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("line %d: %q is not a positive duration (want e.g. 90s or 10m)", n.Line, s)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration back as a string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// Phase overrides one phase's limits.
type Phase struct {
	TokenLimit *int     `yaml:"token_limit"`
	Timeout    Duration `yaml:"timeout,omitempty"`
}

// Triggers say which events start a debate.
type Triggers struct {
	// PullRequest lists the pull_request actions that start a debate.
	PullRequest []string `yaml:"pull_request" jsonschema:"uniqueItems=true"`
	// Drafts debates draft pull requests too.
	Drafts bool `yaml:"drafts"`
}

// Thresholds override the consensus thresholds.
type Thresholds struct {
	Strong    *float64 `yaml:"strong"`
	Consensus *float64 `yaml:"consensus"`
}

// Repo is .github/debatebot.yml.
type Repo struct {
	Protocol          string   `yaml:"protocol" jsonschema:"enum=standard,enum=fast-track,enum=extended"`
	Triggers          Triggers `yaml:"triggers"`
	CommandPermission string   `yaml:"command_permission" jsonschema:"enum=read,enum=triage,enum=write,enum=maintain,enum=admin"`
	// HumanReviewPermission is the permission /human-review needs (deciding after it needs
	// maintain).
	HumanReviewPermission string          `yaml:"human_review_permission" jsonschema:"enum=read,enum=triage,enum=write,enum=maintain,enum=admin"`
	MaxDebatesPerHour     *int            `yaml:"max_debates_per_hour"`
	Ignore                []string        `yaml:"ignore"`
	Thresholds            Thresholds      `yaml:"thresholds"`
	Weights               *voting.Weights `yaml:"weights"`
	// Stakeholders, when set, is the whole panel: it wins over the moderator.
	Stakeholders []agents.Perspective `yaml:"stakeholders"`
	// Perspectives adds to (or, by a built-in name, changes) the catalog the moderator seats
	// 2 to 4 stakeholders from (seed 002); it cannot be combined with stakeholders.
	Perspectives []agents.Perspective        `yaml:"perspectives"`
	Phases       map[toulmin.PhaseKind]Phase `yaml:"phases"`
	// MaxRounds sets the rounds of rebuttal, clarification and response; with a depth, it caps
	// them.
	MaxRounds int `yaml:"max_rounds"`
	// Depth is seed 003's depth: quick (the openings), standard (one round of confrontation),
	// deep (up to two, ending at convergence_threshold); empty keeps the protocol's rounds.
	Depth string `yaml:"depth" jsonschema:"enum=,enum=quick,enum=standard,enum=deep"`
	// ConvergenceThreshold is the share of disputed points agreed at which the moderator judges
	// a round converging, and a deep debate stops (default 0.80).
	ConvergenceThreshold *float64 `yaml:"convergence_threshold"`
	TotalTimeout         Duration `yaml:"total_timeout,omitempty"`
	// Checkpoints pauses the debate after each round for a human to continue, guide or end it
	// (seed 002); unset, it is on for the extended protocol and off for the others.
	Checkpoints *bool `yaml:"checkpoints"`
	// CheckpointTimeout is how long a checkpoint waits for a human before the rounds end and
	// the debate goes to synthesis (default 30m, at most MaxCheckpointTimeout).
	CheckpointTimeout Duration `yaml:"checkpoint_timeout,omitempty"`
	LLM               LLM      `yaml:"llm"`
	// ReviewEvent is how the inline review is posted: comment (the default) leaves the pull
	// request mergeable; request_changes blocks it when the debate decided to request changes.
	ReviewEvent string `yaml:"review_event" jsonschema:"enum=,enum=comment,enum=request_changes"`
	// FailureDebates holds seed 000's failure debate after two consecutive failures of a CI
	// workflow or check with the same error on a pull request (default on).
	FailureDebates *bool `yaml:"failure_debates"`
	// Alerts says where a code scanning or Dependabot alert on the default branch is debated:
	// "issue" (an issue opened for the alerts of one rule or package) or "off" (the default:
	// only alerts on a pull request's head start that pull request's debate). Issues are opened
	// only in private repositories: on any other, an issue would publish what GitHub shows only
	// to maintainers.
	Alerts string `yaml:"alerts" jsonschema:"enum=,enum=off,enum=issue" jsonschema_description:"Where a code scanning or Dependabot alert on the default branch is debated: issue opens one issue per rule (code scanning) or package (Dependabot), only in a private repository (never in a public or internal one, where the issue would publish what GitHub shows only to maintainers); off (the default) debates only alerts on a pull request's head, in that pull request."`
	// MaxAlertIssues caps the issues open at once for alerts (alerts: issue); an alert of a
	// new rule or package past the cap opens none (default DefaultMaxAlertIssues).
	MaxAlertIssues *int `yaml:"max_alert_issues" jsonschema:"minimum=1,maximum=100" jsonschema_description:"The most issues open at once for alerts (alerts: issue), default 5; past it, an alert of a new rule or package opens no issue until one is closed."`
	// Budget bounds what the repository's debates may spend, whatever starts them; unset keys
	// take the server's defaults.
	Budget Budget `yaml:"budget"`

	// configured is set when the file lists the stakeholders (the moderator does not choose).
	configured bool
}

// Budget is a repository's budget, counted in the store over every trigger (pull request
// events, labels, commands, CI failures, planning). Unset keys take the server's defaults
// (DEBATEBOT_REPO_DEBATES_PER_HOUR, DEBATEBOT_REPO_TOKENS_PER_DAY).
type Budget struct {
	DebatesPerHour *int `yaml:"debates_per_hour" jsonschema:"minimum=1" jsonschema_description:"Debates of this repository started in any hour, whatever starts them (pushes, labels, commands, CI failures, planning). Over it, a debate is skipped and the pull request says until when. Default: the server's DEBATEBOT_REPO_DEBATES_PER_HOUR."`
	// ModelTokensPerDay bounds the model tokens (prompt and completion) of the repository's
	// debates per UTC day; once spent, debates run with the offline agents.
	ModelTokensPerDay *int64 `yaml:"model_tokens_per_day" jsonschema:"minimum=1" jsonschema_description:"Model tokens (prompt and completion) the repository's debates may spend per UTC day. Once spent, debates run with the offline agents, and the review says so. Default: the server's DEBATEBOT_REPO_TOKENS_PER_DAY."`
}

// DebatesPerHourOr is debates_per_hour, or def when the file does not set it (0: no limit).
func (b Budget) DebatesPerHourOr(def int) int {
	if b.DebatesPerHour != nil {
		return *b.DebatesPerHour
	}
	return def
}

// ModelTokensPerDayOr is model_tokens_per_day, or def when the file does not set it (0: no
// limit).
func (b Budget) ModelTokensPerDayOr(def int64) int64 {
	if b.ModelTokensPerDay != nil {
		return *b.ModelTokensPerDay
	}
	return def
}

// problems validates the budget: a number set is at least 1 (leave it out for the server's
// default).
func (b Budget) problems() []string {
	var out []string
	if b.DebatesPerHour != nil && *b.DebatesPerHour < 1 {
		out = append(out, fmt.Sprintf("budget.debates_per_hour: must be at least 1 (leave it out for the server's default), got %d", *b.DebatesPerHour))
	}
	if b.ModelTokensPerDay != nil && *b.ModelTokensPerDay < 1 {
		out = append(out, fmt.Sprintf("budget.model_tokens_per_day: must be at least 1 (leave it out for the server's default), got %d", *b.ModelTokensPerDay))
	}
	return out
}

// LLM tunes the model-backed agents.
type LLM struct {
	// Concurrency bounds the model calls of one phase in flight at once.
	Concurrency int `yaml:"concurrency"`
	// ContextTokens is the budget for the change in a prompt.
	ContextTokens int `yaml:"context_tokens"`
	// MaxRetries bounds the retries of a call on 429, 5xx and request timeouts.
	MaxRetries int `yaml:"max_retries"`
	// Calls is how the model is asked: "panel" (the default), one call per phase that speaks for
	// the whole panel, a round's three phases and the final arguments with the synthesis each in
	// one call; "agent", one call per agent per phase, each turn written on its own, at several
	// times the tokens.
	Calls string `yaml:"calls,omitempty" jsonschema:"enum=panel,enum=agent"`
	// RequestTimeout bounds each model request (each retry has its own); one that times out is
	// retried like a 5xx.
	RequestTimeout Duration `yaml:"request_timeout,omitempty"`
	// Prices adds to or replaces entries of the built-in price table (US dollars per million tokens).
	Prices llm.PriceTable `yaml:"prices"`
	// MaxCostUSD, when set, is each debate's model budget in US dollars, priced with Prices:
	// once a debate has spent it, its rounds end early, the maintainers synthesise and the
	// summary says so. Unset: no limit.
	MaxCostUSD *float64 `yaml:"max_cost_usd,omitempty" jsonschema:"exclusiveMinimum=0"`
}

// The values of llm.calls.
const (
	CallsPanel = "panel"
	CallsAgent = "agent"
)

// Options are the model calls' options under this section, for the model at baseURL.
func (l LLM) Options(apiKey, baseURL, model string) llm.Options {
	return llm.Options{
		APIKey: apiKey, BaseURL: baseURL, Model: model, MaxRetries: l.MaxRetries, RequestTimeout: time.Duration(l.RequestTimeout),
		ContextTokens: l.ContextTokens, Prices: l.PriceTable(), PerAgent: l.Calls == CallsAgent,
	}
}

// MaxCost is the debate's model budget in US dollars, 0 for none.
func (l LLM) MaxCost() float64 {
	if l.MaxCostUSD == nil {
		return 0
	}
	return *l.MaxCostUSD
}

// DefaultMaxAlertIssues is max_alert_issues when unset, and MaxMaxAlertIssues its bound.
const (
	DefaultMaxAlertIssues = 5
	MaxMaxAlertIssues     = 100
)

// MaxCheckpointTimeout bounds checkpoint_timeout: a week, after which nobody is coming back to
// the pull request's paused debate.
const MaxCheckpointTimeout = 7 * 24 * time.Hour

// DefaultConcurrency is the llm section's concurrency when unset.
const DefaultConcurrency = 4

// PriceTable is the built-in table with the file's entries applied.
func (l LLM) PriceTable() llm.PriceTable {
	t := llm.DefaultPrices()
	for k, v := range l.Prices {
		t[k] = v
	}
	return t
}

// Error is a problem with the configuration file: where and what.
type Error struct {
	File     string
	Problems []string
	// Unregistered is set on serve's configuration when it names no GitHub App at all: the
	// setup page can register one (LoadSetup).
	Unregistered bool
}

func (e *Error) Error() string {
	return e.File + ": " + strings.Join(e.Problems, "; ")
}

// Default returns the configuration of a repository with no file.
func Default() *Repo {
	r := &Repo{}
	if err := r.fill(); err != nil {
		panic(fmt.Sprintf("config: the defaults do not validate: %v", err))
	}
	return r
}

// Parse reads and validates a repository configuration. An empty file means the defaults.
func Parse(data []byte, file string) (*Repo, error) {
	r := &Repo{}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(r); err != nil && !errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Problems: yamlProblems(err)}
		}
	}
	if err := r.fill(); err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.File = file
			for i, p := range ce.Problems {
				ce.Problems[i] = oneLine(p)
			}
			return nil, ce
		}
		return nil, &Error{File: file, Problems: []string{oneLine(err.Error())}}
	}
	return r, nil
}

var (
	unknownField = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)
	badType      = regexp.MustCompile("line (\\d+): cannot unmarshal !!(\\w+) `([^`]*)` into (\\S+)")
)

// yamlProblems turns yaml.v3's messages into ones a user can act on.
func yamlProblems(err error) []string {
	var te *yaml.TypeError
	var msgs []string
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		if s := unknownField.FindStringSubmatch(m); s != nil {
			m = fmt.Sprintf("line %s: unknown key %q", s[1], s[2])
		} else if s := badType.FindStringSubmatch(m); s != nil {
			m = fmt.Sprintf("line %s: %q is not a valid %s", s[1], s[3], friendlyType(s[4]))
		}
		out = append(out, oneLine(m))
	}
	return out
}

// lineBreaks escapes the line breaks a key, tag or value quoted from the file may hold.
var lineBreaks = strings.NewReplacer("\r", `\r`, "\n", `\n`, "\u2028", `\u2028`, "\u2029", `\u2029`, "\u0085", `\u0085`)

// oneLine keeps a problem on one line: problems are listed one a line in the comment that
// reports a broken file, and joined in one line in logs.
func oneLine(problem string) string { return lineBreaks.Replace(problem) }

func friendlyType(t string) string {
	switch {
	case strings.Contains(t, "float"):
		return "number"
	case strings.Contains(t, "int"):
		return "whole number"
	case strings.Contains(t, "bool"):
		return "true/false value"
	case strings.HasPrefix(t, "[]"):
		return "list"
	case strings.HasPrefix(t, "map") || strings.Contains(t, "config."):
		return "mapping"
	}
	return t
}

var permissions = map[string]int{"read": 0, "triage": 1, "write": 2, "maintain": 3, "admin": 4}

// PermissionAtLeast reports whether have is at least want (GitHub repository permission levels).
func PermissionAtLeast(have, want string) bool {
	h, ok1 := permissions[have]
	w, ok2 := permissions[want]
	return ok1 && ok2 && h >= w
}

var prActions = map[string]bool{"opened": true, "synchronize": true, "reopened": true, "ready_for_review": true, "labeled": true}

// fillAlerts validates and fills alerts and max_alert_issues.
func (r *Repo) fillAlerts(bad func(format string, args ...any)) {
	switch r.Alerts {
	case "":
		r.Alerts = "off"
	case "off", "issue":
	default:
		bad("alerts: %q is not a choice (want off or issue)", r.Alerts)
	}
	if r.MaxAlertIssues == nil {
		n := DefaultMaxAlertIssues
		r.MaxAlertIssues = &n
	} else if *r.MaxAlertIssues < 1 || *r.MaxAlertIssues > MaxMaxAlertIssues {
		bad("max_alert_issues: must be between 1 and %d, got %d", MaxMaxAlertIssues, *r.MaxAlertIssues)
	}
}

// fill validates the file and fills every gap with its default. Problems are reported in the
// order of the stages, each section's own in the order of its keys.
func (r *Repo) fill() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	r.fillTriggers(bad)
	r.fillPosting(bad)
	r.fillAlerts(bad)
	r.fillScope(bad)
	r.fillVoting(bad)
	if len(r.Stakeholders) > 0 && len(r.Perspectives) > 0 {
		bad("perspectives: cannot be combined with stakeholders: a stakeholders list is the whole panel, so the moderator would never seat these; keep one of the two")
	} else {
		problems = append(problems, r.fillStakeholders()...)
	}
	r.fillDebate(bad)
	r.fillLLM(bad)
	problems = append(problems, r.Budget.problems()...)
	if r.MaxRounds < 0 || r.MaxRounds > 10 {
		bad("max_rounds: must be between 1 and 10, got %d", r.MaxRounds)
	}
	if len(problems) > 0 {
		return &Error{Problems: problems}
	}
	return nil
}

// fillTriggers settles which debate runs and when: the protocol and the pull-request actions
// that start it.
func (r *Repo) fillTriggers(bad func(format string, args ...any)) {
	if r.Protocol == "" {
		r.Protocol = toulmin.ProtocolStandard
	}
	if _, err := toulmin.Named(r.Protocol); err != nil {
		bad("protocol: %v", err)
	}
	if r.Triggers.PullRequest == nil {
		r.Triggers.PullRequest = []string{"opened", "synchronize", "reopened", "ready_for_review"}
	}
	for _, a := range r.Triggers.PullRequest {
		if !prActions[a] {
			bad("triggers.pull_request: unknown action %q (want opened, synchronize, reopened, ready_for_review or labeled)", a)
		}
	}
}

// fillPosting settles who may command the bot and stop a debate, how the verdict is posted
// (the review event) and whether CI failures are debated.
func (r *Repo) fillPosting(bad func(format string, args ...any)) {
	for _, p := range []struct {
		key   string
		level *string
		def   string
	}{
		{"command_permission", &r.CommandPermission, DefaultCommandPermission},
		{"human_review_permission", &r.HumanReviewPermission, DefaultHumanReviewPermission},
	} {
		if *p.level == "" {
			*p.level = p.def
		}
		if _, ok := permissions[*p.level]; !ok {
			bad("%s: %q is not a permission level (want read, triage, write, maintain or admin)", p.key, *p.level)
		}
	}
	switch r.ReviewEvent {
	case "":
		r.ReviewEvent = DefaultReviewEvent
	case ReviewEventComment, ReviewEventRequestChanges:
	default:
		bad("review_event: %q is not a review event (want comment or request_changes)", r.ReviewEvent)
	}
	if r.FailureDebates == nil {
		on := true
		r.FailureDebates = &on
	}
}

// fillScope settles how many debates an hour may start and which files are left out.
func (r *Repo) fillScope(bad func(format string, args ...any)) {
	if r.MaxDebatesPerHour == nil {
		n := DefaultMaxDebatesPerHour
		r.MaxDebatesPerHour = &n
	} else if *r.MaxDebatesPerHour < 0 {
		bad("max_debates_per_hour: must not be negative, got %d", *r.MaxDebatesPerHour)
	}
	for i, g := range r.Ignore {
		if !doublestar.ValidatePattern(g) {
			bad("ignore[%d]: %q is not a valid glob", i, g)
		}
	}
}

// fillVoting settles the consensus thresholds (each unset one at its default) and the role
// weights.
func (r *Repo) fillVoting(bad func(format string, args ...any)) {
	th := voting.DefaultThresholds()
	if r.Thresholds.Strong != nil {
		th.Strong = *r.Thresholds.Strong
	}
	if r.Thresholds.Consensus != nil {
		th.Consensus = *r.Thresholds.Consensus
	}
	if err := th.Validate(); err != nil {
		bad("thresholds: %v", err)
	}
	r.Thresholds = Thresholds{Strong: &th.Strong, Consensus: &th.Consensus}
	if r.Weights == nil {
		w := voting.DefaultWeights()
		r.Weights = &w
	} else if err := r.Weights.Validate(); err != nil {
		bad("weights: %v", err)
	}
}

// fillDebate settles the course of the debate: depth, convergence threshold, checkpoints
// between rounds and how long they wait, and the phases' settings.
func (r *Repo) fillDebate(bad func(format string, args ...any)) {
	if _, err := toulmin.ParseDepth(r.Depth); err != nil {
		bad("depth: %v", err)
	}
	if r.ConvergenceThreshold == nil {
		v := toulmin.DefaultConvergenceThreshold
		r.ConvergenceThreshold = &v
	} else if *r.ConvergenceThreshold <= 0 || *r.ConvergenceThreshold > 1 {
		bad("convergence_threshold: must be above 0 and at most 1 (the share of disputed points agreed), got %g", *r.ConvergenceThreshold)
	}
	if r.Checkpoints != nil && *r.Checkpoints && r.Protocol == toulmin.ProtocolFastTrack {
		bad("checkpoints: the %s protocol has no rounds to pause between; drop checkpoints or choose standard or extended", toulmin.ProtocolFastTrack)
	}
	if time.Duration(r.CheckpointTimeout) > MaxCheckpointTimeout {
		bad("checkpoint_timeout: at most %s (a paused debate holds its pull request's review), got %s", MaxCheckpointTimeout, time.Duration(r.CheckpointTimeout))
	}
	for kind, p := range r.Phases {
		if !kind.Valid() || kind == toulmin.PhaseDecision {
			bad("phases: unknown phase %q (want one of evidence_gathering, opening_arguments, rebuttal, clarification, response, final_arguments, design_review, synthesis)", kind)
			continue
		}
		if p.TokenLimit != nil && *p.TokenLimit < 0 {
			bad("phases.%s.token_limit: must not be negative, got %d", kind, *p.TokenLimit)
		}
	}
}

// fillLLM settles the llm section: concurrency, context size, retries and request timeout at
// their defaults when unset, and the prices.
func (r *Repo) fillLLM(bad func(format string, args ...any)) {
	if r.LLM.Concurrency == 0 {
		r.LLM.Concurrency = DefaultConcurrency
	}
	if r.LLM.ContextTokens == 0 {
		r.LLM.ContextTokens = agents.DefaultContextTokens
	}
	if r.LLM.MaxRetries == 0 {
		r.LLM.MaxRetries = llm.DefaultMaxRetries
	}
	if r.LLM.RequestTimeout == 0 {
		r.LLM.RequestTimeout = Duration(llm.DefaultRequestTimeout)
	}
	if r.LLM.Calls == "" {
		r.LLM.Calls = CallsPanel
	}
	if r.LLM.Calls != CallsPanel && r.LLM.Calls != CallsAgent {
		bad("llm.calls: must be %q (one call per phase for the whole panel) or %q (one call per agent per phase), got %q", CallsPanel, CallsAgent, r.LLM.Calls)
	}
	if r.LLM.Concurrency < 0 || r.LLM.ContextTokens < 500 || r.LLM.MaxRetries < 0 || r.LLM.MaxRetries > 10 {
		bad("llm: concurrency must be positive, context_tokens at least 500 and max_retries between 0 and 10 (got %d, %d, %d)", r.LLM.Concurrency, r.LLM.ContextTokens, r.LLM.MaxRetries)
	}
	if c := r.LLM.MaxCostUSD; c != nil && (*c <= 0 || math.IsNaN(*c) || math.IsInf(*c, 0)) {
		bad("llm.max_cost_usd: must be a positive number of US dollars per debate, such as 0.50 (leave it out for no limit), got %v", *c)
	}
	for model, p := range r.LLM.Prices {
		if p.Input < 0 || p.CachedInput < 0 || p.Output < 0 {
			bad("llm.prices.%s: prices must not be negative", model)
		}
	}
}

var abbrevOK = regexp.MustCompile(`^[A-Z][A-Z0-9]{0,4}$`)

// fillStakeholders settles the panel: the configured stakeholders, or else the moderator's
// catalog (the built-in stakeholders changed and extended by perspectives) with the built-in
// maintainers.
func (r *Repo) fillStakeholders() []string {
	if len(r.Stakeholders) > 0 {
		r.configured = true
		return fillPerspectives(r.Stakeholders, "stakeholders", nil)
	}
	var catalog, maintainers []agents.Perspective
	for _, p := range agents.DefaultPerspectives() {
		if p.Role.IsMaintainer() {
			maintainers = append(maintainers, p)
		} else {
			catalog = append(catalog, p)
		}
	}
	if len(r.Perspectives) == 0 {
		r.Stakeholders = agents.DefaultPerspectives()
		return nil
	}
	listed := map[string]bool{}
	for _, p := range r.Perspectives {
		listed[p.Name] = true
	}
	taken := append([]agents.Perspective(nil), maintainers...)
	for _, p := range catalog {
		if !listed[p.Name] {
			taken = append(taken, p)
		}
	}
	problems := fillPerspectives(r.Perspectives, "perspectives", taken)
	for i, p := range r.Perspectives {
		if p.Role != voting.RoleStakeholder {
			problems = append(problems, fmt.Sprintf("perspectives[%d].role: %q: the catalog holds stakeholders the moderator seats; maintainers belong in stakeholders", i, p.Role))
		}
	}
	for _, p := range r.Perspectives {
		replaced := false
		for j := range catalog {
			if catalog[j].Name == p.Name {
				catalog[j], replaced = p, true
			}
		}
		if !replaced {
			catalog = append(catalog, p)
		}
	}
	names := map[string]bool{}
	for _, p := range catalog {
		names[p.Name] = true
	}
	for i, p := range r.Perspectives {
		for j, o := range p.Opposes {
			switch {
			case o == p.Name:
				problems = append(problems, fmt.Sprintf("perspectives[%d].opposes[%d]: %q cannot oppose itself", i, j, o))
			case !names[o]:
				problems = append(problems, fmt.Sprintf("perspectives[%d].opposes[%d]: %q is not a perspective of the catalog (%s)", i, j, o, strings.Join(slices.Sorted(maps.Keys(names)), ", ")))
			}
		}
	}
	r.Stakeholders = append(catalog, maintainers...)
	return problems
}

// fillPerspectives validates a list of perspectives (the key names where it is) and fills each
// one's gaps: a built-in name inherits what it does not set. taken are perspectives the list
// sits beside, whose abbreviations it must not reuse.
func fillPerspectives(list []agents.Perspective, key string, taken []agents.Perspective) []string {
	var problems []string
	defaults := map[string]agents.Perspective{}
	for _, p := range agents.DefaultPerspectives() {
		defaults[p.Name] = p
	}
	names, abbrevs := map[string]bool{}, map[string]string{}
	for _, p := range taken {
		abbrevs[p.Abbrev] = p.Name
	}
	for i := range list {
		s := &list[i]
		at := fmt.Sprintf("%s[%d]", key, i)
		if s.Name == "" {
			problems = append(problems, at+".name: must not be empty")
			continue
		}
		// The name is a key: in argument ids' owners, trust per agent, and the store's
		// comma-separated "agent=vote" list that learning from human decisions reads back.
		if strings.IndexFunc(s.Name, func(c rune) bool { return !nameRune(c) }) >= 0 {
			problems = append(problems, fmt.Sprintf("%s.name: %q may hold only letters, digits, _, - and . (it is a key, e.g. core_maintainer)", at, s.Name))
			continue
		}
		fillPerspective(s, defaults)
		if names[s.Name] {
			problems = append(problems, fmt.Sprintf("%s.name: %q appears twice", at, s.Name))
		}
		names[s.Name] = true
		if !abbrevOK.MatchString(s.Abbrev) {
			problems = append(problems, fmt.Sprintf("%s.abbrev: %q must be 1-5 capital letters or digits", at, s.Abbrev))
		} else if other, ok := abbrevs[s.Abbrev]; ok {
			problems = append(problems, fmt.Sprintf("%s.abbrev: %q is used by another stakeholder (%s)", at, s.Abbrev, other))
		}
		abbrevs[s.Abbrev] = s.Name
		problems = append(problems, perspectiveProblems(at, s)...)
	}
	return problems
}

// fillPerspective fills a perspective's gaps: a built-in name (one of defaults) inherits
// everything it does not set; then the title comes from the name, the abbreviation from the
// title's initials, and the role is stakeholder.
func fillPerspective(s *agents.Perspective, defaults map[string]agents.Perspective) {
	if d, ok := defaults[s.Name]; ok {
		if s.Title == "" {
			s.Title = d.Title
		}
		if s.Abbrev == "" {
			s.Abbrev = d.Abbrev
		}
		if s.Role == "" {
			s.Role = d.Role
		}
		if s.Summary == "" {
			s.Summary = d.Summary
		}
		if s.Priorities == nil {
			s.Priorities = d.Priorities
		}
		if s.TradeOffs == nil {
			s.TradeOffs = d.TradeOffs
		}
		if s.Opposes == nil {
			s.Opposes = d.Opposes
		}
		if s.Keywords == nil {
			s.Keywords = d.Keywords
		}
	}
	if s.Title == "" {
		s.Title = titleCase(s.Name)
	}
	if s.Abbrev == "" {
		s.Abbrev = initials(s.Title)
	}
	if s.Role == "" {
		s.Role = voting.RoleStakeholder
	}
}

// perspectiveProblems validates what a filled perspective holds on its own (at names where it
// is): its role, trust, path globs, languages and keywords.
func perspectiveProblems(at string, s *agents.Perspective) []string {
	var problems []string
	if !s.Role.Valid() || s.Role == voting.RoleSeniorStakeholder {
		problems = append(problems, fmt.Sprintf("%s.role: %q is not a role (want stakeholder, subsystem_maintainer or core_maintainer; seniority comes from trust)", at, s.Role))
	}
	if s.Trust < 0 {
		problems = append(problems, fmt.Sprintf("%s.trust: must not be negative, got %g", at, s.Trust))
	}
	for j, g := range s.Paths {
		if !doublestar.ValidatePattern(g) {
			problems = append(problems, fmt.Sprintf("%s.paths[%d]: %q is not a valid glob", at, j, g))
		}
	}
	for j, l := range s.Languages {
		if !change.IsLanguage(l) {
			problems = append(problems, fmt.Sprintf("%s.languages[%d]: %q is not a language (want one of %s)", at, j, l, strings.Join(change.Languages(), ", ")))
		}
	}
	for j, k := range s.Keywords {
		if strings.TrimSpace(k) == "" {
			problems = append(problems, fmt.Sprintf("%s.keywords[%d]: must not be empty", at, j))
		}
	}
	return problems
}

// Panel says who seats the stakeholders: the file's stakeholders list when it has one, the
// moderator otherwise.
func (r *Repo) Panel() agents.PanelChoice {
	if r.configured {
		return agents.PanelConfigured
	}
	return agents.PanelModerated
}

// nameRune says whether c may appear in a stakeholder's name.
func nameRune(c rune) bool {
	return unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '-' || c == '.'
}

// titleCase capitalises each word's first letter (a whole rune: "élan" is "Élan").
func titleCase(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	for i, w := range words {
		_, n := utf8.DecodeRuneInString(w)
		words[i] = strings.ToUpper(w[:n]) + w[n:]
	}
	return strings.Join(words, " ")
}

// initials abbreviates a title by the first letters of its words that are A-Z or 0-9 once
// capitalised (an abbreviation prefixes argument ids), at most five.
func initials(title string) string {
	var b strings.Builder
	for _, w := range strings.Fields(title) {
		if r, _ := utf8.DecodeRuneInString(w); b.Len() < 5 {
			if r = unicode.ToUpper(r); r < utf8.RuneSelf && (unicode.IsUpper(r) || unicode.IsDigit(r)) {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// DebateProtocol returns the named protocol (the file's default when name is empty) with the
// file's phase limits, depth, rounds, convergence threshold and total time applied.
func (r *Repo) DebateProtocol(name string) (toulmin.Protocol, error) {
	if name == "" {
		name = r.Protocol
	}
	p, err := toulmin.Named(name)
	if err != nil {
		return p, err
	}
	kinds := make([]string, 0, len(r.Phases))
	for k := range r.Phases {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		o := r.Phases[toulmin.PhaseKind(k)]
		spec, ok := p.Phase(toulmin.PhaseKind(k))
		if !ok {
			continue // a phase this protocol does not run
		}
		if o.TokenLimit != nil {
			spec.TokenLimit = *o.TokenLimit
		}
		if o.Timeout > 0 {
			spec.Timeout = time.Duration(o.Timeout)
		}
	}
	if r.Depth != "" {
		if p, err = p.WithDepth(toulmin.Depth(r.Depth), r.MaxRounds); err != nil {
			return p, err
		}
	} else if r.MaxRounds > 0 && p.Loop != nil {
		p.Loop.MaxRounds = r.MaxRounds
	}
	if r.ConvergenceThreshold != nil {
		p.ConvergenceThreshold = *r.ConvergenceThreshold
	}
	if r.TotalTimeout > 0 {
		p.TotalTimeout = time.Duration(r.TotalTimeout)
	}
	if r.Checkpoints != nil {
		p.Checkpoints = *r.Checkpoints && p.Loop != nil
	}
	if r.CheckpointTimeout > 0 {
		p.CheckpointTimeout = time.Duration(r.CheckpointTimeout)
	}
	return p, p.Validate()
}

// VotingThresholds returns the thresholds with defaults applied.
func (r *Repo) VotingThresholds() voting.Thresholds {
	return voting.Thresholds{Strong: *r.Thresholds.Strong, Consensus: *r.Thresholds.Consensus}
}
