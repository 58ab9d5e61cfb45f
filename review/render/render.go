package render

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// Hidden markers by which the bot finds its own comments again (DESIGN.md).
const (
	TranscriptMarker = "<!-- debatebot:transcript -->"
	DecisionMarker   = "<!-- debatebot:decision -->"
)

// Options tune the Markdown.
type Options struct {
	// Marker starts the transcript with its hidden marker (for PR comments).
	Marker bool
}

// Markdown renders the transcript as seed 004's artifact: participants, timeline, arguments per
// phase, decision rationale and action items, ending with the decision record in YAML. Text that
// came from the change is quoted so that it cannot forge markup or the bot's markers.
func Markdown(t *toulmin.Transcript, opts Options) (string, error) {
	var b strings.Builder
	if opts.Marker {
		fmt.Fprintf(&b, "%s\n", TranscriptMarker)
	}
	renderHeader(&b, t)
	renderSynthesis(&b, t)
	renderParticipants(&b, t)
	renderPanel(&b, t)
	renderTimeline(&b, t)
	renderEvidence(&b, t)
	renderArguments(&b, t)
	renderPositions(&b, t)
	renderMatrix(&b, t)
	renderTradeOff(&b, t)
	renderRationale(&b, t)
	renderCarried(&b, t)
	renderActions(&b, t)
	y, err := t.Record.YAML()
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "\n## Decision Record\n\n```yaml\n%s```\n", fence(string(y)))
	return b.String(), nil
}

// renderHeader is the title, whether the debate was offline, the decision or recommendation
// line, and the question.
func renderHeader(b *strings.Builder, t *toulmin.Transcript) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("# Debate: %s\n\n", Inline(t.Title))
	if t.Offline && t.OfflineReason != "" {
		w("> **Offline debate.** %s\n\n", t.OfflineReason)
	} else if t.Offline && t.Question != "" {
		w("> **Offline debate.** No model was configured, so every agent argued from its perspective's priorities and accepted trade-offs. Set `OPENAI_API_KEY` for model-backed agents.\n\n")
	} else if t.Offline {
		w("> **Offline debate.** No model was configured, so every agent argued by rules from the analyzers' evidence. Set `OPENAI_API_KEY` for model-backed agents.\n\n")
	}
	protocol := t.Protocol
	if t.Depth != "" {
		protocol += ", depth " + string(t.Depth)
	}
	if syn := t.Record.Synthesis; syn != nil {
		// A design question is answered by a recommendation, not a vote on code.
		w("**Recommendation** (confidence %s) · consensus %.2f (%s) · convergence %.2f · protocol %s · `%s`\n\n", syn.Confidence, t.Record.ConsensusScore, t.Record.ConsensusLevel, t.Convergence, protocol, t.DebateID)
	} else {
		w("**Decision: %s** · consensus %.2f (%s) · convergence %.2f · protocol %s · `%s`\n\n", DecisionTitle(t.Record.Decision), t.Record.ConsensusScore, t.Record.ConsensusLevel, t.Convergence, protocol, t.DebateID)
	}
	if t.Question != "" {
		w("**Question:** %s\n\n", Inline(t.Question))
	}
}

// renderParticipants is the table of the agents, their roles, weights and perspectives.
func renderParticipants(b *strings.Builder, t *toulmin.Transcript) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## Participants\n\n| | Agent | Role | Weight | Perspective |\n|---|---|---|---|---|\n")
	for _, p := range t.Participants {
		mode := "offline"
		if !p.Offline {
			mode = "model " + p.Model
		}
		w("| %s | %s (%s) | %s | %.1f | %s |\n", p.Abbrev, p.Title, mode, p.VotingRole, p.Weight, cell(p.Perspective))
	}
}

