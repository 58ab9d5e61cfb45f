package render

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
)

// SummaryOptions are what the summary comment links to.
type SummaryOptions struct {
	// BlobURL is the web address of the head's files, "https://github.com/o/r/blob/<sha>/",
	// for links to the lines of required changes; empty renders plain locations.
	BlobURL string
	// Link is the debate's dashboard page (DEBATEBOT_PUBLIC_URL/debates/{id}), where sections
	// cut for length are whole.
	Link string
	// Max is the longest the comment may be (GitHub's 65,536 characters when 0).
	Max int
}

// walkthroughRows is how many files the walkthrough shows before the rest fold into a block.
const walkthroughRows = 10

// SummaryComment is the transcript comment of a decided debate: first what a reviewer needs in
// ten seconds (the decision and its consensus, the required changes as a checklist linked to
// their lines, each dissent in one line, tokens and cost), then a walkthrough of the changed
// files, then the whole transcript folded into <details> blocks, one per section and one per
// phase of the arguments. When it does not fit, whole blocks are cut, the last first, and named
// with a link to the dashboard page of the debate.
func SummaryComment(t *toulmin.Transcript, opts SummaryOptions) (string, error) {
	md, err := Markdown(t, Options{})
	if err != nil {
		return "", err
	}
	max := opts.Max
	if max == 0 {
		max = MaxCommentChars
	}
	top := summaryTop(t, opts)
	blocks := transcriptBlocks(md)
	var cut []string
	for {
		var b strings.Builder
		b.WriteString(top)
		for _, bl := range blocks {
			fmt.Fprintf(&b, "\n<details><summary>%s</summary>\n\n%s\n\n</details>\n", bl.title, strings.TrimSpace(bl.body))
		}
		if len(cut) > 0 {
			names := make([]string, len(cut))
			for i, c := range cut {
				names[len(cut)-1-i] = c // in the transcript's order
			}
			where := "run `debatebot debate` on the change for the whole transcript"
			if opts.Link != "" {
				where = "the whole debate is at " + opts.Link
			}
			fmt.Fprintf(&b, "\n> Cut to fit GitHub's comment limit: %s; %s.\n", strings.Join(names, ", "), where)
		}
		if b.Len() <= max || len(blocks) == 0 {
			return b.String(), nil
		}
		cut = append(cut, blocks[len(blocks)-1].title)
		blocks = blocks[:len(blocks)-1]
	}
}

// summaryTop is the part above the first <details>: the ten-second summary and the walkthrough.
func summaryTop(t *toulmin.Transcript, opts SummaryOptions) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	r := t.Record
	w("%s\n", TranscriptMarker)
	if syn := r.Synthesis; syn != nil {
		w("## debatebot recommendation (confidence %s)\n\n%s\n\n", syn.Confidence, Inline(scan.Clip(syn.Recommendation, 600)))
	} else {
		w("## debatebot: %s\n\n", DecisionTitle(r.Decision))
	}
	w("**Consensus %.2f** (%s) · convergence %.2f · protocol %s · %s", r.ConsensusScore, r.ConsensusLevel, t.Convergence, t.Protocol, Inline(scan.Clip(t.Title, 120)))
	if opts.Link != "" {
		w(" · [the debate](%s)", opts.Link)
	}
	w("\n\n")
	if t.Question != "" {
		w("**Question:** %s\n\n", Inline(scan.Clip(t.Question, 300)))
	}
	if t.Offline && t.OfflineReason != "" {
		w("> **Offline debate.** %s\n\n", t.OfflineReason)
	}
	if h := r.HumanDecision; h != "" && h != "pending" {
		w("**Human decision (final): %s.**\n\n", strings.ReplaceAll(h, "_", " "))
	}
	if len(t.Escalations) > 0 {
		seen := map[string]bool{}
		var reasons []string
		for _, e := range t.Escalations {
			if !seen[string(e.Reason)] {
				seen[string(e.Reason)] = true
				reasons = append(reasons, string(e.Reason))
			}
		}
		w("**Escalated to a human:** %s.\n\n", strings.Join(reasons, ", "))
	}
	if len(r.RequiredChanges) > 0 {
		w("**Required changes**\n\n")
		for _, rc := range r.RequiredChanges {
			w("- [ ] %s\n", requiredItem(rc, opts.BlobURL))
		}
		w("\n")
	}
	if len(r.DissentingOpinions) > 0 {
		w("**Dissent**\n\n")
		for _, d := range r.DissentingOpinions {
			w("- %s: %s\n", title(t, d.Agent), Inline(scan.Clip(d.Concern, 160)))
		}
		w("\n")
	}
	tk := r.Tokens
	w("**Tokens** %d prompt (%d cached) + %d completion · $%.4f", tk.Prompt, tk.CachedPrompt, tk.Completion, tk.CostUSD)
	if t.Offline && t.OfflineReason != "" {
		w(" · offline agents: %s", t.OfflineReason)
	} else if t.Offline {
		w(" · offline agents (no model configured)")
	}
	w("\n")
	walkthrough(&b, t)
	return b.String()
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

