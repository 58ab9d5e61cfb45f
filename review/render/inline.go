package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// InlineFinding is a finding of substance as the review comment on its line: a standing finding
// of medium severity or more, or one a required change is tied to, or a required change that no
// finding carries.
type InlineFinding struct {
	// Key identifies the finding across pushes without its line number (see findingKey); it is
	// the hidden marker of the comment.
	Key string
	// Evidence is the finding the comment is about: its place, severity, rule and message, and
	// the fixed line (Replacement) offered as a suggestion. A required change that no finding
	// carries has only its place and its text as the message.
	toulmin.Evidence
	// Required are the required changes of the decision tied to this line.
	Required []string
}

// InlineFindings are what a debate puts on the lines of the pull request, in the evidence's order
// (most serious first), and the findings of substance that have no line (a whole file, the
// change's text), which the review's body lists. Required changes carried from an earlier head
// ("still open") were commented on then and are left out.
func InlineFindings(t *toulmin.Transcript) (onLines, noLine []InlineFinding) {
	required := map[string][]string{} // path:line -> texts
	var requiredOrder []string
	for _, r := range t.Record.RequiredChanges {
		if strings.HasSuffix(r, " (still open)") {
			continue
		}
		m := Citation.FindStringSubmatch(r)
		if m == nil {
			noLine = append(noLine, InlineFinding{Key: textKey("required", "", r), Evidence: toulmin.Evidence{Message: r}, Required: []string{r}})
			continue
		}
		at := m[1] + ":" + m[2]
		if _, seen := required[at]; !seen {
			requiredOrder = append(requiredOrder, at)
		}
		required[at] = append(required[at], strings.TrimPrefix(r, m[0]))
	}
	seen := map[string]int{}
	used := map[string]bool{}
	for _, e := range StandingFindings(t) {
		at := toulmin.Cite(e.Path, e.Line)
		req := required[at]
		if e.Line <= 0 || e.Path == "" {
			req = nil
		}
		if e.Severity.Rank() < voting.SeverityMedium.Rank() && len(req) == 0 {
			continue
		}
		f := InlineFinding{Key: findingKey(e, seen), Evidence: e}
		if len(req) > 0 && !used[at] {
			// The required change goes with the first finding on its line only.
			f.Required, used[at] = req, true
		}
		if e.Path == "" || e.Line <= 0 {
			noLine = append(noLine, f)
			continue
		}
		onLines = append(onLines, f)
	}
	for _, at := range requiredOrder {
		if used[at] {
			continue
		}
		m := Citation.FindStringSubmatch(at + ": ")
		line, _ := strconv.Atoi(m[2])
		text := strings.Join(required[at], "; ")
		onLines = append(onLines, InlineFinding{Key: textKey("required", m[1], text), Evidence: toulmin.Evidence{Path: m[1], Line: line, Message: text}, Required: required[at]})
	}
	withAgentFixes(t, onLines)
	return onLines, noLine
}

// findingKey identifies a finding by its rule, file and line text (whitespace collapsed), not by
// its line number: the same finding on a line that did not change keeps its key when lines move
// above it. Identical findings in one file are told apart by their order (":1", ":2").
func findingKey(e toulmin.Evidence, seen map[string]int) string {
	text := strings.TrimSpace(spaceRe.ReplaceAllString(e.Snippet, " "))
	if text == "" {
		text = "message:" + lineNumRe.ReplaceAllString(e.Message, "")
	}
	sum := sha256.Sum256([]byte(e.Rule + "\x00" + e.Path + "\x00" + text))
	k := hex.EncodeToString(sum[:8])
	seen[k]++
	return fmt.Sprintf("%s:%d", k, seen[k])
}

func textKey(kind, path, text string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + path + "\x00" + lineNumRe.ReplaceAllString(text, "")))
	return hex.EncodeToString(sum[:8]) + ":1"
}

// CommentBody is the review comment of a finding: severity and rule, what was found, the required
// change, what to do, a suggestion when the fix of the line is known, and the hidden marker.
func (f InlineFinding) CommentBody() string {
	var b strings.Builder
	head := "Required change"
	if f.Rule != "" {
		head = f.Rule
		if r := rules.Rules[f.Rule]; r.Title != "" {
			head = r.Title + " (`" + f.Rule + "`)"
		}
	}
	if f.Severity != "" {
		head = string(f.Severity) + " · " + head
	}
	fmt.Fprintf(&b, "**%s**\n\n", head)
	if f.Rule != "" {
		fmt.Fprintf(&b, "%s\n", Inline(f.Message))
	}
	for _, r := range f.Required {
		fmt.Fprintf(&b, "\n**Required change:** %s\n", Inline(r))
	}
	if fix := rules.Rules[f.Rule].Fix; fix != "" && len(f.Required) == 0 {
		fmt.Fprintf(&b, "\n**Fix:** %s\n", Inline(fix))
	}
	if block, _, _, ok := Suggestion(f.Evidence); ok {
		b.WriteString("\n" + block)
	}
	fmt.Fprintf(&b, "\n<!-- debatebot:finding %s -->", f.Key)
	b.WriteString(FingerprintMarker(f.Evidence))
	return redact.Redact(b.String())
}

// reviewBody is the review's text: the decision, and the findings that are not on a line.
func ReviewBody(t *toulmin.Transcript, onLines, noLine []InlineFinding, link string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**debatebot: %s** (consensus %.2f, %s)", DecisionTitle(t.Record.Decision), t.Record.ConsensusScore, t.Record.ConsensusLevel)
	if len(onLines) > 0 {
		fmt.Fprintf(&b, " · %d finding(s) on their lines below", len(onLines))
	}
	b.WriteString(". The summary comment has the decision, the walkthrough and the debate")
	if link != "" {
		fmt.Fprintf(&b, "; the whole debate is at %s", link)
	}
	b.WriteString(".\n")
	if len(noLine) > 0 {
		b.WriteString("\nNot on a line of the diff:\n\n")
		for _, f := range noLine {
			where := "the change's text"
			if f.Path != "" {
				where = "`" + code(toulmin.Cite(f.Path, f.Line)) + "`"
			}
			what := Inline(f.Message)
			if f.Rule != "" {
				what = fmt.Sprintf("%s (%s, `%s`)", what, f.Severity, f.Rule)
			}
			fmt.Fprintf(&b, "- %s: %s", where, what)
			for _, r := range f.Required {
				if f.Rule != "" {
					fmt.Fprintf(&b, " — **required:** %s", Inline(r))
				}
			}
			fmt.Fprintf(&b, " <!-- debatebot:finding %s -->\n", f.Key)
		}
	}
	return redact.Redact(FitComment(b.String(), MaxCommentChars, link))
}