// renderTimeline is the debate's course: times, depth, fast exit, rounds, the moderator's
// judgements, checkpoints, and the table of phases.
func renderTimeline(b *strings.Builder, t *toulmin.Transcript) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Timeline\n\n- Started: %s\n- Ended: %s\n- Decision: %s\n", stamp(t.StartedAt), stamp(t.EndedAt), DecisionTitle(t.Record.Decision))
	if t.Depth != "" {
		w("- Depth: %s (%s)\n", t.Depth, depthText(t.Depth))
	}
	if fe := t.FastExit; fe != nil {
		if fe.Taken {
			w("- Fast exit: %s\n", Inline(fe.Reason))
		} else {
			w("- No fast exit: %s\n", Inline(fe.Reason))
			for _, p := range fe.Partial {
				w("  - Partial: %s\n", Inline(p))
			}
		}
	}
	if b := t.BudgetStop; b != nil {
		w("- Model budget reached: %s\n", Inline(b.Sentence()))
	}
	if t.Rounds > 0 {
		w("- Rounds: %d (%s)\n", t.Rounds, t.ExitReason)
	}
	for _, j := range t.Judgements {
		next := "the debate goes on"
		if j.Ends {
			next = "the rounds end: " + j.Exit
		}
		w("- Moderator after round %d: **%s** — %s; %s\n", j.Round, strings.ReplaceAll(string(j.Verdict), "_", " "), Inline(j.Detail), Inline(next))
	}
	for _, c := range t.Checkpoints {
		// The guidance is whatever its author wrote: quoted inline, like the change's text.
		line := fmt.Sprintf("- Checkpoint after round %d: **%s**", c.AfterRound, c.Action)
		if c.By != "" {
			line += " by " + Inline(c.By)
		}
		if c.Guidance != "" {
			line += ": " + Inline(c.Guidance)
		}
		if c.Note != "" {
			line += " (" + Inline(c.Note) + ")"
		}
		w("%s\n", line)
	}
	w("\n| Phase | Round | Started | Duration | Status | Notes |\n|---|---|---|---|---|---|\n")
	for _, p := range t.Timeline {
		w("| %s | %d | %s | %s | %s | %s |\n", p.Phase.Title(), p.Round, p.StartedAt.UTC().Format("15:04:05"), p.Duration().Round(time.Millisecond), p.Status, cell(strings.Join(p.Notes, "; ")))
	}
}

// renderEvidence is the table of the analyzers' findings.
func renderEvidence(b *strings.Builder, t *toulmin.Transcript) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Evidence\n\n")
	if len(t.Evidence) == 0 {
		w("The analyzers found nothing to report.\n")
	} else {
		w("| ID | Severity | Location | Rule | Stakeholder | Finding |\n|---|---|---|---|---|---|\n")
		for _, e := range t.Evidence {
			loc := "change text"
			if e.Path != "" {
				loc = "`" + code(e.Location()) + "`"
			}
			finding := cell(e.Message)
			if e.Mitigates != "" {
				finding += " (mitigates " + e.Mitigates + ")"
			}
			w("| %s | %s | %s | %s | %s | %s |\n", e.ID, e.Severity, loc, e.Rule, e.Stakeholder, finding)
		}
	}
}

// renderArguments lists the arguments phase by phase, with the stances of agents that argued
// nothing in a phase.
func renderArguments(b *strings.Builder, t *toulmin.Transcript) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Arguments\n")
	for _, p := range t.Timeline {
		var args []toulmin.Argument
		for _, a := range t.Arguments {
			if a.Phase == p.Phase && a.Round == p.Round {
				args = append(args, a)
			}
		}
		quiet := quietStances(t, p, args)
		if len(args) == 0 && len(quiet) == 0 {
			continue
		}
		w("\n### %s", p.Phase.Title())
		if p.Phase.Answers() {
			w(" (round %d)", p.Round)
		}
		w("\n")
		for _, a := range args {
			renderArgument(b, t, a)
		}
		if len(quiet) > 0 {
			w("\n")
			for _, s := range quiet {
				w("- **%s** (%s): %s\n", title(t, s.Agent), s.Position.Vote, Inline(s.Position.Reason))
			}
		}
	}
}

// renderPositions is the table of every stance taken and whether it changed.
func renderPositions(b *strings.Builder, t *toulmin.Transcript) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Position history\n\n| Agent | Phase | Vote | Changed | Reason |\n|---|---|---|---|---|\n")
	for _, s := range t.Stances {
		changed := ""
		if s.Changed {
			changed = "yes, from " + string(s.From)
		}
		w("| %s | %s | %s | %s | %s |\n", title(t, s.Agent), s.Phase.Title(), s.Position.Vote, changed, cell(s.Position.Reason))
	}
}

