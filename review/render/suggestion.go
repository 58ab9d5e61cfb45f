package render

import (
	"strings"

	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/toulmin"
)

// Suggestion is the GitHub suggestion block that commits e's fix, and the head lines from..to it
// replaces (the review comment's start_line and line on side RIGHT; from == to for one line).
// ok is false when e carries no fix that can be posted: none, text the comment's redaction
// would change (a suggestion must commit exactly the proposed text), or text holding the
// comment's hidden marker. The fence is longer than any run of backticks in the text, so a fix
// holding ``` stays one block. A transcript kept before fixes existed carries only the fixed
// line (Replacement), offered on the finding's line.
func Suggestion(e toulmin.Evidence) (block string, from, to int, ok bool) {
	fix := e.Fix
	if fix == nil && e.Replacement != "" && e.Line > 0 && !strings.ContainsAny(e.Replacement, "\r\n") {
		fix = &toulmin.Fix{From: e.Line, To: e.Line, Text: e.Replacement + "\n"}
	}
	if fix == nil || fix.From < 1 || fix.To < fix.From || fix.Text != "" && !strings.HasSuffix(fix.Text, "\n") {
		return "", 0, 0, false
	}
	if strings.Contains(fix.Text, "\r") || strings.Contains(fix.Text, "debatebot:") || redact.Redact(fix.Text) != fix.Text {
		return "", 0, 0, false
	}
	fence := strings.Repeat("`", max(3, longestRun(fix.Text, '`')+1))
	return fence + "suggestion\n" + fix.Text + fence + "\n", fix.From, fix.To, true
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// withAgentFixes gives each finding on a line that has no fix of its own the edit an agent wrote
// for that line (a model's replacement lines, checked against the head when its reply was
// read): from a standing argument not withdrawn, whose action cites the finding's file and
// replaces lines including the finding's line; an action that is one of the finding's required
// changes comes first.
func withAgentFixes(t *toulmin.Transcript, onLines []InlineFinding) {
	for i := range onLines {
		f := &onLines[i]
		if f.Fix != nil || f.Replacement != "" || f.Path == "" || f.Line <= 0 {
			continue
		}
		f.Fix = agentFix(t, f.Path, f.Line, f.Required)
	}
}

func agentFix(t *toulmin.Transcript, path string, line int, required []string) *toulmin.Fix {
	var found *toulmin.Fix
	for i := range t.Arguments {
		a := &t.Arguments[i]
		if !t.Standing(a) || t.Conceded(a.ID) {
			continue
		}
		for _, act := range a.Actions {
			x := act.Fix
			if x == nil || act.Path != path || line < x.From || line > x.To {
				continue
			}
			for _, r := range required {
				if strings.TrimSpace(r) == strings.TrimSpace(act.Text) {
					return x
				}
			}
			if found == nil {
				found = x
			}
		}
	}
	return found
}
