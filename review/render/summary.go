package render

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// SummaryOptions are what the summary comment links to.
type SummaryOptions struct {
	// BlobURL is the web address of the head's files, "https://github.com/o/r/blob/<sha>/",
	// for links to the lines of required changes; empty renders plain locations.
	BlobURL string
	// Link is the debate's page (the dashboard's DEBATEBOT_PUBLIC_URL/debates/{id}, or the
	// Action's run), where the whole debate is: every argument, the evidence and the record.
	Link string
	// Max is the longest the comment may be (MaxSummaryChars when 0).
	Max int
}

// Sizes of the summary comment: the part above its first fold is what a reviewer reads on the
// pull request's page; the whole stays well under GitHub's limit, as the debate itself is on
// its page.
const (
	MaxSummaryTop   = 3000
	MaxSummaryChars = 12000
)

// walkthroughRows is how many files the folded walkthrough lists before it counts the rest.
const walkthroughRows = 30

// SummaryComment is the summary comment of a decided debate: first what a reviewer needs in ten
// seconds (the decision and its consensus, the required changes as a checklist linked to their
// lines, the dissent that matters, tokens and cost, and where the whole debate is), under
// MaxSummaryTop characters; then, folded, a short digest of each phase of the debate and the
// changed files. The arguments, the evidence and the decision record are on the debate's page
// (and the record in the decision comment), not here; the comment stays under opts.Max.
func SummaryComment(t *toulmin.Transcript, opts SummaryOptions) (string, error) {
	max := opts.Max
	if max == 0 {
		max = MaxSummaryChars
	}
	top := summaryTop(t, opts, MaxSummaryTop-1)
	type section struct{ title, body string }
	var folds []section
	if t.Record.Synthesis != nil {
		// A design question's answer is its synthesis: the perspectives, tensions and caveats.
		var sb strings.Builder
		renderSynthesis(&sb, t)
		folds = append(folds, section{"Synthesis", strings.TrimPrefix(sb.String(), "## Synthesis\n")})
	}
	if len(t.Carried) > 0 {
		var cb strings.Builder
		renderCarried(&cb, t)
		body := cb.String()
		if i := strings.Index(body, "\n\n"); i >= 0 {
			body = body[i+2:] // the fold's title says where they were carried from
		}
		folds = append(folds, section{"Carried forward from " + code(ShortSHA(t.Carried[0].From)), body})
	}
	if d := phaseDigest(t); d != "" {
		folds = append(folds, section{"How the debate went", d})
	}
	if w := walkthrough(t); w != "" {
		folds = append(folds, section{fmt.Sprintf("Files (%d)", len(t.Files)), w})
	}
	var b strings.Builder
	b.WriteString(top)
	for _, f := range folds {
		text := fold(f.title, f.body)
		if room := max - b.Len(); len(text) > room {
			// Cut to the room left, the rest on the debate's page; a fold with no room is left
			// out whole.
			if room < 400 {
				continue
			}
			text = fold(f.title, FitComment(f.body, room-len(f.title)-80, opts.Link))
		}
		b.WriteString(text)
	}
	return FitComment(b.String(), max, opts.Link), nil
}

// fold is a <details> block.
func fold(title, body string) string {
	return fmt.Sprintf("\n<details><summary>%s</summary>\n\n%s\n</details>\n", title, strings.TrimSpace(body))
}

// summaryTop is the part above the first fold, under limit characters: past it, the required
// changes it cannot list are counted and left to the debate's page.
func summaryTop(t *toulmin.Transcript, opts SummaryOptions, limit int) string {
	shown := len(t.Record.RequiredChanges)
	for {
		s := summaryTopShowing(t, opts, shown)
		if len(s) <= limit || shown == 0 {
			return FitComment(s, limit, opts.Link)
		}
		shown--
	}
}

