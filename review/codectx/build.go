package codectx

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/rs/zerolog/log"
)

// Cite is a place the evidence points at; definitions holding one are shown first.
type Cite struct {
	Path string
	Line int
}

// Counter counts a text's tokens up to a limit (llm.Tokenizer).
type Counter interface {
	Count(s string) int
	CountUpTo(ctx context.Context, s string, limit int) (int, error)
}

// Shown is what the prompt's diff already shows of the head tree: by path, the new-side lines
// (context and added) of the hunks the diff kept. Build leaves these lines out of the code it
// renders; a nil Shown shows every definition whole.
type Shown map[string]map[int]bool

// Add records that the diff shows hunk h of the file at path (its new-side path).
func (s Shown) Add(path string, h change.Hunk) {
	lines := s[path]
	if lines == nil {
		lines = map[int]bool{}
		s[path] = lines
	}
	for _, l := range h.Lines {
		if l.Kind != change.Deleted && l.New > 0 {
			lines[l.New] = true
		}
	}
}

// Code is the code around a change that fit the budget, with what was left out.
type Code struct {
	// Text is the definitions, each under a header line, every line with its head-tree number;
	// the runs of lines the diff shows are each one marker line saying where they are.
	Text string
	// Tokens counts Text.
	Tokens int
	// Omitted names the definitions left out and the files that could not be read, and why.
	Omitted []string
}

// Limits of the work besides the parsers': how many definitions related to the changed ones
// are weighed, and how long a shown line may be (a longer one is clipped, its number kept).
const (
	maxRelated  = 400
	maxLineText = 400
	// maxNamed bounds the definitions left out that are named one by one; the rest are counted.
	maxNamed = 20
	// maxTokenBytes bounds the bytes of one token of the prompt's tokenizer, generously.
	maxTokenBytes = 64
)

// candidate is a definition to show, and why.
type candidate struct {
	s *Scope
	// why says how it relates to the change ("changed here", "called by X", "calls X").
	why      string
	changed  bool
	evidence bool
	// use is set for a definition only used, not called (a type, a method value): it comes after
	// the calls and callers.
	use bool
	// distance is how far it is from the changed definition it relates to (0 for a changed
	// one; a definition of another file is farther than any of the same file).
	distance int
}

// Build selects the code a reviewer opens around the change c, within budget tokens: the
// definitions the hunks change, then the definitions they call and their callers in the
// changed packages (the changed files and the head-tree files beside them, c.Beside), those the
// evidence cites first, then the closest. The lines the prompt's diff shows (shown) are not
// repeated: each run of them is one marker line naming its lines, and a definition the diff
// shows whole is left out, though what it calls and what calls it are still weighed. What does
// not fit is named in Omitted.
func Build(ctx context.Context, c *change.Change, cites []Cite, shown Shown, budget int, tok Counter) (Code, error) {
	if c == nil {
		return Code{}, nil
	}
	g := readGraph(ctx, c)
	cands := g.candidates(c, cites)
	var b strings.Builder
	left, inDiff := 0, 0
	out := Code{Omitted: g.notes}
	for _, cand := range cands {
		if err := ctx.Err(); err != nil {
			return Code{}, fmt.Errorf("building the code around the change: %w", err)
		}
		room := budget - out.Tokens
		// Every shown line costs at least a token, and no token is longer than maxTokenBytes:
		// a definition too long for the room is not rendered.
		text, lines, whole := render(cand, g.lines[cand.s.Path], shown[cand.s.Path], room*maxTokenBytes, c.File(cand.s.Path) == nil)
		if whole && text == "" {
			inDiff++
			continue
		}
		n := room + 1
		if room > 0 && whole && lines <= room {
			var err error
			if n, err = tok.CountUpTo(ctx, text, room); err != nil {
				return Code{}, fmt.Errorf("sizing %s for the prompt: %w", cand.s.Path, err)
			}
		}
		if n > room {
			left++
			if left <= maxNamed {
				out.Omitted = append(out.Omitted, fmt.Sprintf("%s:%d-%d %s (%s, %d lines): over the budget for code around the change",
					cand.s.Path, cand.s.Start, cand.s.End, cand.s.Label, cand.why, cand.s.size()))
			}
			continue
		}
		out.Tokens += n
		b.WriteString(text)
	}
	if left > maxNamed {
		out.Omitted = append(out.Omitted, fmt.Sprintf("%d more definitions around the change: over the budget for code around the change", left-maxNamed))
	}
	out.Text = b.String()
	log.Debug().Int("candidates", len(cands)).Int("left_out", left).Int("in_diff", inDiff).Int("tokens", out.Tokens).Int("budget", budget).
		Int("files", len(g.files)).Msg("built the code around the change")
	return out, nil
}

