package agents

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/external"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// OfflineAgent argues by rules from the analyzers' evidence, with no model: the embedded default
// of `debatebot debate` and the deterministic twin the tests use. The same input gives the same
// turns, byte for byte.
type OfflineAgent struct {
	p     toulmin.Participant
	persp Perspective
	// evidence lists the stakeholders whose evidence the agent argues from.
	evidence map[string]bool
	paths    []string
	// maxArguments bounds opening arguments; the rest are summarised in the last one.
	maxArguments int
}

// DefaultMaxOpeningArguments bounds how many concerns one offline agent opens with.
const DefaultMaxOpeningArguments = 6

// NewOfflineAgent returns an offline agent for the perspective.
func NewOfflineAgent(p Perspective) *OfflineAgent {
	a := &OfflineAgent{
		p: toulmin.Participant{
			Name: p.Name, Title: p.Title, Abbrev: p.Abbrev, Role: p.Role, Perspective: p.Summary,
			Trust: p.Trust, Offline: true,
		},
		persp: p, evidence: map[string]bool{}, paths: p.Paths, maxArguments: DefaultMaxOpeningArguments,
	}
	if a.p.Trust == 0 {
		a.p.Trust = 1
	}
	scope := p.Evidence
	if len(scope) == 0 && !p.Role.IsMaintainer() {
		scope = []string{p.Name}
	}
	for _, s := range scope {
		a.evidence[s] = true
	}
	return a
}

// OfflinePanel returns offline agents for the perspectives.
func OfflinePanel(ps []Perspective) []toulmin.Agent {
	out := make([]toulmin.Agent, len(ps))
	for i, p := range ps {
		out[i] = NewOfflineAgent(p)
	}
	return out
}

// Participant implements toulmin.Agent.
func (a *OfflineAgent) Participant() toulmin.Participant { return a.p }

func (a *OfflineAgent) maintainer() bool { return a.p.Role.IsMaintainer() }

// mine reports whether the agent argues from the evidence item.
func (a *OfflineAgent) mine(e toulmin.Evidence) bool {
	if e.Rule == rules.RuleMitigation {
		return false
	}
	if !a.maintainer() || len(a.evidence) > 0 {
		if !a.evidence[e.Stakeholder] {
			return false
		}
	}
	if len(a.paths) > 0 {
		for _, g := range a.paths {
			if ok, _ := doublestar.Match(g, e.Path); ok {
				return true
			}
		}
		return false
	}
	return true
}

// Take implements toulmin.Agent.
func (a *OfflineAgent) Take(ctx context.Context, req *toulmin.Request) (*toulmin.Turn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	turn := a.take(req)
	if req.Guidance != "" {
		// Rules over the evidence cannot weigh a human's words: the turn says so, once.
		turn.Notes = append(turn.Notes, "offline agents argue from the evidence and cannot weigh the checkpoint's guidance: "+oneLine(req.Guidance, 120))
	}
	return turn, nil
}

// take answers the request by the phase's rules.
func (a *OfflineAgent) take(req *toulmin.Request) *toulmin.Turn {
	if req.Subject.Index.Empty() {
		return a.question(req)
	}
	switch req.Phase.Kind {
	case toulmin.PhaseOpening:
		return a.opening(req)
	case toulmin.PhaseRebuttal:
		return a.rebuttals(req)
	case toulmin.PhaseClarification:
		return a.clarify(req)
	case toulmin.PhaseResponse:
		return a.respond(req)
	case toulmin.PhaseFinal:
		return a.final(req)
	case toulmin.PhaseDesignReview:
		return a.designReview(req)
	case toulmin.PhaseSynthesis:
		return a.synthesis(req)
	}
	return &toulmin.Turn{}
}

// voteFor maps the most serious standing concern to a vote.
func voteFor(sev voting.Severity) voting.Option {
	switch {
	case sev.Rank() >= voting.SeverityHigh.Rank():
		return voting.RequestChanges
	case sev.Rank() >= voting.SeverityMedium.Rank():
		return voting.ApproveWithChanges
	}
	return voting.Approve
}

// confidence of an offline argument: AST findings are precise, line patterns less so.
func confidence(items []toulmin.Evidence) float64 {
	c := 0.75
	switch items[0].Analyzer {
	case "go-ast", "secrets":
		c = 0.9
	case rules.AnalyzerGoVet, rules.AnalyzerStaticcheck:
		c = 0.95 // type-checked, over the whole tree
	case external.SourceBandit, external.SourceESLint, external.SourceShellCheck, external.SourceCppcheck:
		c = 0.85 // a maintained analyzer of the language, parsing the whole file
	case rules.AnalyzerDebatebot, rules.AnalyzerGoLinter:
		// type-checked, over both trees, but heuristic in what counts as a check or a query (the
		// project's own) or in what it assumes of code it cannot see (the maintained linters)
		c = 0.9
	case "change":
		c = 0.85
	}
	return c
}