// renderRationale is why the debate decided as it did: the syntheses, the weighted vote,
// escalations and dissent.
func renderRationale(b *strings.Builder, t *toulmin.Transcript) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Decision Rationale\n\n")
	synthesised := map[string]bool{}
	for _, a := range t.ArgumentsIn(toulmin.PhaseSynthesis) {
		if a.Synthesis != nil {
			synthesised[a.Agent] = true
			w("- **%s:** %s. %s\n", title(t, a.Agent), Inline(a.Claim), Inline(a.Synthesis.Resolution))
		}
	}
	for _, s := range t.Stances {
		if s.Phase == toulmin.PhaseSynthesis && !synthesised[s.Agent] {
			w("- **%s:** %s. %s\n", title(t, s.Agent), s.Position.Vote, Inline(s.Position.Reason))
		}
	}
	var shares []string
	for _, o := range []voting.Option{voting.Approve, voting.ApproveWithChanges, voting.RequestChanges, voting.Escalate} {
		if s, ok := t.Shares[o]; ok {
			shares = append(shares, fmt.Sprintf("%s %.0f%%", o, s*100))
		}
	}
	if len(shares) > 0 {
		w("- **Weighted vote:** %s (strong above 80%%, consensus above 65%%).\n", strings.Join(shares, ", "))
	}
	for _, e := range t.Escalations {
		w("- **Escalated (%s):** %s\n", e.Reason, Inline(e.Detail))
	}
	for _, d := range t.Record.DissentingOpinions {
		w("- **Dissent, %s:** %s\n", title(t, d.Agent), Inline(d.Concern))
	}
}

// renderCarried lists the required changes carried from the last debated head, if any.
func renderCarried(b *strings.Builder, t *toulmin.Transcript) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if len(t.Carried) > 0 {
		w("\n## Carried forward from `%s`\n\nThis debate covered what changed since the last debated head; the earlier required changes:\n\n", code(ShortSHA(t.Carried[0].From)))
		for _, c := range t.Carried {
			mark := "[ ]"
			if c.Status == toulmin.Resolved {
				mark = "[x]"
			}
			w("- %s %s (%s)\n", mark, Inline(c.Text), strings.ReplaceAll(string(c.Status), "_", " "))
		}
	}
}

// renderActions lists the required changes and the follow-ups.
func renderActions(b *strings.Builder, t *toulmin.Transcript) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Action Items\n\n")
	if len(t.Record.RequiredChanges) == 0 && len(t.Record.FollowUp) == 0 {
		w("None.\n")
	}
	for _, r := range t.Record.RequiredChanges {
		w("- [ ] **Required:** %s\n", Inline(r))
	}
	for _, f := range t.Record.FollowUp {
		w("- [ ] Follow-up: %s\n", Inline(f))
	}
}

func renderArgument(b *strings.Builder, t *toulmin.Transcript, a toulmin.Argument) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n#### %s\n\n", argumentHead(t, a))
	if a.Steelman != "" {
		// Seed 003: the rebuttal states the strongest form of what it answers before disputing it.
		w("**Steelman:** %s\n\n", Inline(a.Steelman))
	}
	w("**Claim:** %s\n\n", Inline(a.Claim))
	if a.Limit != "" {
		w("**Limit:** %s\n\n", Inline(a.Limit))
	}
	renderParts(b, a)
	renderTemplate(b, a)
	if len(a.Actions) > 0 {
		w("- **Proposed:**\n")
		for _, act := range a.Actions {
			req := ""
			if act.Required {
				req = " (required)"
			}
			w("  - %s%s\n", Inline(act.String()), req)
		}
	}
	if s := a.Synthesis; s != nil {
		if len(s.ConsensusPoints) > 0 {
			w("- **Consensus points:** %s\n", Inline(strings.Join(s.ConsensusPoints, "; ")))
		}
		if len(s.Conflicts) > 0 {
			w("- **Conflicts:** %s\n", Inline(strings.Join(s.Conflicts, "; ")))
		}
		w("- **Resolution:** %s\n", Inline(s.Resolution))
	}
	renderQuality(b, a)
}

