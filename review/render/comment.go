package render

import (
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/toulmin"
)

// MaxCommentChars is GitHub's limit on a comment body.
const MaxCommentChars = 65536

// FitComment keeps a comment under max characters: past the limit the text is cut at a line
// boundary, any open code fence closed, and a note added that points to the full transcript.
func FitComment(body string, max int, link string) string {
	if len(body) <= max {
		return body
	}
	note := "\n\n> The transcript was cut to fit GitHub's comment limit."
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

// DecisionComment renders the decision-record comment.
func DecisionComment(t *toulmin.Transcript) (string, error) {
	y, err := t.Record.YAML()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if syn := t.Record.Synthesis; syn != nil {
		// A design question is answered by a recommendation, not a vote on code.
		fmt.Fprintf(&b, "%s\n## debatebot recommendation (confidence %s)\n\n%s\n", DecisionMarker, syn.Confidence, Inline(syn.Recommendation))
	} else {
		fmt.Fprintf(&b, "%s\n## debatebot decision: %s\n\n%s\n", DecisionMarker, DecisionTitle(t.Record.Decision), Inline(Summary(t)))
	}
	if h := t.Record.HumanDecision; h != "" && h != "pending" {
		fmt.Fprintf(&b, "\n**Human decision (final): %s.** A maintainer decided after human review; the debate's own decision stays below for the record.\n", strings.ReplaceAll(h, "_", " "))
	}
	for _, e := range t.Escalations {
		fmt.Fprintf(&b, "\n- **Escalated (%s):** %s", e.Reason, Inline(e.Detail))
	}
	fmt.Fprintf(&b, "\n\n```yaml\n%s```\n", fence(string(y)))
	return b.String(), nil
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
