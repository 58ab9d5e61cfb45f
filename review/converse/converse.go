// Package converse is the conversation on findings: reading a person's reply to one of the bot's
// review comments (a dismissal, or a question), and the texts the bot answers with: the
// dismissal's confirmation, the offline answer from the finding's evidence and the rule catalog,
// and the model's short answer, asked with the thread and the code around the line as untrusted
// data.
package converse

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
)

// ReplyMarker marks the bot's answer to the reply with the given id, so that a retried job
// answers once.
func ReplyMarker(replyID int64) string { return fmt.Sprintf("<!-- debatebot:reply %d -->", replyID) }

// dismissRe reads a dismissal at the start of a reply: "/debate dismiss [reason]", or "false
// positive" (also "this is a false positive", "FP"), case-insensitive, with what follows as the
// reason.
var dismissRe = regexp.MustCompile(`(?is)^\s*(?:/debate\s+dismiss\b|(?:(?:this|that|it)(?:'s|\s+is|\s+was)\s+)?(?:an?\s+)?false[\s-]+positive\b|fp\b)(.*)$`)

// ParseDismissal reports whether a reply dismisses the finding, and the reason given after the
// words that dismiss it (trimmed, on one line, possibly empty). A question about false positives
// ("false positive?") is a question, not a dismissal.
func ParseDismissal(body string) (reason string, ok bool) {
	first, _, _ := strings.Cut(strings.TrimSpace(body), "\n")
	m := dismissRe.FindStringSubmatch(strings.TrimSpace(body))
	if m == nil || strings.HasSuffix(strings.TrimSpace(first), "?") {
		return "", false
	}
	reason = strings.Join(strings.Fields(m[1]), " ")
	reason = strings.TrimLeft(reason, ":;,.-–— ")
	if len(reason) > 300 {
		reason = reason[:300] + "…"
	}
	return reason, true
}

// Finding is one finding a review comment is about, as the reply's job knows it: its marker,
// the comment's place, and its evidence when the stored debate still has it.
type Finding struct {
	render.MarkedFinding
	Path string
	Line int
	// Evidence is the finding as the debate gathered it, or nil (the debate is no longer kept).
	Evidence *toulmin.Evidence
	// Summary is the first line of the bot's comment, for a finding without evidence.
	Summary string
}

// Title is the finding's title: the rule's, else its rule, else the comment's first line.
func (f Finding) Title() string {
	if r, ok := rules.Rules[f.Rule]; ok && r.Title != "" {
		return r.Title
	}
	if f.Rule != "" {
		return f.Rule
	}
	return f.Summary
}

// Excerpt is what the dashboard shows of the finding: its message, or the comment's first line.
func (f Finding) Excerpt() string {
	if f.Evidence != nil && f.Evidence.Message != "" {
		return clip(oneLine(f.Evidence.Message), 300)
	}
	return clip(f.Summary, 300)
}

// Summary is the first line of a comment the bot wrote, without its Markdown emphasis.
func Summary(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.ReplaceAll(l, "**", "")); l != "" && !strings.HasPrefix(l, "<!--") {
			return clip(l, 200)
		}
	}
	return ""
}

// Dismissed is the bot's answer to a dismissal by login: what was dismissed, the reason, that
// the same code will not be raised again in the repository, and where to undo it (undoURL, or
// "" when the dashboard is not served).
func Dismissed(login, reason string, fs []Finding, undoURL string) string {
	var b strings.Builder
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = fmt.Sprintf("**%s**", render.Inline(f.Title()))
		if f.Rule != "" && f.Title() != f.Rule {
			names[i] += fmt.Sprintf(" (`%s`)", f.Rule)
		}
	}
	fmt.Fprintf(&b, "Dismissed by @%s as a false positive: %s.", login, strings.Join(names, ", "))
	if reason != "" {
		fmt.Fprintf(&b, " Reason given: %s", render.Inline(reason))
	}
	b.WriteString("\n\ndebatebot will not raise this again on this code in this repository; if the code or the lines around it change, it is looked at afresh.")
	if undoURL != "" {
		fmt.Fprintf(&b, " A maintainer can undo the dismissal at %s.", undoURL)
	}
	return redact.Redact(b.String()) + "\n\n" + render.DismissedMarker
}