func (a *OfflineAgent) groups(ev []toulmin.Evidence) [][]toulmin.Evidence {
	byRule := map[string][]toulmin.Evidence{}
	var order []string
	for _, e := range ev {
		if !a.mine(e) {
			continue
		}
		if _, ok := byRule[e.Rule]; !ok {
			order = append(order, e.Rule)
		}
		byRule[e.Rule] = append(byRule[e.Rule], e)
	}
	// Evidence arrives sorted by severity, so the first item of each group is its worst.
	out := make([][]toulmin.Evidence, len(order))
	for i, r := range order {
		out[i] = byRule[r]
	}
	return out
}

// concern turns one rule's evidence into an argument.
func concern(items []toulmin.Evidence) toulmin.Argument {
	rule := rules.Rules[items[0].Rule]
	first := items[0]
	claim := render.Sentence(first.Message, first.Snippet) // "h.db.QueryRow runs…" keeps its case
	if first.Path != "" && first.Line > 0 {
		claim += " at " + first.Location() // a note about a whole file names it in its message
	}
	if len(items) > 1 {
		claim += fmt.Sprintf(" (and %d more)", len(items)-1)
	}
	arg := toulmin.Argument{
		Claim:   claim,
		Warrant: rule.Warrant,
		Backing: []toulmin.Backing{
			{Reference: rule.Reference},
			{Evidence: fmt.Sprintf("the %s analyzer found %d occurrence(s) in the change (%s)", first.Analyzer, len(items), evidenceIDs(items))},
		},
		Qualifier: toulmin.Qualifier{Confidence: confidence(items), Text: "offline rules see code patterns, not intent"},
		Rebuttal:  rule.Rebuttal,
		Severity:  first.Severity,
		Rule:      rule.ID,
		Template:  templateFor(rule.ID),
	}
	for i, e := range items {
		if i == 5 {
			break
		}
		text := e.Message
		if e.Snippet != "" {
			text += ": `" + e.Snippet + "`"
		}
		arg.Grounds = append(arg.Grounds, toulmin.Ground{Path: e.Path, Line: e.Line, Text: text})
		arg.Actions = append(arg.Actions, toulmin.Action{Text: rule.Fix, Path: e.Path, Line: e.Line, Required: !rule.Process && e.Severity.Rank() >= voting.SeverityMedium.Rank()})
	}
	return arg
}

func evidenceIDs(items []toulmin.Evidence) string {
	ids := make([]string, 0, len(items))
	for _, e := range items {
		ids = append(ids, e.ID)
	}
	return strings.Join(evidence.LimitNames(ids, 6), ", ")
}

// nothing is the one line an agent says when the evidence gives it nothing to argue: a stance
// with its reason, not an argument to be scored and answered. It says what the agent's rules
// examined; when they could read none of the changed code, it names nothing, and the agreement
// counts as partial (seed 001's skepticism: an approval of code nobody read is not agreement).
func (a *OfflineAgent) nothing(req *toulmin.Request) *toulmin.Position {
	c, _ := req.Subject.Data.(*change.Change)
	if c == nil {
		c = &change.Change{}
	}
	files, added, _ := c.Stats()
	pos := &toulmin.Position{Vote: voting.Approve, Confidence: 0.6,
		Reason: fmt.Sprintf("No %s concern in the evidence (%d added lines in %d files)", a.topic(), added, files)}
	read, unread := a.examined(c)
	if len(read) > 0 {
		pos.Engaged = []string{fmt.Sprintf("its rules read %s", strings.Join(evidence.LimitNames(read, 4), ", "))}
	}
	if len(unread) > 0 {
		pos.Reason += fmt.Sprintf("; its rules cannot read %s", strings.Join(evidence.LimitNames(unread, 4), ", "))
		if len(read) == 0 {
			pos.Confidence = 0.3
		}
	} else if len(read) == 0 {
		pos.Engaged = []string{"no file of the change is code or configuration its rules cover"}
	}
	return pos
}

// readsAll are the stakeholders whose rules read every file: secrets are searched in every text
// file, dependencies and sizes in any, TODOs and missing tests in any source file.
var readsAll = map[string]bool{rules.Security: true, rules.Architecture: true, rules.Maintainability: true}

// loopLanguages are the languages whose loops and calls the performance rules read.
var loopLanguages = map[string]bool{"go": true, "python": true, "javascript": true, "typescript": true, "java": true, "kotlin": true}

