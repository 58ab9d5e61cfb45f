package agents

import (
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/voting"
)

// Perspective is a viewpoint a debater argues from (seed 002): what it prioritises and which
// trade-offs it accepts. The catalog is extensible from debatebot.yml.
type Perspective struct {
	Name   string      `yaml:"name" json:"name"`
	Title  string      `yaml:"title" json:"title"`
	Abbrev string      `yaml:"abbrev" json:"abbrev"`
	Role   voting.Role `yaml:"role" json:"role"`
	// Summary is one sentence of what the perspective argues for.
	Summary    string   `yaml:"perspective" json:"perspective"`
	Priorities []string `yaml:"priorities" json:"priorities"`
	TradeOffs  []string `yaml:"trade_offs" json:"trade_offs"`
	// Evidence lists the stakeholders whose evidence this perspective argues from; a
	// stakeholder argues its own by default, maintainers weigh everyone's.
	Evidence []string `yaml:"evidence,omitempty" json:"evidence,omitempty"`
	// Paths limits the perspective to files matching these globs (subsystem maintainers); for a
	// stakeholder of the catalog, a change touching them is a reason to seat it.
	Paths []string `yaml:"paths,omitempty" json:"paths,omitempty"`
	Model string   `yaml:"model,omitempty" json:"model,omitempty"`
	Trust float64  `yaml:"trust,omitempty" json:"trust,omitempty"`
	// Opposes names the perspectives whose trade-offs this one's work against (seed 002): the
	// moderator seats at least one pair that opposes.
	Opposes []string `yaml:"opposes,omitempty" json:"opposes,omitempty"`
	// Keywords in the change's title, description, question or file paths make the moderator
	// seat the perspective ("cache" for performance, "auth" for security).
	Keywords []string `yaml:"keywords,omitempty" json:"keywords,omitempty"`
	// Languages of the changed files (go, python, javascript, ...) that make the moderator
	// seat it.
	Languages []string `yaml:"languages,omitempty" json:"languages,omitempty"`
}

// OpposedBy reports whether the trade-offs of p and q work against each other, as either says.
func (p Perspective) OpposedBy(q Perspective) bool {
	for _, n := range p.Opposes {
		if n == q.Name {
			return true
		}
	}
	for _, n := range q.Opposes {
		if n == p.Name {
			return true
		}
	}
	return false
}

// Names of the built-in maintainer perspectives.
const (
	ArchitectureMaintainer = "architecture_maintainer"
	CoreMaintainer         = "core_maintainer"
)

// DefaultPerspectives returns the built-in panel: four stakeholders (the moderator's built-in
// catalog) and two maintainers.
func DefaultPerspectives() []Perspective {
	return []Perspective{
		{Name: rules.Security, Title: "Security Stakeholder", Abbrev: "SS", Role: voting.RoleStakeholder,
			Summary:    "Adversary: looks for ways the change can be abused, and for trust boundaries it crosses",
			Priorities: []string{"no injection, secret leak or broken authentication reaches production", "untrusted input is validated at the boundary", "defaults are safe"},
			TradeOffs:  []string{"accepts extra latency or code for a real risk reduction", "accepts follow-ups for findings in test-only code"},
			Opposes:    []string{rules.Performance},
			Keywords:   []string{"auth", "authentication", "authorization", "login", "password", "token", "secret", "crypto", "session", "permission", "sql", "injection", "csrf", "xss", "tls", "oauth", "jwt", "sanitize", "admin", "security"}},
		{Name: rules.Performance, Title: "Performance Stakeholder", Abbrev: "PS", Role: voting.RoleStakeholder,
			Summary:    "Operator: looks at cost per request, scaling with data, and resource use under load",
			Priorities: []string{"no per-item round trips on request paths", "bounded concurrency and memory", "work done once, not per call"},
			TradeOffs:  []string{"accepts a little complexity for an order-of-magnitude gain", "accepts simple code where the data stays small"},
			Opposes:    []string{rules.Security, rules.Maintainability},
			Keywords:   []string{"cache", "caching", "latency", "throughput", "performance", "perf", "slow", "fast", "query", "queries", "index", "batch", "pool", "memory", "allocation", "concurrency", "goroutine", "benchmark", "export"}},
		{Name: rules.Architecture, Title: "Architecture Stakeholder", Abbrev: "AS", Role: voting.RoleStakeholder,
			Summary:    "Architect: looks at boundaries, dependencies and compatibility",
			Priorities: []string{"public API stays compatible", "dependencies are few and justified", "each module has one responsibility"},
			TradeOffs:  []string{"accepts a dependency that replaces hand-written code for a solved problem", "accepts a breaking change released as a new major version"},
			Opposes:    []string{rules.Maintainability},
			Keywords:   []string{"api", "interface", "dependency", "dependencies", "module", "package", "schema", "migration", "design", "architecture", "plugin", "layer", "service", "breaking", "deprecate"}},
		{Name: rules.Maintainability, Title: "Maintainability Stakeholder", Abbrev: "MS", Role: voting.RoleStakeholder,
			Summary:    "Maintainer of tomorrow: looks at tests, error handling and readability",
			Priorities: []string{"changed behaviour is tested", "errors are handled, not dropped", "functions stay small and unfinished work is tracked"},
			TradeOffs:  []string{"accepts a missing test for a trivial change", "accepts a TODO that links an issue"},
			Opposes:    []string{rules.Performance, rules.Architecture},
			Keywords:   []string{"test", "tests", "refactor", "cleanup", "docs", "readability", "lint", "rename", "error", "errors", "todo", "logging"}},
		{Name: ArchitectureMaintainer, Title: "Architecture Maintainer", Abbrev: "AM", Role: voting.RoleSubsystemMaintainer,
			Summary:    "Owns the design: resolves design conflicts between stakeholders",
			Priorities: []string{"design concerns are settled before merge", "new dependencies and API breaks are signed off"},
			TradeOffs:  []string{"accepts low-risk findings as follow-ups"}},
		{Name: CoreMaintainer, Title: "Core Maintainer", Abbrev: "CM", Role: voting.RoleCoreMaintainer,
			Summary:    "Owns policy: decides what blocks a merge",
			Priorities: []string{"no high-severity finding merges unresolved", "every required change is tied to a file:line"},
			TradeOffs:  []string{"accepts medium findings fixed in the same pull request", "accepts low findings as follow-ups"}},
	}
}