// NotPermitted is the polite answer to a dismissal by someone without write access.
func NotPermitted(login, have string) string {
	return fmt.Sprintf("Thanks, @%s. Dismissing a finding needs write access to this repository (you have %s), so it stands for now. Someone with write access can reply `false positive` (or `/debate dismiss` with a reason) here to dismiss it; a question in this thread gets an answer.", login, have)
}

// Offline is the answer to a question without a model: for each finding, what was found where
// and by which analyzer, the line, why the rule matters, its reference and its fix, and how to
// dismiss it.
func Offline(login string, fs []Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "@%s, here is what this finding rests on.\n", login)
	for _, f := range fs {
		writeFinding(&b, f)
	}
	b.WriteString("\nIf it is wrong, someone with write access can reply `false positive` (with a reason) to dismiss it for this code.")
	return redact.Redact(b.String())
}

func writeFinding(b *strings.Builder, f Finding) {
	r, known := rules.Rules[f.Rule]
	fmt.Fprintf(b, "\n**%s**", render.Inline(f.Title()))
	if f.Rule != "" {
		fmt.Fprintf(b, " (`%s`", f.Rule)
		if r.Severity != "" {
			fmt.Fprintf(b, ", %s", r.Severity)
		}
		b.WriteString(")")
	}
	b.WriteString("\n\n")
	if e := f.Evidence; e != nil {
		by := ""
		if e.Analyzer != "" {
			by = " by " + render.Inline(analyzerName(e.Analyzer))
		}
		fmt.Fprintf(b, "- **Evidence:** found%s at `%s`: %s\n", by, toulmin.Cite(f.Path, f.Line), render.Inline(e.Message))
		if s := strings.TrimSpace(e.Snippet); s != "" && !strings.Contains(s, "`") {
			fmt.Fprintf(b, "- **The line:** `%s`\n", s)
		}
	} else if f.Summary != "" {
		fmt.Fprintf(b, "- **Evidence:** at `%s`: %s\n", toulmin.Cite(f.Path, f.Line), render.Inline(f.Summary))
	}
	if !known {
		return
	}
	if r.Warrant != "" {
		fmt.Fprintf(b, "- **Why it matters:** %s.\n", strings.TrimSuffix(r.Warrant, "."))
	}
	if r.Rebuttal != "" {
		// The catalog's rebuttals read "unless ...".
		fmt.Fprintf(b, "- **It stands** %s.\n", strings.TrimSuffix(r.Rebuttal, "."))
	}
	if r.Reference != "" {
		fmt.Fprintf(b, "- **Reference:** %s\n", r.Reference)
	}
	if r.Fix != "" {
		fmt.Fprintf(b, "- **Fix:** %s.\n", strings.TrimSuffix(r.Fix, "."))
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Select picks the findings a dismissal names when the comment is about several: a reason that
// starts with the rule of some of them ("/debate dismiss sql-injection: ...") dismisses those,
// and the rest of the reason is the reason; otherwise every finding of the comment is dismissed.
func Select(fs []Finding, reason string) ([]Finding, string) {
	word, rest, _ := strings.Cut(reason, " ")
	word = strings.TrimRight(word, ":;,.")
	var named []Finding
	for _, f := range fs {
		if f.Rule != "" && strings.EqualFold(f.Rule, word) {
			named = append(named, f)
		}
	}
	if len(named) == 0 {
		return fs, reason
	}
	return named, strings.TrimLeft(strings.TrimSpace(rest), ":;,.-–— ")
}

// ownAnalyzers name debatebot's own analyzers as a reader would; a tool's name (gosec, go vet,
// staticcheck, bandit...) is shown as it is.
var ownAnalyzers = map[string]string{
	"go-ast": "the Go syntax check", "go-typed": "the type-checked Go analysis", "lines": "a line check",
	"secrets": "the secret scanner", "change": "a check of the change as a whole", "prompt-injection": "the check for text addressed to reviewers",
	"github-alerts": "a GitHub security alert",
}

func analyzerName(a string) string {
	if n, ok := ownAnalyzers[a]; ok {
		return n
	}
	return a
}