// examined splits the changed source files into those the agent's rules read and those they
// cannot; files that are not code are in neither.
func (a *OfflineAgent) examined(c *change.Change) (read, unread []string) {
	scope := a.evidence
	for _, f := range c.Files {
		if f.Status == change.StatusDeleted || !matchesAny(a.paths, f.Path) {
			continue
		}
		lang := change.LanguageOf(f.Path)
		reads := false
		for s := range scope {
			reads = reads || readsAll[s] || (s == rules.Performance && loopLanguages[lang])
		}
		switch {
		case reads:
			read = append(read, f.Path)
		case lang != "":
			unread = append(unread, f.Path)
		}
	}
	return read, unread
}

func (a *OfflineAgent) topic() string {
	if a.maintainer() {
		return "blocking"
	}
	return strings.ToLower(strings.TrimSuffix(a.p.Title, " Stakeholder"))
}

func (a *OfflineAgent) opening(req *toulmin.Request) *toulmin.Turn {
	var args []toulmin.Argument
	groups := a.groups(req.Evidence)
	for i, g := range groups {
		if i == a.maxArguments {
			rest := 0
			for _, g := range groups[i:] {
				rest += len(g)
			}
			args[len(args)-1].Backing = append(args[len(args)-1].Backing, toulmin.Backing{Evidence: fmt.Sprintf("%d lower-ranked finding(s) of this perspective are listed in the evidence only", rest)})
			break
		}
		args = append(args, concern(g))
	}
	if len(args) == 0 {
		return &toulmin.Turn{Position: a.nothing(req)}
	}
	return &toulmin.Turn{Arguments: args, Position: a.position(args, "opening")}
}

// position derives the stance from the concerns that stand.
func (a *OfflineAgent) position(standing []toulmin.Argument, when string) *toulmin.Position {
	worst := voting.SeverityInfo
	var priorities, tradeOffs []string
	seenTrade := map[string]bool{}
	for _, arg := range standing {
		if arg.Severity.Rank() > worst.Rank() {
			worst = arg.Severity
		}
		if arg.Rule != "" {
			priorities = append(priorities, fmt.Sprintf("[%s] %s", arg.Severity, arg.Claim))
			if t := rules.Rules[arg.Rule].TradeOff; t != "" && !seenTrade[t] {
				seenTrade[t] = true
				tradeOffs = append(tradeOffs, rules.Rules[arg.Rule].Title+": "+t)
			}
		}
	}
	vote := voteFor(worst)
	reason := fmt.Sprintf("No %s concern stands", a.topic())
	if len(priorities) > 0 {
		reason = fmt.Sprintf("%d %s concern(s) stand after %s, the most serious %s: %s", len(priorities), a.topic(), when, worst, firstClaim(standing))
	}
	return &toulmin.Position{Vote: vote, Confidence: 0.8, Reason: reason, Priorities: priorities, TradeOffs: tradeOffs}
}

func firstClaim(args []toulmin.Argument) string {
	best := args[0]
	for _, a := range args[1:] {
		if a.Severity.Rank() > best.Severity.Rank() {
			best = a
		}
	}
	return best.Claim
}

// rebuttal kinds offline agents make and accept.
const (
	rebutTestOnly   = "rebuttal:test-only"
	rebutGenerated  = "rebuttal:generated"
	rebutMitigated  = "rebuttal:mitigated"
	rebutUnverified = "rebuttal:unverified"
)

// rebuttals applies this agent's rebuttal rules to the other agents' concerns: the
// maintainability stakeholder points out test-only code; the architecture stakeholder points out
// generated code, checks already added in the same change, and citations that are not in the change.
func (a *OfflineAgent) rebuttals(req *toulmin.Request) *toulmin.Turn {
	t := req.Transcript
	answered := map[string]bool{}
	for _, arg := range req.Arguments {
		if arg.Phase == toulmin.PhaseRebuttal && arg.Agent == a.p.Name {
			answered[arg.Target] = true
		}
	}
	var candidates []toulmin.Argument
	for _, arg := range req.Arguments {
		if arg.Phase != toulmin.PhaseOpening || arg.Agent == a.p.Name || answered[arg.ID] || !t.Standing(&arg) {
			continue
		}
		if arg.Severity.Rank() < voting.SeverityMedium.Rank() {
			continue // nothing blocks on it; no need to argue
		}
		if r, ok := a.rebut(arg, req.Evidence); ok {
			candidates = append(candidates, r)
		}
	}
	// The most serious concerns first: a rebuttal budget is spent where it matters.
	sort.SliceStable(candidates, func(i, j int) bool {
		ti, _ := t.Argument(candidates[i].Target)
		tj, _ := t.Argument(candidates[j].Target)
		return ti.Severity.Rank() > tj.Severity.Rank()
	})
	if limit := req.Phase.MaxPerAgent; limit > 0 && len(candidates) > limit {
		candidates = candidates[:limit]
	}
	return &toulmin.Turn{Arguments: candidates}
}