// walkthrough is one line per changed file: what changed and what was found there. Files with
// findings come first; past walkthroughRows, the rest fold into a block of their own.
func walkthrough(b *strings.Builder, t *toulmin.Transcript) {
	if len(t.Files) == 0 {
		return
	}
	type row struct {
		f        toulmin.ChangedFile
		worst    int
		findings []toulmin.Evidence
	}
	rows := make([]row, len(t.Files))
	index := map[string]int{}
	for i, f := range t.Files {
		rows[i] = row{f: f, worst: -1}
		index[f.Path] = i
	}
	for _, e := range StandingFindings(t) {
		if i, ok := index[e.Path]; ok {
			rows[i].findings = append(rows[i].findings, e)
			rows[i].worst = max(rows[i].worst, e.Severity.Rank())
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].worst != rows[j].worst {
			return rows[i].worst > rows[j].worst
		}
		return rows[i].f.Added+rows[i].f.Deleted > rows[j].f.Added+rows[j].f.Deleted
	})
	line := func(r row) string {
		found := "—"
		if len(r.findings) > 0 {
			var parts []string
			for i, e := range r.findings {
				if i == 3 {
					parts = append(parts, fmt.Sprintf("+%d more", len(r.findings)-3))
					break
				}
				at := e.Rule
				if e.Line > 0 {
					at += " L" + strconv.Itoa(e.Line)
				}
				parts = append(parts, string(e.Severity)+" "+at)
			}
			found = strings.Join(parts, ", ")
		}
		return fmt.Sprintf("| `%s` | %s +%d −%d | %s |\n", cell(code(r.f.Path)), r.f.Status, r.f.Added, r.f.Deleted, found)
	}
	fmt.Fprintf(b, "\n**Walkthrough** (%d file(s))\n\n| File | Change | Findings |\n|---|---|---|\n", len(rows))
	shown := min(len(rows), walkthroughRows)
	if len(rows) > walkthroughRows {
		shown = walkthroughRows - 1
	}
	for _, r := range rows[:shown] {
		b.WriteString(line(r))
	}
	if rest := rows[shown:]; len(rest) > 0 {
		added, deleted, withFindings := 0, 0, 0
		for _, r := range rest {
			added, deleted = added+r.f.Added, deleted+r.f.Deleted
			if len(r.findings) > 0 {
				withFindings++
			}
		}
		fmt.Fprintf(b, "| %d more file(s) | +%d −%d | %d with findings, listed below |\n", len(rest), added, deleted, withFindings)
		fmt.Fprintf(b, "\n<details><summary>Walkthrough: the other %d file(s)</summary>\n\n| File | Change | Findings |\n|---|---|---|\n", len(rest))
		for _, r := range rest {
			b.WriteString(line(r))
		}
		b.WriteString("\n</details>\n")
	}
}

// block is one folded section of the transcript.
type block struct {
	title, body string
	lines       []string
}

// transcriptSections are the level-two headings Markdown writes after its header; the arguments
// fold per phase (level three). Only these lines split the transcript: everything Markdown
// writes from the change's text below its header is prefixed (a list item, a table cell, a bold
// label) or fenced, so that no untrusted line can pass for a heading.
var transcriptSections = []string{"Synthesis", "Participants", "Moderator", "Timeline", "Evidence", "Arguments", "Position history", "Scoring Matrix",
	"Trade-offs (no consensus)", "Decision Rationale", "Action Items", "Decision Record"}

// transcriptBlocks splits Markdown's transcript into its sections; the header above the first
// (title, decision line, question) is what the summary restates.
func transcriptBlocks(md string) []block {
	known := map[string]bool{}
	for _, s := range transcriptSections {
		known[s] = true
	}
	var out []block
	cur := -1
	inArguments := false
	inFence := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
		}
		if !inFence {
			if h, ok := strings.CutPrefix(l, "## "); ok && (known[h] || strings.HasPrefix(h, "Carried forward from ")) {
				inArguments = h == "Arguments"
				if inArguments {
					cur = -1 // the arguments fold per phase
					continue
				}
				out = append(out, block{title: h})
				cur = len(out) - 1
				continue
			}
			if h, ok := strings.CutPrefix(l, "### "); ok && inArguments {
				out = append(out, block{title: "Arguments: " + h})
				cur = len(out) - 1
				continue
			}
		}
		if cur >= 0 {
			out[cur].lines = append(out[cur].lines, l)
		}
	}
	for i := range out {
		out[i].body = strings.Join(out[i].lines, "\n")
		// The title names the section in HTML: no markup from it.
		out[i].title = strings.NewReplacer("<", "&lt;", ">", "&gt;", "`", "").Replace(out[i].title)
	}
	return out
}