// summaryTopShowing is the summary's top with the first shown required changes listed.
func summaryTopShowing(t *toulmin.Transcript, opts SummaryOptions, shown int) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	r := t.Record
	w("%s\n", TranscriptMarker)
	if syn := r.Synthesis; syn != nil {
		w("## debatebot recommendation (confidence %s)\n\n%s\n\n", syn.Confidence, Inline(scan.Clip(syn.Recommendation, 600)))
	} else {
		w("## debatebot: %s\n\n", DecisionTitle(r.Decision))
	}
	w("**Consensus %.2f** (%s) · convergence %.2f · protocol %s · %s\n\n", r.ConsensusScore, r.ConsensusLevel, t.Convergence, t.Protocol, Inline(scan.Clip(t.Title, 120)))
	if t.Question != "" {
		w("**Question:** %s\n\n", Inline(scan.Clip(t.Question, 300)))
	}
	if t.Offline && t.OfflineReason != "" {
		w("> **Offline debate.** %s\n\n", Inline(scan.Clip(t.OfflineReason, 300)))
	}
	if b := t.BudgetStop; b != nil {
		w("> **Model budget reached.** %s.\n\n", Inline(b.Sentence()))
	}
	if h := r.HumanDecision; h != "" && h != "pending" {
		w("**Human decision (final): %s.**\n\n", strings.ReplaceAll(h, "_", " "))
	}
	if reasons := escalationReasons(t); len(reasons) > 0 {
		w("**Escalated to a human:** %s.\n\n", strings.Join(reasons, "; "))
	}
	if n := len(r.RequiredChanges); n > 0 {
		w("**Required changes**\n\n")
		for _, rc := range r.RequiredChanges[:shown] {
			w("- [ ] %s\n", requiredItem(scan.Clip(rc, 300), opts.BlobURL))
		}
		if n > shown {
			w("- %d more required change(s), on the debate's page\n", n-shown)
		}
		w("\n")
	}
	if ds := Dissent(t); len(ds) > 0 {
		w("**Dissent**\n\n")
		for i, d := range ds {
			if i == 4 {
				w("- %d more, on the debate's page\n", len(ds)-4)
				break
			}
			vote, concern := DissentText(d.Concern)
			if vote != "" {
				w("- %s (%s): %s\n", title(t, d.Agent), vote, Inline(scan.Clip(concern, 200)))
			} else {
				w("- %s: %s\n", title(t, d.Agent), Inline(scan.Clip(concern, 200)))
			}
		}
		w("\n")
	}
	tk := r.Tokens
	w("**Tokens** %d prompt (%d cached) + %d completion · $%.4f", tk.Prompt, tk.CachedPrompt, tk.Completion, tk.CostUSD)
	if t.Offline && t.OfflineReason != "" {
		w(" · offline agents: %s", Inline(scan.Clip(t.OfflineReason, 300)))
	} else if t.Offline {
		w(" · offline agents (no model configured)")
	}
	w("\n\n")
	if opts.Link != "" {
		w("The whole debate (every argument, the evidence and the decision record) is on [its page](%s).\n", opts.Link)
	} else {
		w("The whole debate (every argument, the evidence and the decision record) is not linked here: no public address is configured for the dashboard (`DEBATEBOT_PUBLIC_URL`).\n")
	}
	return b.String()
}

// escalationReasons are why the debate escalated, in words, each once.
func escalationReasons(t *toulmin.Transcript) []string {
	seen := map[voting.EscalationReason]bool{}
	var out []string
	for _, e := range t.Escalations {
		if !seen[e.Reason] {
			seen[e.Reason] = true
			out = append(out, EscalationText(e.Reason))
		}
	}
	return out
}

// EscalationText says why a debate escalated in plain words.
func EscalationText(r voting.EscalationReason) string {
	switch r {
	case voting.ReasonNoConsensus:
		return "the reviewers did not agree"
	case voting.ReasonCriticalUnrebutted:
		return "a critical finding stands unanswered"
	case voting.ReasonHumanReview:
		return "a human review was asked for"
	case voting.ReasonPhaseFailed:
		return "a step of the debate failed"
	case voting.ReasonVoted:
		return "the reviewers voted to escalate"
	case voting.ReasonPromptInjection:
		return "the change contains text addressed to the reviewer"
	case voting.ReasonDisputeEscalated:
		return "a disputed point was left to a human"
	}
	return strings.ReplaceAll(string(r), "_", " ")
}

