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
// change's text), which the review's body lists. A required change tied to a line goes with the
// finding on that line whose rule it is the fix of, else with the line's first finding; one that
// no finding carries is a comment of its own. Required changes carried from an earlier head
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
	standing, keys := StandingFindings(t), FindingKeys(t)
	var kept []InlineFinding
	for i, e := range standing {
		if e.Severity.Rank() < voting.SeverityMedium.Rank() && (e.Line <= 0 || len(required[toulmin.Cite(e.Path, e.Line)]) == 0) {
			continue
		}
		kept = append(kept, InlineFinding{Key: keys[i], Evidence: e})
	}
	used := attachRequired(kept, required)
	for _, f := range kept {
		if f.Path == "" || f.Line <= 0 {
			noLine = append(noLine, f)
		} else {
			onLines = append(onLines, f)
		}
	}
	for _, at := range requiredOrder {
		var left []string
		for i, r := range required[at] {
			if !used[at][i] {
				left = append(left, r)
			}
		}
		if len(left) == 0 {
			continue
		}
		m := Citation.FindStringSubmatch(at + ": ")
		line, _ := strconv.Atoi(m[2])
		text := strings.Join(left, "; ")
		onLines = append(onLines, InlineFinding{Key: textKey("required", m[1], text), Evidence: toulmin.Evidence{Path: m[1], Line: line, Message: text}, Required: left})
	}
	withAgentFixes(t, onLines)
	return onLines, noLine
}

// attachRequired gives each required change tied to a line to the finding on that line whose
// rule it is the fix of; the others on a line with findings go to the line's first finding. It
// returns which required changes (by location and index) a finding took.
func attachRequired(kept []InlineFinding, required map[string][]string) map[string]map[int]bool {
	used := map[string]map[int]bool{}
	first := map[string]int{}
	for i := range kept {
		f := &kept[i]
		if f.Path == "" || f.Line <= 0 {
			continue
		}
		at := toulmin.Cite(f.Path, f.Line)
		if _, ok := first[at]; !ok {
			first[at] = i
		}
		fix := strings.ToLower(strings.TrimSpace(rules.Rules[f.Rule].Fix))
		for j, r := range required[at] {
			if used[at][j] || fix == "" || !sameFix(r, fix) {
				continue
			}
			if used[at] == nil {
				used[at] = map[int]bool{}
			}
			used[at][j] = true
			f.Required = append(f.Required, r)
		}
	}
	for at, i := range first {
		for j, r := range required[at] {
			if !used[at][j] {
				if used[at] == nil {
					used[at] = map[int]bool{}
				}
				used[at][j] = true
				kept[i].Required = append(kept[i].Required, r)
			}
		}
	}
	return used
}

// sameFix reports whether a required change's text is a rule's fix (either may be the other's
// start: a model or the engine may add detail).
func sameFix(required, fix string) bool {
	r := strings.ToLower(strings.TrimSpace(required))
	return strings.HasPrefix(r, fix) || strings.HasPrefix(fix, r)
}

// FindingKeys are the keys of StandingFindings(t), in its order: what marks a finding's review
// comment, so that the check run can leave out the findings that have one.
func FindingKeys(t *toulmin.Transcript) []string {
	standing := StandingFindings(t)
	seen := map[string]int{}
	out := make([]string, len(standing))
	for i, e := range standing {
		out[i] = findingKey(e, seen)
	}
	return out
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

// InlineComment is one review comment: the findings on one line, merged.
type InlineComment struct {
	Path     string
	Line     int
	Findings []InlineFinding
}

// ByLine merges the findings on one line into one comment each, in the order of their first
// finding (most serious first).
func ByLine(findings []InlineFinding) []InlineComment {
	var out []InlineComment
	index := map[string]int{}
	for _, f := range findings {
		at := toulmin.Cite(f.Path, f.Line)
		i, ok := index[at]
		if !ok {
			i = len(out)
			index[at] = i
			out = append(out, InlineComment{Path: f.Path, Line: f.Line})
		}
		out[i].Findings = append(out[i].Findings, f)
	}
	return out
}

// Body is the review comment of the findings on one line: each finding with what was found, its
// own required change or fix, and a committable suggestion where one is known; the hidden marker
// of each finding ends the comment.
func (c InlineComment) Body() string {
	var b strings.Builder
	with, _, _ := c.suggestion()
	for i, f := range c.Findings {
		if i > 0 {
			b.WriteString("\n---\n\n")
		}
		f.writeSection(&b, i == with)
	}
	b.WriteString("\n")
	for _, f := range c.Findings {
		fmt.Fprintf(&b, "<!-- debatebot:finding %s -->", f.Key)
		b.WriteString(FingerprintMarker(f.Evidence))
	}
	return redact.Redact(b.String())
}

// CommentBody is the review comment of one finding alone.
func (f InlineFinding) CommentBody() string {
	return InlineComment{Path: f.Path, Line: f.Line, Findings: []InlineFinding{f}}.Body()
}

// SuggestedLines are the head lines from..to the comment's suggestion replaces (the review
// comment's start_line and line on side RIGHT), ok false when it carries none.
func (c InlineComment) SuggestedLines() (from, to int, ok bool) {
	i, from, to := c.suggestion()
	return from, to, i >= 0
}

// suggestion picks the comment's one committable suggestion: the first finding's (the most
// serious) that has one, since GitHub applies a comment's suggestion to the comment's lines and
// two findings' edits of different lines cannot share them. It returns the finding's index, -1
// when none has one.
func (c InlineComment) suggestion() (i, from, to int) {
	for i, f := range c.Findings {
		if _, from, to, ok := Suggestion(f.Evidence); ok {
			return i, from, to
		}
	}
	return -1, 0, 0
}

// writeSection writes a finding's part of its line's comment: severity and rule, what was found,
// its required changes (or the rule's fix), and its suggestion when withFix.
func (f InlineFinding) writeSection(b *strings.Builder, withFix bool) {
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
	fmt.Fprintf(b, "**%s**\n\n", head)
	if f.Rule != "" {
		fmt.Fprintf(b, "%s\n", Inline(f.Message))
	}
	for _, r := range f.Required {
		fmt.Fprintf(b, "\n**Required change:** %s\n", Inline(r))
	}
	if fix := rules.Rules[f.Rule].Fix; fix != "" && len(f.Required) == 0 {
		fmt.Fprintf(b, "\n**Fix:** %s\n", Inline(fix))
	}
	if block, _, _, ok := Suggestion(f.Evidence); ok && withFix {
		fmt.Fprintf(b, "\n%s\n", block)
	}
}

// ReviewBody is the review's text: the decision, and the findings that are not on a line.
func ReviewBody(t *toulmin.Transcript, onLines, noLine []InlineFinding, link string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**debatebot: %s** (consensus %.2f, %s)", DecisionTitle(t.Record.Decision), t.Record.ConsensusScore, t.Record.ConsensusLevel)
	if len(onLines) > 0 {
		fmt.Fprintf(&b, " · %d finding(s) on their lines below", len(onLines))
	}
	b.WriteString(". The summary comment has the decision and the required changes")
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
