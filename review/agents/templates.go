package agents

import (
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// Seed 004's debate templates give a security concern a type, severity, location, attack vector,
// impact and mitigation; a performance concern a metric, an expected change and a complexity; an
// architecture concern the principle at stake, the impact on the code's patterns and a
// refactoring. The rules' own catalog has the title, warrant and fix; what the templates add per
// rule (or per weakness, for the maintained tools' rules) is here.

type securityFacts struct{ vector, impact string }

var securityByRule = map[string]securityFacts{
	rules.RuleSecret:            {"anyone with read access to the repository or its history (clones, forks, CI logs) reads the credential", "whatever the credential unlocks, until it is rotated"},
	rules.RuleSQLInjection:      {"a request value interpolated into the SQL text changes the query (e.g. ' OR 1=1 --)", "any row the database user can reach is read or changed"},
	rules.RuleCommandInjection:  {"input that picks the program or injects shell syntax into the command line", "arbitrary commands run with the service's privileges"},
	rules.RuleTLSVerifyOff:      {"a machine on the network path presents its own certificate (man in the middle)", "traffic read and altered; credentials in it stolen"},
	rules.RuleWeakPasswordHash:  {"whoever obtains the hashes guesses passwords offline at billions of tries per second", "users' passwords recovered, and reused on other sites"},
	rules.RuleInsecureRandom:    {"an observer of some outputs predicts the next ones", "guessed tokens, session ids or reset links"},
	rules.RulePathTraversal:     {"a request path with ../ segments, or an absolute path", "files outside the intended directory read or overwritten"},
	toulmin.RulePromptInjection: {"text in the change addressed to an AI reviewer", "an automated review steered into approving the change"},
}

// securityByCWE covers the maintained tools' rules (gosec, bandit, ESLint, Cppcheck) by weakness.
var securityByCWE = map[string]securityFacts{
	"CWE-89":  securityByRule[rules.RuleSQLInjection],
	"CWE-78":  securityByRule[rules.RuleCommandInjection],
	"CWE-22":  securityByRule[rules.RulePathTraversal],
	"CWE-798": securityByRule[rules.RuleSecret],
	"CWE-295": securityByRule[rules.RuleTLSVerifyOff],
	"CWE-338": securityByRule[rules.RuleInsecureRandom],
	"CWE-79":  {"request data rendered into HTML without escaping", "script runs in other users' browsers with their session"},
	"CWE-918": {"a request-controlled URL fetched by the server", "internal services and cloud metadata reached from outside"},
	"CWE-94":  {"input evaluated as code", "arbitrary code runs in the process"},
	"CWE-327": {"data protected by a broken algorithm", "the protection is undone by known attacks"},
	"CWE-328": {"digests of a broken hash", "collisions or preimages forged"},
}

type performanceFacts struct{ metric, change, complexity string }

var performanceByRule = map[string]performanceFacts{
	rules.RuleCallInLoop:       {"IO/Network: database or HTTP round trips", "one more round trip per item: latency grows linearly with the data (N+1)", "O(1) round trips → O(n)"},
	rules.RuleUnboundedGo:      {"Memory/CPU", "one goroutine per item, unbounded under load", "O(n) goroutines at once instead of a bounded pool"},
	rules.RuleDeferInLoop:      {"Memory", "deferred calls, and what they hold open, pile up until the function returns", "O(n) open resources instead of O(1)"},
	rules.RuleStringConcatLoop: {"CPU/Memory", "each += copies the string built so far", "O(n) → O(n²) bytes copied"},
}

type architectureFacts struct{ principle, impact, refactoring string }

var architectureByRule = map[string]architectureFacts{
	rules.RuleNewDependency:   {"KISS / minimal dependencies: each module is supply-chain risk, licence terms and upgrade work", "adds a module every build resolves and every release must track", "use the standard library or an existing dependency, or record why this one is needed"},
	rules.RuleExportedRemoved: {"Compatibility (open/closed): exported API is a contract with its callers", "callers of the removed name stop compiling", "deprecate first and keep a wrapper, or release the removal as a new major version"},
	rules.RuleLargeFile:       {"Single responsibility / cohesion", "one file gathers code that changes for different reasons", "split it by responsibility into files or packages"},
}

// templateFor fills seed 004's template of a concern built on a rule, from the rule's catalog
// entry and the facts above; nil for rules outside the three templates (maintainability, process
// notes of maintainability, mitigations).
func templateFor(ruleID string) *toulmin.Template {
	rule, ok := rules.Rules[ruleID]
	if !ok || ruleID == rules.RuleMitigation {
		return nil
	}
	switch rule.Stakeholder {
	case rules.Security:
		f, ok := securityByRule[ruleID]
		if !ok {
			f, ok = securityByCWE[rule.CWE]
		}
		if !ok {
			f = securityFacts{"input reaching the cited line, as the grounds show", rule.Warrant}
		}
		typ := rule.Title
		if rule.CWE != "" {
			typ += " (" + rule.CWE + ")"
		}
		return &toulmin.Template{Kind: toulmin.TemplateSecurity, Type: typ, AttackVector: f.vector, Impact: f.impact, Mitigation: rule.Fix}
	case rules.Performance:
		f, ok := performanceByRule[ruleID]
		if !ok {
			f = performanceFacts{"latency and resource use", rule.Warrant, "not measured by the analyzer"}
		}
		return &toulmin.Template{Kind: toulmin.TemplatePerformance, Metric: f.metric, ExpectedChange: f.change, Complexity: f.complexity}
	case rules.Architecture:
		f, ok := architectureByRule[ruleID]
		if !ok {
			f = architectureFacts{rule.Title, rule.Warrant, rule.Fix}
		}
		return &toulmin.Template{Kind: toulmin.TemplateArchitecture, Principle: f.principle, PatternImpact: f.impact, Refactoring: f.refactoring}
	}
	return nil
}

// templateOfArgument fills the template of a model's concern: from the rule of the evidence a
// citation points at when there is one (of the agent's own kind, for a built-in stakeholder; any
// kind for a perspective of the configuration),
// else from the agent's perspective with the argument's own parts (its grounds are the attack vector or the expected change, its warrant
// the impact or the principle, its actions the mitigation or the refactoring).
func templateOfArgument(a *toulmin.Argument, agent string, ev []toulmin.Evidence) *toulmin.Template {
	if a.Phase != toulmin.PhaseOpening && a.Phase != toulmin.PhaseDesignReview {
		return nil // the templates are for concerns, not for rebuttals, answers or summaries
	}
	kind := templateKind(agent)
	if agent == rules.Maintainability {
		return nil // seed 004 has no template for maintainability
	}
	for _, g := range a.Grounds {
		if g.Path == "" {
			continue
		}
		for _, e := range ev {
			if e.Path == g.Path && e.Line == g.Line && e.Rule != rules.RuleMitigation {
				if t := templateFor(e.Rule); t != nil && (kind == "" || t.Kind == kind) {
					return t
				}
			}
		}
	}
	if kind == "" || a.Severity.Rank() < voting.SeverityLow.Rank() {
		return nil
	}
	var grounds, actions []string
	for _, g := range a.Grounds {
		grounds = append(grounds, g.Text)
	}
	for _, act := range a.Actions {
		actions = append(actions, act.Text)
	}
	gs, as := scan.Clip(strings.Join(grounds, "; "), 240), scan.Clip(strings.Join(actions, "; "), 240)
	switch kind {
	case toulmin.TemplateSecurity:
		return &toulmin.Template{Kind: kind, Type: scan.Clip(a.Claim, 120), AttackVector: gs, Impact: a.Warrant, Mitigation: as}
	case toulmin.TemplatePerformance:
		return &toulmin.Template{Kind: kind, ExpectedChange: gs, Complexity: scan.Clip(a.Warrant, 200)}
	default:
		return &toulmin.Template{Kind: kind, Principle: scan.Clip(a.Warrant, 200), PatternImpact: gs, Refactoring: as}
	}
}

// templateKind is the template a built-in stakeholder's concerns take.
func templateKind(agent string) string {
	switch agent {
	case rules.Security:
		return toulmin.TemplateSecurity
	case rules.Performance:
		return toulmin.TemplatePerformance
	case rules.Architecture:
		return toulmin.TemplateArchitecture
	}
	return ""
}
