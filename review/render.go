package review

import (
	"fmt"
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

// RenderOptions tune the Markdown.
type RenderOptions struct {
	// Marker starts the transcript with its hidden marker (for PR comments).
	Marker bool
}

// Markdown renders the transcript as seed 004's artifact: participants, timeline, arguments per
// phase, decision rationale and action items, ending with the decision record in YAML. Text that
// came from the change is quoted so that it cannot forge markup or the bot's markers.
func Markdown(t *toulmin.Transcript, opts RenderOptions) (string, error) {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	if opts.Marker {
		w("%s\n", TranscriptMarker)
	}
	w("# Debate: %s\n\n", inline(t.Title))
	if t.Offline {
		w("> **Offline debate.** No model was configured, so every agent argued by rules from the analyzers' evidence. Set `OPENAI_API_KEY` for model-backed agents.\n\n")
	}
	w("**Decision: %s** · consensus %.2f (%s) · protocol %s · `%s`\n\n", decisionTitle(t.Record.Decision), t.Record.ConsensusScore, t.Record.ConsensusLevel, t.Protocol, t.DebateID)
	if t.Question != "" {
		w("**Question:** %s\n\n", inline(t.Question))
	}

	w("## Participants\n\n| | Agent | Role | Weight | Perspective |\n|---|---|---|---|---|\n")
	for _, p := range t.Participants {
		mode := "offline"
		if !p.Offline {
			mode = "model " + p.Model
		}
		w("| %s | %s (%s) | %s | %.1f | %s |\n", p.Abbrev, p.Title, mode, p.VotingRole, p.Weight, cell(p.Perspective))
	}

	w("\n## Timeline\n\n- Started: %s\n- Ended: %s\n- Decision: %s\n", stamp(t.StartedAt), stamp(t.EndedAt), decisionTitle(t.Record.Decision))
	if t.Rounds > 0 {
		w("- Rounds: %d (%s)\n", t.Rounds, t.ExitReason)
	}
	w("\n| Phase | Round | Started | Duration | Status | Notes |\n|---|---|---|---|---|---|\n")
	for _, p := range t.Timeline {
		w("| %s | %d | %s | %s | %s | %s |\n", p.Phase.Title(), p.Round, p.StartedAt.UTC().Format("15:04:05"), p.Duration().Round(time.Millisecond), p.Status, cell(strings.Join(p.Notes, "; ")))
	}

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
		if p.Phase == toulmin.PhaseRebuttal || p.Phase == toulmin.PhaseClarification {
			w(" (round %d)", p.Round)
		}
		w("\n")
		for _, a := range args {
			renderArgument(&b, t, a)
		}
		if len(quiet) > 0 {
			w("\n")
			for _, s := range quiet {
				w("- **%s** (%s): %s\n", title(t, s.Agent), s.Position.Vote, inline(s.Position.Reason))
			}
		}
	}

	w("\n## Position history\n\n| Agent | Phase | Vote | Changed | Reason |\n|---|---|---|---|---|\n")
	for _, s := range t.Stances {
		changed := ""
		if s.Changed {
			changed = "yes"
		}
		w("| %s | %s | %s | %s | %s |\n", title(t, s.Agent), s.Phase.Title(), s.Position.Vote, changed, cell(s.Position.Reason))
	}

	w("\n## Decision Rationale\n\n")
	synthesised := map[string]bool{}
	for _, a := range t.ArgumentsIn(toulmin.PhaseSynthesis) {
		if a.Synthesis != nil {
			synthesised[a.Agent] = true
			w("- **%s:** %s. %s\n", title(t, a.Agent), inline(a.Claim), inline(a.Synthesis.Resolution))
		}
	}
	for _, s := range t.Stances {
		if s.Phase == toulmin.PhaseSynthesis && !synthesised[s.Agent] {
			w("- **%s:** %s. %s\n", title(t, s.Agent), s.Position.Vote, inline(s.Position.Reason))
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
		w("- **Escalated (%s):** %s\n", e.Reason, inline(e.Detail))
	}
	for _, d := range t.Record.DissentingOpinions {
		w("- **Dissent, %s:** %s\n", title(t, d.Agent), inline(d.Concern))
	}

	if len(t.Carried) > 0 {
		w("\n## Carried forward from `%s`\n\nThis debate covered what changed since the last debated head; the earlier required changes:\n\n", code(short(t.Carried[0].From)))
		for _, c := range t.Carried {
			mark := "[ ]"
			if c.Status == toulmin.Resolved {
				mark = "[x]"
			}
			w("- %s %s (%s)\n", mark, inline(c.Text), strings.ReplaceAll(string(c.Status), "_", " "))
		}
	}

	w("\n## Action Items\n\n")
	if len(t.Record.RequiredChanges) == 0 && len(t.Record.FollowUp) == 0 {
		w("None.\n")
	}
	for _, r := range t.Record.RequiredChanges {
		w("- [ ] **Required:** %s\n", inline(r))
	}
	for _, f := range t.Record.FollowUp {
		w("- [ ] Follow-up: %s\n", inline(f))
	}

	y, err := t.Record.YAML()
	if err != nil {
		return "", err
	}
	w("\n## Decision Record\n\n```yaml\n%s```\n", fence(string(y)))
	return b.String(), nil
}

func renderArgument(b *strings.Builder, t *toulmin.Transcript, a toulmin.Argument) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	head := fmt.Sprintf("%s · %s", a.ID, title(t, a.Agent))
	if a.Target != "" {
		head = fmt.Sprintf("%s → %s · %s", a.ID, a.Target, title(t, a.Agent))
	}
	if a.Severity != "" && a.Severity != toulmin.SeverityInfo {
		head += " · " + string(a.Severity)
	}
	if a.Resolution != "" {
		head += " · " + string(a.Resolution)
	}
	w("\n#### %s\n\n**Claim:** %s\n\n", head, inline(a.Claim))
	if len(a.Grounds) > 0 {
		w("- **Grounds:**\n")
		for _, g := range a.Grounds {
			if c := g.Citation(); c != "" {
				w("  - `%s` — %s\n", code(c), inline(g.Text))
			} else {
				w("  - %s\n", inline(g.Text))
			}
		}
	}
	if a.Warrant != "" {
		w("- **Warrant:** %s\n", inline(a.Warrant))
	}
	if len(a.Backing) > 0 {
		var parts []string
		for _, bk := range a.Backing {
			for _, s := range []string{bk.Reference, bk.Evidence} {
				if s != "" {
					parts = append(parts, inline(s))
				}
			}
		}
		w("- **Backing:** %s\n", strings.Join(parts, "; "))
	}
	w("- **Qualifier:** %s\n", inline(a.Qualifier.String()))
	if a.Rebuttal != "" {
		w("- **Rebuttal:** %s\n", inline(a.Rebuttal))
	}
	if len(a.Actions) > 0 {
		w("- **Proposed:**\n")
		for _, act := range a.Actions {
			req := ""
			if act.Required {
				req = " (required)"
			}
			w("  - %s%s\n", inline(act.String()), req)
		}
	}
	if s := a.Synthesis; s != nil {
		if len(s.ConsensusPoints) > 0 {
			w("- **Consensus points:** %s\n", inline(strings.Join(s.ConsensusPoints, "; ")))
		}
		if len(s.Conflicts) > 0 {
			w("- **Conflicts:** %s\n", inline(strings.Join(s.Conflicts, "; ")))
		}
		w("- **Resolution:** %s\n", inline(s.Resolution))
	}
	w("- **Quality:** %d/5", int(a.Quality.Score*5+0.5))
	var failed []string
	for _, c := range a.Quality.Checks {
		if !c.Passed {
			failed = append(failed, fmt.Sprintf("%s: %s", strings.ReplaceAll(string(c.Criterion), "_", "-"), c.Reason))
		}
	}
	if len(failed) > 0 {
		w(" — not %s", inline(strings.Join(failed, "; not ")))
	}
	w("\n")
}

func title(t *toulmin.Transcript, agent string) string {
	if p, ok := t.Participant(agent); ok {
		return p.Title
	}
	return agent
}

func decisionTitle(o voting.Option) string {
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
func inline(s string) string {
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
func cell(s string) string { return strings.ReplaceAll(inline(s), "|", "\\|") }

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
	parts := []string{fmt.Sprintf("%s (consensus %.2f, %s)", decisionTitle(r.Decision), r.ConsensusScore, r.ConsensusLevel)}
	if len(t.Escalations) > 0 {
		var reasons []string
		seen := map[voting.EscalationReason]bool{}
		for _, e := range t.Escalations {
			if !seen[e.Reason] {
				seen[e.Reason] = true
				reasons = append(reasons, string(e.Reason))
			}
		}
		parts = append(parts, "escalated: "+strings.Join(reasons, ", "))
	}
	if n := len(r.RequiredChanges); n > 0 {
		parts = append(parts, fmt.Sprintf("%d required change(s)", n))
	}
	if n := len(r.DissentingOpinions); n > 0 {
		names := make([]string, 0, n)
		for _, d := range r.DissentingOpinions {
			names = append(names, d.Agent)
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
