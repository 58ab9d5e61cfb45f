package agents

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/codectx"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/toulmin"
)

// DefaultContextTokens is the budget for the change in a prompt.
const DefaultContextTokens = 6000

// ChangeContext is the part of a change that fits a prompt, with what was left out.
type ChangeContext struct {
	// Text is the selected hunks as a unified diff, file by file.
	Text string
	// Tokens counts Text and Code.
	Tokens int
	// Code is the code a reviewer opens around the change, from the head tree (codectx.Build):
	// the definitions the hunks change, then what they call and what calls them, each line with
	// its head-tree number, without the lines Text shows (a marker line says where they are; a
	// definition Text shows whole is not repeated). It is built once per debate from what the
	// diff left of the budget, and is the same bytes in every call: the prompt places it in the
	// part every call of the debate shares ("" when there is none).
	Code string
	// Omitted lists what was left out and why, one entry per file or group.
	Omitted []string
	// InDiff holds the paths of the files Text shows hunks of (their header gives their stats).
	InDiff map[string]bool
}

type fileRank struct {
	f        *change.File
	score    int
	evidence map[int]bool
}

// BuildContext selects the parts of the change that fit in budget tokens the way a careful
// reviewer reads a large change: files with evidence first (the most serious first), then source
// before tests before everything else; hunks are kept whole; generated, vendored and lock files
// and deletion-only hunks are the first to go; whatever does not fit is listed by name with its
// stats so that every agent knows what it did not see. A hunk is counted only up to what is left
// of the budget, so a huge hunk (one 1 MB line) costs the budget's worth of work; counting stops
// with the context's error when ctx ends. What the hunks leave of the budget goes to the code
// around the change (codectx.Build): the functions the hunks change, from the head tree, then
// what they call and what calls them, those the evidence cites first, none repeating the lines
// of the hunks kept (a hunk left out for the budget is not shown, so its lines are); what does
// not fit joins Omitted.
func BuildContext(ctx context.Context, c *change.Change, ev []toulmin.Evidence, budget int, tok *llm.Tokenizer) (ChangeContext, error) {
	if budget <= 0 {
		budget = DefaultContextTokens
	}
	ranks, generated := rankFiles(c, ev)
	var b strings.Builder
	used := 0
	var omitted, deletionOnly []string
	shown := codectx.Shown{}
	inDiff := map[string]bool{}
	for _, r := range ranks {
		f := r.f
		header := fmt.Sprintf("--- %s (%s, +%d -%d)\n", quoteControl(f.Path), f.Status, f.Added, f.Deleted)
		hunks := r.orderedHunks()
		kept, text, left, err := fitHunks(ctx, tok, f, hunks, header, budget, &used)
		if err != nil {
			return ChangeContext{}, err
		}
		for _, h := range hunks {
			if hunkDeletionOnly(h) && f.Status != change.StatusDeleted {
				deletionOnly = append(deletionOnly, fmt.Sprintf("%s @@ -%d,%d (%d lines removed)", f.Path, h.OldStart, h.OldLines, h.OldLines))
			}
		}
		if len(kept) == 0 {
			if len(hunks) > 0 {
				omitted = append(omitted, fmt.Sprintf("%s (+%d -%d, over budget)", f.Path, f.Added, f.Deleted))
			}
			continue
		}
		b.WriteString(header)
		b.WriteString(text)
		inDiff[f.Path] = true
		for _, h := range kept {
			shown.Add(f.Path, h)
		}
		if over := left - countDeletionOnly(hunks, f); over > 0 {
			omitted = append(omitted, fmt.Sprintf("%s: %d of %d hunks (over budget)", f.Path, over, len(hunks)))
		}
	}
	omitted = append(omitted, deletionOnly...)
	omitted = append(omitted, generated...)
	omitted = append(omitted, c.Notes...)
	code, err := codectx.Build(ctx, c, evidenceCites(ev), shown, budget-used, tok)
	if err != nil {
		return ChangeContext{}, err
	}
	omitted = append(omitted, code.Omitted...)
	return ChangeContext{Text: b.String(), Tokens: used + code.Tokens, Code: code.Text, Omitted: omitted, InDiff: inDiff}, nil
}