func (a *OfflineAgent) rebut(target toulmin.Argument, ev []toulmin.Evidence) (toulmin.Argument, bool) {
	cited := target.Grounds[:0:0]
	for _, g := range target.Grounds {
		if g.Path != "" {
			cited = append(cited, g)
		}
	}
	all := func(pred func(string) bool) bool {
		if len(cited) == 0 {
			return false
		}
		for _, g := range cited {
			if !pred(g.Path) {
				return false
			}
		}
		return true
	}
	base := toulmin.Argument{Target: target.ID, Qualifier: toulmin.Qualifier{Confidence: 0.8}, Steelman: steelman(target)}
	switch a.p.Name {
	case rules.Maintainability:
		if all(change.IsTestPath) {
			r := base
			r.Rule = rebutTestOnly
			r.Claim = fmt.Sprintf("%s concerns test-only code, not production behaviour", target.ID)
			r.Grounds = groundsWith(cited, "is a test file")
			r.Warrant = "Test code does not run in production; a finding there does not reach users"
			r.Backing = []toulmin.Backing{{Reference: "test files by language convention (_test.go, test_*.py, *.test.ts, src/test/java)"}}
			r.Actions = []toulmin.Action{{Text: "treat " + target.ID + " as a follow-up rather than a merge blocker"}}
			return r, true
		}
	case rules.Architecture:
		if all(change.IsGeneratedPath) {
			r := base
			r.Rule = rebutGenerated
			r.Claim = fmt.Sprintf("%s concerns generated or vendored code that the change does not author", target.ID)
			r.Grounds = groundsWith(cited, "is generated or vendored")
			r.Warrant = "Generated and vendored code is fixed in its generator or upstream, not by hand in this change"
			r.Backing = []toulmin.Backing{{Reference: "generated-file conventions (vendor/, *.pb.go, lock files, 'Code generated ... DO NOT EDIT.')"}}
			r.Actions = []toulmin.Action{{Text: "report " + target.ID + " upstream or fix the generator"}}
			return r, true
		}
		if m, ok := mitigation(target, ev); ok {
			r := base
			r.Rule = rebutMitigated
			r.Claim = fmt.Sprintf("%s is already mitigated in the same change at %s", target.ID, m.Location())
			r.Grounds = []toulmin.Ground{{Path: m.Path, Line: m.Line, Text: m.Message + ": `" + m.Snippet + "`"}}
			r.Warrant = "A check that neutralises the input before use removes the attack the claim describes"
			r.Backing = []toulmin.Backing{{Reference: rules.Rules[target.Rule].Reference}, {Evidence: "mitigation evidence " + m.ID}}
			r.Actions = []toulmin.Action{{Text: "keep the check at " + m.Location() + " covered by a test"}}
			return r, true
		}
		if !target.Quality.Verified() && len(target.Quality.BadCitations) > 0 {
			r := base
			r.Rule = rebutUnverified
			r.Claim = fmt.Sprintf("%s cites lines that are not in the change: %s", target.ID, strings.Join(target.Quality.BadCitations, ", "))
			r.Grounds = []toulmin.Ground{{Text: "the cited lines are neither added, removed nor shown as context by the diff"}}
			r.Warrant = "A claim about code the change does not contain is outside its scope and cannot be checked"
			r.Backing = []toulmin.Backing{{Reference: "evidence standards: code references must include file:line citations of the change"}}
			return r, true
		}
	}
	return toulmin.Argument{}, false
}