// candidates ranks the definitions to show: the changed ones (evidence first, then in the
// change's order), then the related ones (evidence first, then closest).
func (g *graph) candidates(c *change.Change, cites []Cite) []candidate {
	cited := func(s *Scope) bool {
		for _, ct := range cites {
			if ct.Path == s.Path && s.contains(ct.Line) {
				return true
			}
		}
		return false
	}
	seen := map[*Scope]bool{}
	var changed, related []candidate
	for _, s := range g.changedScopes(c) {
		if !seen[s] {
			seen[s] = true
			changed = append(changed, candidate{s: s, why: "changed here", changed: true, evidence: cited(s)})
		}
	}
	for _, ch := range changed {
		for _, r := range g.related(ch.s) {
			if len(related) >= maxRelated {
				g.notes = append(g.notes, fmt.Sprintf("definitions related to the change beyond the first %d were not weighed", maxRelated))
				break
			}
			if !seen[r.s] {
				seen[r.s] = true
				r.evidence = cited(r.s)
				related = append(related, r)
			}
		}
	}
	sort.SliceStable(changed, func(i, j int) bool { return changed[i].evidence && !changed[j].evidence })
	sort.SliceStable(related, func(i, j int) bool {
		a, b := related[i], related[j]
		if a.evidence != b.evidence {
			return a.evidence
		}
		if a.use != b.use {
			return b.use
		}
		return a.distance < b.distance
	})
	return append(changed, related...)
}

// related are the definitions m calls or uses and those that call or use it, in m's package (for
// a changed type or class: the code that uses or constructs it).
func (g *graph) related(m *Scope) []candidate {
	pkg := g.pkgOf(m.Path)
	who := m.Name
	if who == "" {
		who = m.Label // a callback
	}
	var out []candidate
	dist := func(s *Scope) int {
		if s.Path != m.Path {
			return 1<<20 + s.Start
		}
		if s.Start > m.End {
			return s.Start - m.End
		}
		return m.Start - s.End
	}
	add := func(names []string, lookup map[string][]*Scope, why string) {
		use := strings.HasPrefix(why, "use")
		for _, name := range names {
			for _, s := range lookup[name] {
				if s != m {
					out = append(out, candidate{s: s, why: why + who, distance: dist(s), use: use})
				}
			}
		}
	}
	add(m.Calls, pkg.defs, "called by ")
	add(m.Refs, pkg.defs, "used by ")
	add([]string{m.Name}, pkg.callers, "calls ")
	add([]string{m.Name}, pkg.users, "uses ")
	return out
}