// argumentHead is the heading of an argument: its id, what it answers, its author, severity,
// answer or resolution, and what it repeats.
func argumentHead(t *toulmin.Transcript, a toulmin.Argument) string {
	head := fmt.Sprintf("%s · %s", a.ID, title(t, a.Agent))
	if a.Target != "" {
		head = fmt.Sprintf("%s → %s · %s", a.ID, a.Target, title(t, a.Agent))
	}
	if a.Severity != "" && a.Severity != voting.SeverityInfo {
		head += " · " + string(a.Severity)
	}
	switch {
	case a.Answer != "":
		head += " · " + string(a.Answer)
	case a.Resolution != "":
		head += " · " + string(a.Resolution)
	}
	if a.Repeats != nil {
		head += fmt.Sprintf(" · repeats %s (%.0f%%)", a.Repeats.Of, a.Repeats.Share*100)
	}
	return head
}

// renderParts lists the argument's Toulmin parts: grounds, warrant, backing, qualifier, rebuttal.
func renderParts(b *strings.Builder, a toulmin.Argument) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if len(a.Grounds) > 0 {
		w("- **Grounds:**\n")
		for _, g := range a.Grounds {
			if c := g.Citation(); c != "" {
				w("  - `%s` — %s\n", code(c), Inline(g.Text))
			} else {
				w("  - %s\n", Inline(g.Text))
			}
		}
	}
	if a.Warrant != "" {
		w("- **Warrant:** %s\n", Inline(a.Warrant))
	}
	if len(a.Backing) > 0 {
		var parts []string
		for _, bk := range a.Backing {
			for _, s := range []string{bk.Reference, bk.Evidence} {
				if s != "" {
					parts = append(parts, Inline(s))
				}
			}
		}
		w("- **Backing:** %s\n", strings.Join(parts, "; "))
	}
	w("- **Qualifier:** %s\n", Inline(a.Qualifier.String()))
	if a.Rebuttal != "" {
		w("- **Rebuttal:** %s\n", Inline(a.Rebuttal))
	}
}

// renderQuality is the argument's quality score and the checks it failed.
func renderQuality(b *strings.Builder, a toulmin.Argument) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("- **Quality:** %d/%d", a.Quality.Points(), len(a.Quality.Checks))
	var failed []string
	for _, c := range a.Quality.Checks {
		if !c.Passed {
			failed = append(failed, fmt.Sprintf("%s: %s", strings.ReplaceAll(string(c.Criterion), "_", "-"), c.Reason))
		}
	}
	if len(failed) > 0 {
		w(" — not %s", Inline(strings.Join(failed, "; not ")))
	}
	w("\n")
}

func title(t *toulmin.Transcript, agent string) string {
	if p, ok := t.Participant(agent); ok {
		return p.Title
	}
	return agent
}

func DecisionTitle(o voting.Option) string {
	switch o {
	case voting.Approve:
		return "Approve"
	case voting.ApproveWithChanges:
		return "Approve with changes"
	case voting.RequestChanges:
		return "Request changes"
	case voting.Escalate:
		return "Escalate to a human"
	}
	return string(o)
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// inline makes untrusted text safe inside Markdown prose: no HTML, no forged markers, one line.
// Code spans (between backticks) keep their text as is, except what could forge a marker.
func Inline(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\n", " ")
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		// An unbalanced backtick: treat the whole text as prose.
		parts = []string{strings.ReplaceAll(s, "`", "'")}
	}
	for i, p := range parts {
		if i%2 == 1 {
			parts[i] = code(p)
			continue
		}
		p = strings.ReplaceAll(p, "<", "&lt;")
		p = strings.ReplaceAll(p, ">", "&gt;")
		// No links or images: an image whose address carries the change's text would send it to
		// whoever the text (or a model it instructed) names, as soon as the comment is shown.
		parts[i] = linkBreaker.Replace(p)
	}
	return strings.Join(parts, "`")
}

// linkBreaker escapes the "](" that an inline link or image needs ("[text](address)"); text on one
// line inside a list or table cannot define a reference link.
var linkBreaker = strings.NewReplacer("](", `]\(`)

// cell is inline text inside a table cell.
func cell(s string) string { return strings.ReplaceAll(Inline(s), "|", "\\|") }

// code is text inside a code span, on one line.
func code(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	s = strings.ReplaceAll(s, "`", "'")
	return strings.ReplaceAll(s, "<!--", "< !--")
}

// fence keeps text from closing a code fence or forging a marker.
func fence(s string) string {
	s = strings.ReplaceAll(s, "```", "'''")
	return strings.ReplaceAll(s, "<!--", "< !--")
}