// Dissent is the dissent that matters: the agents whose final vote differs from the decision
// (from the vote's winner when the debate escalated, as nobody votes to escalate) and that said
// something in the debate, with their concern.
func Dissent(t *toulmin.Transcript) []voting.Dissent {
	against := t.Record.Decision
	if against == voting.Escalate {
		if w, ok := winner(t); ok {
			against = w
		}
	}
	votes := map[string]voting.Option{}
	for _, b := range t.Record.Votes {
		votes[b.Agent] = b.Vote
	}
	spoke := map[string]bool{}
	for _, a := range t.Arguments {
		if strings.TrimSpace(a.Claim) != "" {
			spoke[a.Agent] = true
		}
	}
	var out []voting.Dissent
	for _, d := range t.Record.DissentingOpinions {
		v, ok := votes[d.Agent]
		if ok && v == against || !spoke[d.Agent] || strings.TrimSpace(d.Concern) == "" {
			continue
		}
		out = append(out, d)
	}
	return out
}

// DissentText splits a dissent's concern as the record words it ("votes approve_with_changes:
// why") into the vote in words ("approve with changes") and why; a concern worded otherwise is
// returned whole with no vote.
func DissentText(concern string) (vote, why string) {
	rest, ok := strings.CutPrefix(concern, "votes ")
	if !ok {
		return "", concern
	}
	v, why, ok := strings.Cut(rest, ": ")
	if !ok || strings.ContainsAny(v, " ") {
		return "", concern
	}
	return strings.ReplaceAll(v, "_", " "), why
}

// winner is the option with the largest share of the weighted vote.
func winner(t *toulmin.Transcript) (voting.Option, bool) {
	var best voting.Option
	share := -1.0
	for _, o := range []voting.Option{voting.RequestChanges, voting.ApproveWithChanges, voting.Approve, voting.Escalate} {
		if s, ok := t.Shares[o]; ok && s > share {
			best, share = o, s
		}
	}
	return best, share >= 0
}

// requiredItem is a required change with its location linked to the line at the head.
func requiredItem(rc, blobURL string) string {
	m := Citation.FindStringSubmatch(rc)
	if m == nil {
		return Inline(rc)
	}
	loc := "`" + code(m[1]+":"+m[2]) + "`"
	if blobURL != "" {
		var parts []string
		for _, p := range strings.Split(m[1], "/") {
			parts = append(parts, url.PathEscape(p))
		}
		loc = fmt.Sprintf("[%s](%s%s#L%s)", loc, blobURL, strings.Join(parts, "/"), m[2])
	}
	return loc + " " + Inline(strings.TrimPrefix(rc, m[0]))
}

// walkthrough is one line per changed file: what changed and how many findings stand there
// (the findings themselves are on their lines, in the review). Files with the worst findings
// come first; past walkthroughRows, the rest are counted.
func walkthrough(t *toulmin.Transcript) string {
	if len(t.Files) == 0 {
		return ""
	}
	type row struct {
		f            toulmin.ChangedFile
		worst, count int
		sev          voting.Severity
	}
	rows := make([]row, len(t.Files))
	index := map[string]int{}
	for i, f := range t.Files {
		rows[i] = row{f: f, worst: -1}
		index[f.Path] = i
	}
	for _, e := range StandingFindings(t) {
		if i, ok := index[e.Path]; ok {
			rows[i].count++
			if e.Severity.Rank() > rows[i].worst {
				rows[i].worst, rows[i].sev = e.Severity.Rank(), e.Severity
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].worst != rows[j].worst {
			return rows[i].worst > rows[j].worst
		}
		return rows[i].f.Added+rows[i].f.Deleted > rows[j].f.Added+rows[j].f.Deleted
	})
	var b strings.Builder
	b.WriteString("| File | Change | Findings |\n|---|---|---|\n")
	for i, r := range rows {
		if i == walkthroughRows {
			added, deleted := 0, 0
			for _, r := range rows[i:] {
				added, deleted = added+r.f.Added, deleted+r.f.Deleted
			}
			fmt.Fprintf(&b, "| %d more file(s) | +%d −%d | |\n", len(rows)-i, added, deleted)
			break
		}
		found := "—"
		if r.count > 0 {
			found = fmt.Sprintf("%d, the worst %s", r.count, r.sev)
		}
		fmt.Fprintf(&b, "| `%s` | %s +%d −%d | %s |\n", cell(code(scan.Clip(r.f.Path, 120))), r.f.Status, r.f.Added, r.f.Deleted, found)
	}
	return b.String()
}
