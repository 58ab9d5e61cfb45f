package render

import (
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// MaxCommentChars is GitHub's limit on a comment body.
const MaxCommentChars = 65536

// FitComment keeps a comment under max characters: past the limit the text is cut at a line
// boundary, any open code fence closed, and a note added that points to the full transcript.
func FitComment(body string, max int, link string) string {
	if len(body) <= max {
		return body
	}
	note := "\n\n> Cut to fit GitHub's comment limit."
	if link != "" {
		note += " The whole debate is at " + link + "."
	}
	cut := body[:max-len(note)-8]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	if strings.Count(cut, "```")%2 == 1 {
		cut += "\n```"
	}
	return cut + note
}

// DecisionComment is the decision comment: the decision in a sentence, who voted what, what to
// do next, and the decision record (YAML) folded below, once.
func DecisionComment(t *toulmin.Transcript) (string, error) {
	y, err := t.Record.YAML()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	r := t.Record
	if syn := r.Synthesis; syn != nil {
		// A design question is answered by a recommendation, not a vote on code.
		w("%s\n## debatebot recommendation (confidence %s)\n\n%s\n", DecisionMarker, syn.Confidence, Inline(scan.Clip(syn.Recommendation, 600)))
	} else {
		w("%s\n## debatebot decision: %s\n\n%s\n", DecisionMarker, DecisionTitle(r.Decision), DecisionSentence(t))
	}
	if h := r.HumanDecision; h != "" && h != "pending" {
		w("\n**Human decision (final): %s.** A maintainer decided after human review; the debate's own decision stays below for the record.\n", strings.ReplaceAll(h, "_", " "))
	}
	for _, e := range t.Escalations {
		if e.Detail != "" {
			w("\n- **%s:** %s", capitalFirst(EscalationText(e.Reason)), Inline(scan.Clip(e.Detail, 300)))
		}
	}
	if len(t.Escalations) > 0 {
		w("\n")
	}
	if len(r.Votes) > 0 {
		w("\n**Votes**\n\n")
		for _, v := range r.Votes {
			w("- %s (%s, weight %g): %s\n", title(t, v.Agent), strings.ReplaceAll(string(v.Role), "_", " "), v.Weight, strings.ReplaceAll(string(v.Vote), "_", " "))
		}
	}
	w("\n**Next**\n\n%s\n", nextStep(t))
	w("\n<details><summary>Decision record (YAML)</summary>\n\n```yaml\n%s```\n\n</details>\n", fence(string(y)))
	return b.String(), nil
}

// DecisionSentence is the decision in one sentence, with the share of the vote behind it.
func DecisionSentence(t *toulmin.Transcript) string {
	r := t.Record
	n := len(r.RequiredChanges)
	vote := fmt.Sprintf(" (%.0f%% of the weighted vote, %s)", r.ConsensusScore*100, strings.ReplaceAll(string(r.ConsensusLevel), "_", " "))
	switch r.Decision {
	case voting.Approve:
		return "The reviewers approve this change" + vote + "."
	case voting.ApproveWithChanges:
		return fmt.Sprintf("The reviewers approve this change once %d required change(s) are made%s.", n, vote)
	case voting.RequestChanges:
		return fmt.Sprintf("The reviewers ask for %d change(s) before this is merged%s.", n, vote)
	case voting.Escalate:
		reasons := escalationReasons(t)
		if len(reasons) == 0 {
			return "The debate leaves the decision to a human."
		}
		return "The debate leaves the decision to a human: " + strings.Join(reasons, "; ") + "."
	}
	return DecisionTitle(r.Decision) + vote + "."
}

// nextStep says what the author or a maintainer does now.
func nextStep(t *toulmin.Transcript) string {
	r := t.Record
	switch {
	case r.HumanDecision != "" && r.HumanDecision != "pending":
		return "Nothing: a maintainer decided."
	case r.Synthesis != nil:
		return "Weigh the recommendation and its caveats; comment `/debate` to debate the question again."
	case r.Decision == voting.Escalate:
		return "A maintainer reads the debate and decides: comment `/human-review approve` or `/human-review request-changes`."
	case len(r.RequiredChanges) > 0:
		return "Make the required changes (the checklist in the summary comment, and the comments on their lines) and push: the new head is debated again."
	case len(r.FollowUp) > 0:
		return fmt.Sprintf("Nothing blocks the merge; %d follow-up(s) are in the record below.", len(r.FollowUp))
	}
	return "Nothing blocks the merge."
}

// ProgressComment is the transcript comment while the debate runs.
func ProgressComment(t *toulmin.Transcript, running toulmin.PhaseKind) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n# Debate in progress: %s\n\n", TranscriptMarker, Inline(t.Title))
	for _, p := range t.Timeline {
		fmt.Fprintf(&b, "- [x] %s (%s)\n", p.Phase.Title(), p.Status)
	}
	if running != "" {
		fmt.Fprintf(&b, "- [ ] **%s** (running)\n", running.Title())
	}
	return b.String()
}

// capitalFirst starts a sentence of the bot's own words with a capital.
func capitalFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