// Summary is a short plain-text account of the decision, for logs and check-run titles.
func Summary(t *toulmin.Transcript) string {
	r := t.Record
	parts := []string{fmt.Sprintf("%s (consensus %.2f, %s)", DecisionTitle(r.Decision), r.ConsensusScore, r.ConsensusLevel)}
	if reasons := escalationReasons(t); len(reasons) > 0 {
		parts = append(parts, "escalated: "+strings.Join(reasons, ", "))
	}
	if n := len(r.RequiredChanges); n > 0 {
		parts = append(parts, fmt.Sprintf("%d required change(s)", n))
	}
	if t.OfflineReason != "" {
		parts = append(parts, "offline agents: the repository's model budget for the day is spent")
	}
	if t.BudgetStop != nil {
		parts = append(parts, "ended early: the debate's model budget was spent")
	}
	if ds := Dissent(t); len(ds) > 0 {
		names := make([]string, 0, len(ds))
		for _, d := range ds {
			names = append(names, title(t, d.Agent))
		}
		sort.Strings(names)
		parts = append(parts, "dissent: "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; ")
}

// quietStances are the stances taken in a phase by agents that made no argument in it: an agent
// with nothing to say says so in one line.
func quietStances(t *toulmin.Transcript, p toulmin.PhaseRecord, args []toulmin.Argument) []toulmin.Stance {
	spoke := map[string]bool{}
	for _, a := range args {
		spoke[a.Agent] = true
	}
	var out []toulmin.Stance
	for _, s := range t.Stances {
		if s.Phase == p.Phase && s.Round == p.Round && !spoke[s.Agent] {
			out = append(out, s)
		}
	}
	return out
}

// renderPanel says who seated the stakeholders and why (seed 002's moderator).
func renderPanel(b *strings.Builder, t *toulmin.Transcript) {
	p := t.Panel
	if p == nil {
		return
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Moderator\n\n")
	if p.Method == toulmin.PanelConfigured {
		names := make([]string, len(p.Seated))
		for i, s := range p.Seated {
			names[i] = title(t, s.Agent)
		}
		w("The panel is the `stakeholders:` list of debatebot.yml, which wins over the moderator: %s.\n", Inline(strings.Join(names, ", ")))
	} else {
		w("The moderator (%s) seated %d perspective(s) for this change, before the openings:\n\n", Inline(p.Method), len(p.Seated))
		for _, s := range p.Seated {
			w("- **%s**: %s\n", title(t, s.Agent), Inline(s.Reason))
		}
		if p.Opposition != "" {
			w("\nOpposing trade-offs: %s.\n", Inline(p.Opposition))
		}
		if len(p.Left) > 0 {
			w("\nLeft out:\n\n")
			for _, s := range p.Left {
				w("- %s: %s\n", cell(s.Agent), Inline(s.Reason))
			}
		}
	}
	for _, n := range p.Notes {
		w("\n> %s\n", Inline(n))
	}
}

func depthText(d toulmin.Depth) string {
	switch d {
	case toulmin.DepthQuick:
		return "1 round: the openings alone"
	case toulmin.DepthStandard:
		return "2 rounds: the openings and one round of rebuttal, clarification and response"
	case toulmin.DepthDeep:
		return "up to 3 rounds: the openings and up to two rounds of rebuttal, clarification and response, ending once convergence reaches the threshold"
	}
	return string(d)
}

// renderMatrix shows seed 003's per-point scoring matrix and the convergence ratio.
func renderMatrix(b *strings.Builder, t *toulmin.Transcript) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Scoring Matrix\n\n")
	if len(t.Points) == 0 {
		w("No point was disputed: convergence %.2f.\n", t.Convergence)
		return
	}
	agreed := 0
	for _, p := range t.Points {
		if p.Agreed {
			agreed++
		}
	}
	w("Convergence %.2f: %d of %d disputed point(s) agreed.\n\n| Point | State | Winner | Confidence | Evidence |\n|---|---|---|---|---|\n", t.Convergence, agreed, len(t.Points))
	for _, p := range t.Points {
		w("| %s | %s | %s | %.0f%% | %s |\n", cell(p.Point), cell(p.State), cell(p.Winner), p.Confidence*100, cell(p.Evidence))
	}
}

// renderSynthesis writes seed 002's synthesis document of a design question.
func renderSynthesis(b *strings.Builder, t *toulmin.Transcript) {
	syn := t.Record.Synthesis
	if syn == nil {
		return
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	list := func(items []string, none string) {
		if len(items) == 0 {
			w("- %s\n", none)
		}
		for _, it := range items {
			w("- %s\n", Inline(it))
		}
	}
	w("## Synthesis\n\n### Perspectives considered\n")
	for _, p := range syn.Perspectives {
		w("\n#### %s\n\n- Key arguments:\n", Inline(p.Title))
		for _, a := range p.KeyArguments {
			w("  - %s\n", Inline(a))
		}
		if len(p.TradeOffs) > 0 {
			w("- Trade-offs accepted:\n")
			for _, o := range p.TradeOffs {
				w("  - %s\n", Inline(o))
			}
		}
	}
	w("\n### Points of agreement\n\n")
	list(syn.Agreement, "none recorded")
	w("\n### Key tensions\n\n")
	list(syn.Tensions, "none recorded")
	w("\n### Recommendation\n\n%s\n\n**Confidence:** %s\n\n**Caveats:**\n\n", Inline(syn.Recommendation), syn.Confidence)
	list(syn.Caveats, "none")
	dissent := "No perspective dissents."
	if syn.Dissent != "" {
		dissent = Inline(syn.Dissent)
	}
	w("\n### Dissenting view\n\n%s\n\n", dissent)
}

// renderTradeOff writes seed 001's trade-off document of a debate without consensus.
func renderTradeOff(b *strings.Builder, t *toulmin.Transcript) {
	to := t.TradeOff
	if to == nil {
		return
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Trade-offs (no consensus)\n\n**Final position:** %s. The decision escalates to a human.\n\n**Perspectives:**\n\n", Inline(to.FinalPosition))
	for _, s := range to.Stances {
		side := "disagrees"
		if s.Agrees {
			side = "agrees"
		}
		w("- %s: %s (%s) — %s\n", title(t, s.Agent), s.Vote, side, Inline(s.Concern))
	}
	w("\n**Core disagreement:** %s\n\n**Assumptions exposed:**\n\n| Perspective | Position | Assumes | The other position is right if |\n|---|---|---|---|\n", Inline(to.CoreDisagreement))
	for _, a := range to.Assumptions {
		w("| %s | %s | %s | %s |\n", cell(title(t, a.Agent)), a.Vote, cell(a.Assumes), cell(a.OtherSideRight))
	}
}

// renderTemplate lays a security, performance or architecture concern out as seed 004's
// templates do.
func renderTemplate(b *strings.Builder, a toulmin.Argument) {
	tp := a.Template
	if tp == nil {
		return
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	loc := "the change"
	if len(a.Grounds) > 0 && a.Grounds[0].Citation() != "" {
		loc = "`" + code(a.Grounds[0].Citation()) + "`"
	}
	item := func(name, v string) {
		if v != "" {
			w("  - %s: %s\n", name, Inline(v))
		}
	}
	switch tp.Kind {
	case toulmin.TemplateSecurity:
		sev := string(a.Severity)
		if sev == "" {
			sev = "unrated"
		}
		w("- **Security analysis:** %s · severity %s · location %s\n", Inline(tp.Type), sev, loc)
		item("Attack vector", tp.AttackVector)
		item("Impact", tp.Impact)
		item("Mitigation", tp.Mitigation)
	case toulmin.TemplatePerformance:
		if tp.Metric != "" {
			w("- **Performance analysis:** metric %s · location %s\n", Inline(tp.Metric), loc)
		} else {
			w("- **Performance analysis:** location %s\n", loc)
		}
		item("Expected change", tp.ExpectedChange)
		item("Complexity", tp.Complexity)
	case toulmin.TemplateArchitecture:
		w("- **Architectural analysis:** location %s\n", loc)
		item("Principle", tp.Principle)
		item("Pattern impact", tp.PatternImpact)
		item("Refactoring", tp.Refactoring)
	}
}

// ShortSHA is a commit's short form, as GitHub shows it (7 characters).
func ShortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

var Citation = regexp.MustCompile(`^([^\s:]+):(\d+): `)