// evidenceCites are the places the evidence points at, for ranking the code around the change.
func evidenceCites(ev []toulmin.Evidence) []codectx.Cite {
	out := make([]codectx.Cite, 0, len(ev))
	for _, e := range ev {
		if e.Path != "" && e.Line > 0 {
			out = append(out, codectx.Cite{Path: e.Path, Line: e.Line})
		}
	}
	return out
}

// rankFiles orders the change's files as BuildContext reads them: evidence first (the most
// serious first), then source before tests before everything else, then by path. Generated,
// vendored and lock files are left out, listed with their stats.
func rankFiles(c *change.Change, ev []toulmin.Evidence) (ranks []*fileRank, generated []string) {
	for _, f := range c.Files {
		if f.IsGenerated() {
			generated = append(generated, fmt.Sprintf("%s (+%d -%d, generated, vendored or lock file)", f.Path, f.Added, f.Deleted))
			continue
		}
		r := &fileRank{f: f, evidence: map[int]bool{}}
		for _, e := range ev {
			if e.Path == f.Path {
				r.score += 10 * (1 + e.Severity.Rank())
				r.evidence[e.Line] = true
			}
		}
		switch {
		case f.Language() != "" && !f.IsTest():
			r.score += 3
		case f.IsTest():
			r.score += 2
		}
		ranks = append(ranks, r)
	}
	sort.SliceStable(ranks, func(i, j int) bool {
		if ranks[i].score != ranks[j].score {
			return ranks[i].score > ranks[j].score
		}
		return ranks[i].f.Path < ranks[j].f.Path
	})
	return ranks, generated
}

// fitHunks keeps the hunks of f, whole, that fit what is left of the budget (*used is what is
// spent, the file's header counted with its first hunk kept), returns them with their text, and
// counts those left out; deletion-only hunks of a file still there are left out.
func fitHunks(ctx context.Context, tok *llm.Tokenizer, f *change.File, hunks []change.Hunk, header string, budget int, used *int) (kept []change.Hunk, text string, left int, err error) {
	var b strings.Builder
	for _, h := range hunks {
		if hunkDeletionOnly(h) && f.Status != change.StatusDeleted {
			left++
			continue
		}
		ht := HunkText(h)
		cost := 0
		if len(kept) == 0 {
			cost = tok.Count(header)
		}
		room := budget - *used - cost
		if room < 0 {
			left++
			continue
		}
		n, err := tok.CountUpTo(ctx, ht, room)
		if err != nil {
			return nil, "", 0, fmt.Errorf("failed to size %s for the prompt: %w", f.Path, err)
		}
		cost += n
		if *used+cost > budget {
			left++
			continue
		}
		*used += cost
		kept = append(kept, h)
		b.WriteString(ht)
	}
	return kept, b.String(), left, nil
}

// orderedHunks puts hunks with evidence first, keeping file order otherwise, so that a file cut
// by the budget keeps its most relevant hunks.
func (r *fileRank) orderedHunks() []change.Hunk {
	hs := append([]change.Hunk(nil), r.f.Hunks...)
	has := func(h change.Hunk) bool {
		for _, l := range h.Lines {
			if l.Kind != change.Deleted && r.evidence[l.New] {
				return true
			}
		}
		return false
	}
	sort.SliceStable(hs, func(i, j int) bool { return has(hs[i]) && !has(hs[j]) })
	return hs
}

func countDeletionOnly(hs []change.Hunk, f *change.File) int {
	if f.Status == change.StatusDeleted {
		return 0
	}
	n := 0
	for _, h := range hs {
		if hunkDeletionOnly(h) {
			n++
		}
	}
	return n
}

func hunkDeletionOnly(h change.Hunk) bool {
	for _, l := range h.Lines {
		if l.Kind == change.Added {
			return false
		}
	}
	return true
}

// hunkText renders a hunk with new-side line numbers, so that agents can cite path:line.
func HunkText(h change.Hunk) string {
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@ %s\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines, h.Section)
	for _, l := range h.Lines {
		switch l.Kind {
		case change.Deleted:
			fmt.Fprintf(&b, "     -%s\n", l.Text)
		default:
			fmt.Fprintf(&b, "%4d %c%s\n", l.New, l.Kind, l.Text)
		}
	}
	return b.String()
}