// steelman states the strongest form of the argument a rebuttal answers (seed 003): its claim,
// the warrant that makes it matter, and what it would hold up.
func steelman(target toulmin.Argument) string {
	s := fmt.Sprintf("At its strongest, %s holds that %s", target.ID, lowerFirst(strings.TrimSuffix(target.Claim, ".")))
	if target.Warrant != "" {
		s += ", and " + lowerFirst(strings.TrimSuffix(target.Warrant, "."))
	}
	for _, act := range target.Actions {
		if act.Required {
			return s + fmt.Sprintf("; at %s severity it must be fixed before merge.", target.Severity)
		}
	}
	return s + "."
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	// Keep acronyms and identifiers that start in capitals ("SQL", "TLS").
	if len(r) > 1 && unicode.IsUpper(r[1]) {
		return s
	}
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

func groundsWith(cited []toulmin.Ground, what string) []toulmin.Ground {
	out := make([]toulmin.Ground, len(cited))
	for i, g := range cited {
		out[i] = toulmin.Ground{Path: g.Path, Line: g.Line, Text: g.Path + " " + what}
	}
	return out
}

// mitigation finds evidence of a check in the same file that weakens the target's rule, or a
// rule of the same weakness (a path check mitigates gosec's path traversal as it does the line
// rule's).
func mitigation(target toulmin.Argument, ev []toulmin.Evidence) (toulmin.Evidence, bool) {
	cwe := rules.Rules[target.Rule].CWE
	for _, e := range ev {
		if e.Rule != rules.RuleMitigation || e.Mitigates != target.Rule && (cwe == "" || rules.Rules[e.Mitigates].CWE != cwe) {
			continue
		}
		for _, g := range target.Grounds {
			if g.Path == e.Path {
				return e, true
			}
		}
	}
	return toulmin.Evidence{}, false
}

// clarify answers rebuttals of the agent's concerns (seed 001): it accepts those it can check by
// rule, accepts part of one whose point holds only in part (saying where what it accepts ends),
// and rejects the rest with its reason.
func (a *OfflineAgent) clarify(req *toulmin.Request) *toulmin.Turn {
	t := req.Transcript
	var out []toulmin.Argument
	done := map[string]bool{}
	for _, reb := range req.Arguments {
		if reb.Phase != toulmin.PhaseRebuttal || reb.Round != req.Round {
			continue
		}
		target, ok := t.Argument(reb.Target)
		if !ok || target.Agent != a.p.Name || done[target.ID] || t.Conceded(target.ID) {
			continue
		}
		done[target.ID] = true
		c := toulmin.Argument{Target: target.ID, Grounds: reb.Grounds, Qualifier: toulmin.Qualifier{Confidence: 0.8}}
		answer, why, limit := a.answers(reb, target)
		c.Answer, c.Warrant = answer, why
		switch answer {
		case toulmin.AnswerAccept:
			c.Resolution = toulmin.Conceded
			c.Claim = fmt.Sprintf("Accepted: %s no longer blocks, as %s shows", target.ID, reb.ID)
		case toulmin.AnswerPartial:
			c.Resolution, c.Limit = toulmin.Maintained, limit
			c.Claim = fmt.Sprintf("Partly accepted: %s, as %s shows; %s stands within its limit", why, reb.ID, target.ID)
			c.Warrant = "what the rebuttal shows is true, but it does not reach the whole concern"
		default:
			c.Resolution = toulmin.Maintained
			c.Claim = fmt.Sprintf("Rejected: %s stands despite %s", target.ID, reb.ID)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return &toulmin.Turn{}
	}
	// Concessions recorded in this turn are not in the transcript yet: count them here.
	conceded := map[string]bool{}
	for _, c := range out {
		if c.Resolution == toulmin.Conceded {
			conceded[c.Target] = true
		}
	}
	var standing []toulmin.Argument
	for _, arg := range a.own(req, toulmin.PhaseOpening) {
		if !conceded[arg.ID] {
			standing = append(standing, arg)
		}
	}
	return &toulmin.Turn{Arguments: out, Position: a.position(standing, "clarification")}
}

// answers decides how a rebuttal is answered: accept, partial (with where what is accepted
// ends) or reject, and says why.
func (a *OfflineAgent) answers(reb toulmin.Argument, target *toulmin.Argument) (answer toulmin.Answer, why, limit string) {
	switch reb.Rule {
	case rebutTestOnly:
		if target.Rule == rules.RuleSecret {
			return toulmin.AnswerPartial, "the code is test-only and does not run in production",
				"a credential in a test file is published with the repository all the same; it must be rotated and removed"
		}
		return toulmin.AnswerAccept, "test-only code does not affect production; the concern becomes a follow-up", ""
	case rebutGenerated:
		return toulmin.AnswerAccept, "generated or vendored code is fixed at its source, not in this change", ""
	case rebutMitigated:
		return toulmin.AnswerAccept, "the cited check neutralises the input before it is used", ""
	case rebutUnverified:
		return toulmin.AnswerAccept, "a concern whose citations are not in the change cannot be upheld", ""
	}
	return toulmin.AnswerReject, "offline agents concede only to rebuttals they can check by rule; this one needs a model or a human to weigh", ""
}

// respond answers, as a challenger, the authors who partly accepted or rejected this agent's
// rebuttals (seed 001): a partial answer whose limit the agent's rules know is accepted; a
// rejection is maintained, as the rebuttal rests on evidence the rules checked, and escalated
// when the disputed concern is high or critical (a blocking point agents cannot settle).
func (a *OfflineAgent) respond(req *toulmin.Request) *toulmin.Turn {
	t := req.Transcript
	var out []toulmin.Argument
	for _, ans := range t.AnswersFor(a.p.Name, req.Round) {
		target, ok := t.Argument(ans.Target)
		if !ok {
			continue
		}
		r := toulmin.Argument{Target: ans.ID, Qualifier: toulmin.Qualifier{Confidence: 0.8}}
		switch {
		case ans.Answer == toulmin.AnswerPartial:
			r.Answer = toulmin.AnswerAccept
			r.Claim = fmt.Sprintf("Accepted: %s stands within the limit %s states", target.ID, ans.ID)
			r.Warrant = "the part of the rebuttal that holds was accepted; the limit is one this perspective's rules also draw"
		case target.Severity.Rank() >= voting.SeverityHigh.Rank():
			r.Answer = toulmin.AnswerEscalate
			r.Claim = fmt.Sprintf("Escalated: %s blocks the merge while %s disputes it on checked evidence; a human must settle it", target.ID, a.p.Title)
			r.Warrant = "a blocking concern that the agents cannot settle between them needs a human decision"
		default:
			r.Answer = toulmin.AnswerMaintain
			r.Claim = fmt.Sprintf("Maintained: the rebuttal of %s stands on checked evidence", target.ID)
			r.Warrant = "the rejection gives no fact that the rebuttal's evidence does not already answer"
		}
		out = append(out, r)
	}
	return &toulmin.Turn{Arguments: out}
}

// own returns the agent's arguments of a phase that still stand.
func (a *OfflineAgent) own(req *toulmin.Request, phase toulmin.PhaseKind) []toulmin.Argument {
	var out []toulmin.Argument
	for _, arg := range req.Arguments {
		if arg.Agent == a.p.Name && arg.Phase == phase && req.Transcript.Standing(&arg) {
			out = append(out, arg)
		}
	}
	return out
}

func (a *OfflineAgent) final(req *toulmin.Request) *toulmin.Turn {
	var concerns []toulmin.Argument
	for _, arg := range a.own(req, toulmin.PhaseOpening) {
		if arg.Rule != "" {
			concerns = append(concerns, arg)
		}
	}
	pos := a.position(concerns, "rebuttal and clarification")
	if len(concerns) == 0 {
		return &toulmin.Turn{Position: pos} // its reason is the one line: no concern stands
	}
	arg := summary(concerns, pos.Vote)
	arg.Claim = fmt.Sprintf("%s: %d %s concern(s) stand", render.DecisionTitle(pos.Vote), len(concerns), a.topic())
	return &toulmin.Turn{Arguments: []toulmin.Argument{arg}, Position: pos}
}

// summary restates standing concerns as one argument with all their actions.
func summary(concerns []toulmin.Argument, vote voting.Option) toulmin.Argument {
	arg := toulmin.Argument{
		Warrant:   fmt.Sprintf("Concerns that survived rebuttal decide the stance: the most serious is %s, which maps to %s", worstOf(concerns), vote),
		Qualifier: toulmin.Qualifier{Confidence: 0.8, Text: "after rebuttal and clarification"},
		Severity:  worstOf(concerns),
	}
	seen := map[string]bool{}
	for _, c := range concerns {
		if len(c.Grounds) > 0 {
			g := c.Grounds[0]
			g.Text = c.ID + ": " + c.Claim
			arg.Grounds = append(arg.Grounds, g)
		}
		arg.Backing = append(arg.Backing, toulmin.Backing{Evidence: c.ID})
		for _, act := range c.Actions {
			if !seen[act.String()] {
				seen[act.String()] = true
				arg.Actions = append(arg.Actions, act)
			}
		}
	}
	return arg
}

func worstOf(args []toulmin.Argument) voting.Severity {
	w := voting.SeverityInfo
	for _, a := range args {
		if a.Severity.Rank() > w.Rank() {
			w = a.Severity
		}
	}
	return w
}

// standingConcerns returns every participant's standing, verified concerns of the debate.
func standingConcerns(req *toulmin.Request) []toulmin.Argument {
	var out []toulmin.Argument
	for _, arg := range req.Arguments {
		if arg.Phase == toulmin.PhaseOpening && arg.Rule != "" && req.Transcript.Standing(&arg) && arg.Quality.Verified() {
			out = append(out, arg)
		}
	}
	return out
}

// maintainerVote is how a maintainer weighs the standing concerns. The core maintainer blocks on
// high findings and asks for medium ones to be fixed; the architecture maintainer also wants
// design findings (dependencies, API, structure) signed off before merge, even when low.
func (a *OfflineAgent) maintainerVote(concerns []toulmin.Argument) voting.Option {
	vote := voteFor(worstOf(concerns))
	if a.p.Name == ArchitectureMaintainer && vote == voting.Approve {
		for _, c := range concerns {
			if rules.Rules[c.Rule].Stakeholder == rules.Architecture {
				return voting.ApproveWithChanges
			}
		}
	}
	return vote
}

// synthesis: a maintainer reviews the final positions, names agreement and conflict, and votes.
func (a *OfflineAgent) synthesis(req *toulmin.Request) *toulmin.Turn {
	concerns := standingConcerns(req)
	if len(a.paths) > 0 || len(a.evidence) > 0 {
		var scoped []toulmin.Argument
		for _, c := range concerns {
			for _, e := range req.Evidence {
				if e.Rule == c.Rule && a.mine(e) {
					scoped = append(scoped, c)
					break
				}
			}
		}
		concerns = scoped
	}
	vote := a.maintainerVote(concerns)
	syn := &toulmin.Synthesis{}
	byVote := map[voting.Option][]string{}
	for _, p := range req.Participants {
		if pos, ok := req.Positions[p.Name]; ok && !p.Role.IsMaintainer() {
			byVote[pos.Vote] = append(byVote[pos.Vote], p.Title)
		}
	}
	for _, v := range []voting.Option{voting.RequestChanges, voting.ApproveWithChanges, voting.Approve, voting.Escalate} {
		if names := byVote[v]; len(names) > 0 {
			syn.ConsensusPoints = append(syn.ConsensusPoints, fmt.Sprintf("%s: %s", v, strings.Join(names, ", ")))
		}
	}
	t := req.Transcript
	for _, reb := range req.Arguments {
		if reb.Phase != toulmin.PhaseRebuttal {
			continue
		}
		target, _ := t.Argument(reb.Target)
		state := "maintained"
		if t.Conceded(reb.Target) {
			state = "conceded"
		}
		syn.Conflicts = append(syn.Conflicts, fmt.Sprintf("%s (%s) rebutted by %s: %s", reb.Target, scan.Clip(target.Claim, 90), reb.ID, state))
	}
	if len(byVote) > 1 {
		syn.Conflicts = append(syn.Conflicts, fmt.Sprintf("stakeholders split %d ways on the vote", len(byVote)))
	}
	pos := &toulmin.Position{Vote: vote, Confidence: 0.85}
	if len(concerns) == 0 && len(syn.Conflicts) == 0 {
		// Nothing was raised and nobody disagreed: one line, not an argument.
		pos.Reason = "No concern was raised and the stakeholders agree: approve as is"
		return &toulmin.Turn{Position: pos}
	}
	arg := toulmin.Argument{Synthesis: syn, Qualifier: toulmin.Qualifier{Confidence: 0.85}}
	if len(concerns) == 0 {
		arg.Claim = "Approve: no verified concern stands after the debate"
		arg.Grounds = []toulmin.Ground{{Text: "every concern raised was conceded, or none was raised"}}
		arg.Warrant = "A change with no standing concern meets the bar for merge"
		syn.Resolution = "approve as is"
		pos.Reason = "No verified concern stands"
	} else {
		s := summary(concerns, vote)
		arg.Grounds, arg.Actions, arg.Severity, arg.Backing = s.Grounds, s.Actions, s.Severity, s.Backing
		arg.Claim = fmt.Sprintf("%s: %d verified concern(s) stand, the most serious %s", render.DecisionTitle(vote), len(concerns), worstOf(concerns))
		arg.Warrant = s.Warrant
		syn.Resolution = fmt.Sprintf("%s; resolve %d required change(s) before merge", vote, countRequired(s.Actions))
		if vote == voting.Approve {
			syn.Resolution = "approve; the remaining low-severity findings are follow-ups"
		}
		pos.Reason = fmt.Sprintf("%d verified concern(s) stand, the most serious: %s", len(concerns), firstClaim(concerns))
		for _, c := range concerns {
			pos.Priorities = append(pos.Priorities, fmt.Sprintf("[%s] %s", c.Severity, c.Claim))
		}
	}
	return &toulmin.Turn{Arguments: []toulmin.Argument{arg}, Position: pos}
}

func countRequired(acts []toulmin.Action) int {
	n := 0
	for _, a := range acts {
		if a.Required {
			n++
		}
	}
	return n
}

// designReview (extended protocol): maintainers restate the design-level evidence.
func (a *OfflineAgent) designReview(req *toulmin.Request) *toulmin.Turn {
	var design []toulmin.Evidence
	for _, e := range req.Evidence {
		if e.Stakeholder == rules.Architecture && e.Rule != rules.RuleMitigation {
			design = append(design, e)
		}
	}
	if len(design) == 0 {
		return &toulmin.Turn{Notes: []string{"no design-level change: no new dependency, API removal or oversized file"}}
	}
	arg := concern(design)
	arg.Claim = fmt.Sprintf("Design review: %d design-level finding(s), led by %s", len(design), design[0].Message)
	arg.Rule = ""
	return &toulmin.Turn{Arguments: []toulmin.Argument{arg}}
}

// question: offline agents argue a design question from their perspective's priorities and
// accepted trade-offs (seed 002) and reach a recommendation: each stakeholder says what the choice
// should be judged by, which of its keywords the question raises, and what it would accept; the
// maintainers' synthesis weighs the stakeholders' stances. The engine writes the synthesis
// document from these. Only text addressed to AI reviewers escalates.
func (a *OfflineAgent) question(req *toulmin.Request) *toulmin.Turn {
	var injected []toulmin.Evidence
	for _, e := range req.Evidence {
		if e.Rule == toulmin.RulePromptInjection {
			injected = append(injected, e)
		}
	}
	if a.p.Name == rules.Security && len(injected) > 0 && req.Phase.Kind == toulmin.PhaseOpening {
		arg := concern(injected)
		return &toulmin.Turn{Arguments: []toulmin.Argument{arg}, Position: &toulmin.Position{Vote: voting.Escalate, Confidence: 0.9, Reason: "the question contains text addressed to AI reviewers"}}
	}
	switch {
	case req.Phase.Kind == toulmin.PhaseOpening && !a.maintainer():
		return a.questionOpening(req)
	case req.Phase.Kind == toulmin.PhaseSynthesis && a.maintainer():
		return a.questionSynthesis(req)
	}
	return &toulmin.Turn{}
}

// questionOpening is a stakeholder's argument on a design question.
func (a *OfflineAgent) questionOpening(req *toulmin.Request) *toulmin.Turn {
	words := textWords(req.Subject.Title, req.Subject.Question)
	var raised []string
	for _, k := range a.persp.Keywords {
		if words.has(k) {
			raised = append(raised, k)
		}
	}
	priority := firstOr(a.persp.Priorities, a.p.Perspective)
	tradeOff := firstOr(a.persp.TradeOffs, "no trade-off stated")
	grounds := []toulmin.Ground{{Text: "question: " + scan.Clip(req.Subject.Question, 200)}}
	if len(raised) > 0 {
		grounds = append(grounds, toulmin.Ground{Text: "the question raises " + strings.Join(raised, ", ") + ", which this perspective weighs"})
	}
	var backing []toulmin.Backing
	for _, p := range a.persp.Priorities {
		backing = append(backing, toulmin.Backing{Evidence: "priority: " + p})
	}
	conf, qual := 0.4, "the question raises nothing this perspective names; argued from its priorities alone"
	if len(raised) > 0 {
		conf, qual = 0.6, "argued offline from the perspective's priorities and trade-offs, without a model"
	}
	rec := fmt.Sprintf("choose the option that best ensures %q; %s %s", priority, a.p.Title, tradeOff)
	arg := toulmin.Argument{
		Claim:     fmt.Sprintf("%s: judge the choice first by %q", a.p.Title, priority),
		Grounds:   grounds,
		Warrant:   fmt.Sprintf("%s; it %s", a.p.Perspective, tradeOff),
		Backing:   backing,
		Qualifier: toulmin.Qualifier{Confidence: conf, Text: qual},
	}
	engaged := raised
	if len(engaged) == 0 {
		engaged = []string{"priority: " + priority}
	}
	return &toulmin.Turn{Arguments: []toulmin.Argument{arg}, Position: &toulmin.Position{
		Vote: voting.ApproveWithChanges, Confidence: conf, Reason: rec,
		Priorities: a.persp.Priorities, TradeOffs: a.persp.TradeOffs, Engaged: engaged,
	}}
}

// questionSynthesis is a maintainer's synthesis of the stakeholders' stances on a design
// question: what they share, where their priorities pull apart, and the recommendation of the
// stakeholder that engaged most of the question.
func (a *OfflineAgent) questionSynthesis(req *toulmin.Request) *toulmin.Turn {
	syn := &toulmin.Synthesis{}
	lead, leadEngaged := "", -1
	var names []string
	for _, p := range req.Participants {
		pos, ok := req.Positions[p.Name]
		if !ok || p.Role.IsMaintainer() {
			continue
		}
		names = append(names, p.Title)
		if len(pos.Engaged) > leadEngaged {
			lead, leadEngaged = fmt.Sprintf("%s (%s)", pos.Reason, p.Title), len(pos.Engaged)
		}
		syn.Conflicts = append(syn.Conflicts, fmt.Sprintf("%s weighs %s", p.Title, firstOr(pos.Priorities, pos.Reason)))
	}
	if len(names) == 0 {
		return &toulmin.Turn{}
	}
	syn.ConsensusPoints = []string{fmt.Sprintf("%s each accept a choice that meets their first priority", strings.Join(names, ", "))}
	syn.Resolution = lead
	arg := toulmin.Argument{
		Claim:     fmt.Sprintf("%s: the stakeholders' priorities decide the question", a.p.Title),
		Grounds:   []toulmin.Ground{{Text: "question: " + scan.Clip(req.Subject.Question, 200)}},
		Warrant:   a.p.Perspective,
		Qualifier: toulmin.Qualifier{Confidence: 0.5, Text: "argued offline, without a model"},
		Synthesis: syn,
	}
	return &toulmin.Turn{Arguments: []toulmin.Argument{arg}, Position: &toulmin.Position{
		Vote: voting.ApproveWithChanges, Confidence: 0.5, Reason: "recommend: " + lead,
	}}
}

// firstOr returns the first item of list, or fallback when it is empty.
func firstOr(list []string, fallback string) string {
	if len(list) > 0 {
		return list[0]
	}
	return fallback
}
