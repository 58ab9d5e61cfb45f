package dialectic

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Rules argue without a model, from the fingerprints, the files and the words of a proposal:
// the offline agents, and the deterministic twin tests use.
//
// Failure debates: an infrastructure error (a timeout, ENOSPC, a lost runner) escalates; the
// same error after a change to the failing file retries (the change was aimed right and needs
// adjusting); the same error after changes elsewhere, or after none, pivots (the attempts miss
// where the error is).
type Rules struct{}

var _ Agents = Rules{}

// Name implements Agents.
func (Rules) Name() string { return "rules" }

// FailureAdvocate implements Agents.
func (Rules) FailureAdvocate(_ context.Context, r *FailureRequest) (*FailureAdvocacy, error) {
	last := r.Last()
	prev := r.Attempts[len(r.Attempts)-2]
	failing := r.FailingFiles()
	touched := Intersect(r.Changed, failing)
	switch {
	case Infrastructure(last.Fingerprint) || Infrastructure(last.Message):
		return &FailureAdvocacy{
			Diagnosis:        fmt.Sprintf("An infrastructure failure (%q), not a fault of the change.", last.Fingerprint),
			Fix:              "Re-run once the runner or the service it depends on is healthy.",
			DiffFromPrevious: "None: the code is not what fails.",
		}, nil
	case !r.ChangeKnown:
		return &FailureAdvocacy{
			Diagnosis:        fmt.Sprintf("The error %q repeats.", last.Fingerprint),
			Fix:              "Retry with a correction aimed at the failing step.",
			DiffFromPrevious: "Unknown: what changed between the attempts could not be read.",
		}, nil
	case len(touched) > 0:
		return &FailureAdvocacy{
			Diagnosis: fmt.Sprintf("The error %q is in %s, which attempt %d changed; the change is aimed at the right place but not yet right.",
				last.Fingerprint, list(touched), last.N),
			Fix:              fmt.Sprintf("Adjust the change to %s against the failing step's message.", list(touched)),
			DiffFromPrevious: fmt.Sprintf("Attempt %d changed the failing file%s %s since attempt %d.", last.N, plural(touched), list(touched), prev.N),
			Substantial:      true,
		}, nil
	case len(r.Changed) == 0:
		return &FailureAdvocacy{
			Diagnosis:        fmt.Sprintf("The error %q repeats on the same code.", last.Fingerprint),
			Fix:              "Run it again in case it is flaky.",
			DiffFromPrevious: fmt.Sprintf("Nothing changed between attempt %d and attempt %d.", prev.N, last.N),
		}, nil
	}
	return &FailureAdvocacy{
		Diagnosis:        fmt.Sprintf("The error %q repeats after changes to %s.", last.Fingerprint, list(r.Changed)),
		Fix:              "Keep the approach; the changes may need one more adjustment.",
		DiffFromPrevious: fmt.Sprintf("Attempt %d changed %s, not where the error is.", last.N, list(r.Changed)),
	}, nil
}

// FailureCritic implements Agents.
func (Rules) FailureCritic(_ context.Context, r *FailureRequest, a *FailureAdvocacy) (*FailureCritique, error) {
	last := r.Last()
	var ns []string
	for _, at := range r.Attempts {
		ns = append(ns, fmt.Sprint(at.N))
	}
	pattern := fmt.Sprintf("the same error %q on attempts %s", last.Fingerprint, strings.Join(ns, " and "))
	if Infrastructure(last.Fingerprint) || Infrastructure(last.Message) {
		return &FailureCritique{
			Pattern:        "infrastructure failure repeated: " + last.Fingerprint,
			BlindSpot:      "no change to the code can fix the runner, the network or the disk",
			ShouldEscalate: true,
		}, nil
	}
	failing := r.FailingFiles()
	c := &FailureCritique{Pattern: pattern}
	switch {
	case !r.ChangeKnown:
		c.BlindSpot = "what changed between the attempts is unknown, so a retry may repeat the same attempt"
	case len(Intersect(r.Changed, failing)) > 0:
		// The attempt was aimed at the failing file: no blind spot to name.
	case len(r.Changed) == 0:
		c.BlindSpot = "nothing changed between the attempts: a deterministic error comes back on a re-run"
	case len(failing) == 0:
		c.BlindSpot = fmt.Sprintf("the error names no file, and the changes (%s) were not shown to concern it", list(r.Changed))
	default:
		c.BlindSpot = fmt.Sprintf("the changes (%s) do not touch where the error is (%s)", list(r.Changed), list(failing))
	}
	return c, nil
}

var stakesWord = regexp.MustCompile(`(?i)\bstakes\s*[=:]\s*(low|medium|high)\b`)

// highStakes and mediumStakes are words that mark a proposal's stakes when it does not state
// them: irreversible or wide-reaching actions are high.
var (
	highStakes   = regexp.MustCompile(`(?i)\b(delete|drop|truncate|purge|wipe|rm -rf|force[- ]push|migrat\w*|production|prod|deploy\w*|release|credentials?|secrets?|passwords?|auth\w*|billing|payments?|schema|rewrite|irreversible)\b`)
	mediumStakes = regexp.MustCompile(`(?i)\b(refactor\w*|rename\w*|upgrade\w*|dependenc\w*|bump\w*|api|config\w*|remove\w*|replace\w*|cache|caching)\b`)
)