// changedScopes are the innermost definitions holding the hunks' added lines (a hunk that only
// removes lines counts its place in the head), in the change's order; a file that could not be
// parsed is named in the notes and its hunks stand alone.
func (g *graph) changedScopes(c *change.Change) []*Scope {
	var out []*Scope
	for _, f := range c.Files {
		p, ok := g.files[f.Path]
		if !ok {
			continue
		}
		if p.err != "" {
			g.notes = append(g.notes, fmt.Sprintf("%s: the code around its hunks is not shown (%s)", f.Path, p.err))
			continue
		}
		for _, line := range changedLines(f) {
			if s := innermost(p.scopes, line); s != nil && (len(out) == 0 || out[len(out)-1] != s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// changedLines are the head lines a file's hunks change: the added lines, and for a hunk that
// only removes, the head line after the removal.
func changedLines(f *change.File) []int {
	var out []int
	for _, h := range f.Hunks {
		added := false
		for i, l := range h.Lines {
			switch {
			case l.Kind == change.Added:
				out = append(out, l.New)
				added = true
			case l.Kind == change.Deleted && !added && i+1 < len(h.Lines) && h.Lines[i+1].Kind == change.Context:
				out = append(out, h.Lines[i+1].New)
			}
		}
	}
	return out
}

// render writes a definition under its header, each line with its head-tree number, and each run
// of the lines the diff shows (inDiff) as one marker line saying where they are (a run shorter
// than its marker is written as it is); a definition the diff shows whole is "" with whole true.
// rows counts the lines written under the header; whole is false when it stopped past limit
// bytes. A definition of a file the change does not touch (beside) has its secrets masked first:
// the change's own lines are in the diff as they are, but the model is not sent secrets the
// change does not show.
func render(c candidate, lines []string, inDiff map[int]bool, limit int, beside bool) (text string, rows int, whole bool) {
	header := fmt.Sprintf("--- %s:%d-%d %s: %s\n", c.s.Path, c.s.Start, c.s.End, c.s.Label, c.why)
	end := min(c.s.End, len(lines))
	if c.s.Start > end {
		return header, 0, true
	}
	if shownWhole(inDiff, c.s.Start, end) {
		return "", 0, true
	}
	var out []row
	size := 0
	for n := c.s.Start; n <= end; n++ {
		r := row{n: n}
		if inDiff[n] {
			r = foldRun(lines, inDiff, n, end)
		}
		if r.last == 0 {
			r.text = clipLine(lines[n-1])
		}
		if size += len(r.text) + 8; size > limit {
			return "", 0, false
		}
		out = append(out, r)
		n = max(n, r.last)
	}
	if beside {
		hideRowSecrets(out)
	}
	var b strings.Builder
	b.WriteString(header)
	for _, r := range out {
		if r.last > 0 {
			b.WriteString(r.text)
		} else {
			fmt.Fprintf(&b, "%5d| %s\n", r.n, r.text)
		}
	}
	return b.String(), len(out), true
}

// row is one line written under a definition's header: head line n, or (last > 0) the marker of
// the run of lines n to last that the diff shows.
type row struct {
	n, last int
	text    string
}

// foldRun is the marker of the run of lines the diff shows from line first (at most to end), or
// the plain row of line first when its run is shorter than its marker.
func foldRun(lines []string, inDiff map[int]bool, first, end int) row {
	last, size := first, 0
	for ; last <= end && inDiff[last]; last++ {
		size += len(clipLine(lines[last-1])) + 8
	}
	last--
	marker := fmt.Sprintf("    ⋮ lines %d-%d: in the diff above\n", first, last)
	if last == first {
		marker = fmt.Sprintf("    ⋮ line %d: in the diff above\n", first)
	}
	if size <= len(marker) {
		return row{n: first}
	}
	return row{n: first, last: last, text: marker}
}

// shownWhole reports whether the diff shows every line from first to last.
func shownWhole(inDiff map[int]bool, first, last int) bool {
	for n := first; n <= last; n++ {
		if !inDiff[n] {
			return false
		}
	}
	return true
}

// hideRowSecrets masks the secrets in the rows' lines (not in their markers), as hideSecrets
// does, each run of lines between markers read as one text.
func hideRowSecrets(rows []row) {
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].last == 0 {
			j++
		}
		if j > i {
			texts := make([]string, j-i)
			for k := range texts {
				texts[k] = rows[i+k].text
			}
			for k, t := range hideSecrets(texts) {
				rows[i+k].text = t
			}
		}
		i = j + 1
	}
}

// hideSecrets masks the secrets in lines, keeping one line per line: a secret over several lines
// (a private key) has each of its lines masked.
func hideSecrets(lines []string) []string {
	text := strings.Join(lines, "\n")
	red := redact.Redact(text)
	if red == text {
		return lines
	}
	if out := strings.Split(red, "\n"); len(out) == len(lines) {
		return out
	}
	out := make([]string, len(lines))
	inKey := false
	for i, l := range lines {
		switch {
		case strings.Contains(l, "-----BEGIN") && strings.Contains(l, "PRIVATE KEY"):
			inKey = true
			out[i] = l
		case strings.Contains(l, "-----END"):
			inKey = false
			out[i] = l
		case inKey:
			out[i] = "[a line of a private key, hidden]"
		default:
			out[i] = redact.Redact(l)
		}
	}
	return out
}

// clipLine cuts a line longer than maxLineText bytes (on a rune boundary), saying so.
func clipLine(s string) string {
	if len(s) <= maxLineText {
		return s
	}
	cut := maxLineText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s … (%d more bytes on this line)", s[:cut], len(s)-cut)
}