// StakesOf reads a proposal's stakes: "stakes=high" (or low, medium) when it says so, otherwise
// from its words.
func StakesOf(text string) Stakes {
	if m := stakesWord.FindStringSubmatch(text); m != nil {
		return Stakes(strings.ToLower(m[1]))
	}
	switch {
	case highStakes.MatchString(text):
		return High
	case mediumStakes.MatchString(text):
		return Medium
	}
	return Low
}

// StripStakes removes "stakes=..." from a proposal.
func StripStakes(text string) string {
	return strings.TrimSpace(strings.Join(strings.Fields(stakesWord.ReplaceAllString(text, " ")), " "))
}

// planRisk is a risk the rules know, with the words that raise it, the words that show it is
// already mitigated, and the mitigation to ask for.
type planRisk struct {
	raise, mitigated *regexp.Regexp
	risk, counter    string
	severity         Stakes
}

var planRisks = []planRisk{
	{regexp.MustCompile(`(?i)\b(delete|drop|truncate|purge|wipe|rm -rf|force[- ]push|overwrite)\b`), regexp.MustCompile(`(?i)\b(backup|back up|snapshot|rollback|roll back|restore|dry[- ]run)\b`),
		"the action is irreversible and no backup or rollback is named", "take a backup (or snapshot) first and state how to restore it", High},
	{regexp.MustCompile(`(?i)\bmigrat\w*|\bschema\b`), regexp.MustCompile(`(?i)\b(down migration|rollback|roll back|reversible|backfill)\b`),
		"a schema migration without a way back", "write and test the down migration before applying the up migration", High},
	{regexp.MustCompile(`(?i)\b(credentials?|secrets?|passwords?|tokens?|keys?)\b`), regexp.MustCompile(`(?i)\b(rotat\w*|vault|secret manager|kms)\b`),
		"secrets handled without a rotation plan", "keep the secret in the secret store, out of logs, and rotate it after the change", High},
	{regexp.MustCompile(`(?i)\b(deploy\w*|release|production|prod|roll ?out)\b`), regexp.MustCompile(`(?i)\b(canary|staged|stages|feature flag|flag|gradual|percent|rollback|roll back)\b`),
		"a release to everyone at once", "roll out in stages (canary or a feature flag) with a rollback step", Medium},
	{regexp.MustCompile(`(?i)\b(upgrade\w*|bump\w*|dependenc\w*|major version)\b`), regexp.MustCompile(`(?i)\b(changelog|release notes|pin\w*|lockfile|test\w*)\b`),
		"an upgrade without reading what changed", "read the changelog for breaking changes and pin the version in the lockfile", Medium},
	{regexp.MustCompile(`(?i)\b(refactor\w*|rewrite|rename\w*|replace\w*)\b`), regexp.MustCompile(`(?i)\b(tests?|coverage|characteri[sz]ation)\b`),
		"behaviour may change unnoticed", "pin the current behaviour with tests before changing it", Medium},
}

// planSupports are what make a proposal convincing to the advocate.
var planSupports = []struct {
	re   *regexp.Regexp
	text string
}{
	{regexp.MustCompile(`(?i)\b(tests?|coverage|ci)\b`), "it is covered by tests"},
	{regexp.MustCompile(`(?i)\b(backup|snapshot|rollback|roll back|revert|restore|down migration)\b`), "it names a way back"},
	{regexp.MustCompile(`(?i)\b(canary|staged|stages|feature flag|gradual|dry[- ]run)\b`), "it limits the blast radius"},
	{regexp.MustCompile(`(?i)\b(because|so that|to fix|to avoid|since)\b`), "it states why"},
}

// PlanAdvocate implements Agents.
func (Rules) PlanAdvocate(_ context.Context, r *PlanRequest) (*PlanAdvocacy, error) {
	a := &PlanAdvocacy{Claim: "The proposal is a sound way to reach its goal: " + clipText(r.Proposal, 200)}
	for _, s := range planSupports {
		if s.re.MatchString(r.Proposal) {
			a.Supports = append(a.Supports, s.text)
		}
	}
	a.Confidence = min(0.5+0.15*float64(len(a.Supports)), 0.95)
	return a, nil
}

// PlanCritic implements Agents.
func (Rules) PlanCritic(_ context.Context, r *PlanRequest, _ *PlanAdvocacy) (*PlanCritique, error) {
	c := &PlanCritique{Severity: Low}
	rank := map[Stakes]int{Low: 0, Medium: 1, High: 2}
	for _, k := range planRisks {
		if !k.raise.MatchString(r.Proposal) || k.mitigated.MatchString(r.Proposal) {
			continue
		}
		c.Risks = append(c.Risks, k.risk)
		if rank[k.severity] > rank[c.Severity] || c.Objection == "" {
			c.Objection, c.Counter, c.Severity, c.Actionable = capitalise(k.risk)+".", capitalise(k.counter)+".", k.severity, true
		}
	}
	return c, nil
}

// Intersect lists the strings of a that b has too, once each, in a's order.
func Intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// list names at most five files.
func list(files []string) string {
	if len(files) > 5 {
		return strings.Join(files[:5], ", ") + fmt.Sprintf(" and %d more", len(files)-5)
	}
	return strings.Join(files, ", ")
}

func plural(xs []string) string {
	if len(xs) == 1 {
		return ""
	}
	return "s"
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
