package change

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Edit replaces the bytes [Start, End) of a text by New: what go/analysis' TextEdits and ESLint's
// fixes are, once their positions are byte offsets.
type Edit struct {
	Start, End int
	New        string
}

// LineFix replaces the lines From..To (1-based, inclusive) of a head file: Old is their text as
// the head has it and New the text that replaces them, each line ending in "\n" (a New of ""
// deletes the lines). It is what a GitHub suggestion commits: whole lines replaced. The zero
// LineFix is no fix; LineFix is comparable, so findings that carry one stay comparable.
type LineFix struct {
	From, To int
	Old, New string
}

// IsZero reports whether x is no fix.
func (x LineFix) IsZero() bool { return x.From == 0 }

// EditLines turns edits of text, whose first line is line firstLine of its file, into the
// replacement of the whole lines they touch. The edits must not overlap; an edit that ends on
// the newline of a line takes that line's end with it. It fails on edits out of the text's
// bounds, on overlapping edits, and on a result that joins the last replaced line to the line
// after it (not expressible as whole lines).
func EditLines(text []byte, firstLine int, edits []Edit) (LineFix, error) {
	if len(edits) == 0 {
		return LineFix{}, errors.New("no edit")
	}
	edits = append([]Edit(nil), edits...)
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	for i, e := range edits {
		if e.Start < 0 || e.End < e.Start || e.End > len(text) {
			return LineFix{}, fmt.Errorf("edit [%d,%d) is outside the text's %d bytes", e.Start, e.End, len(text))
		}
		if i > 0 && e.Start < edits[i-1].End {
			return LineFix{}, fmt.Errorf("edits [%d,%d) and [%d,%d) overlap", edits[i-1].Start, edits[i-1].End, e.Start, e.End)
		}
	}
	first, last := edits[0], edits[len(edits)-1]
	// The whole lines touched: from the start of the first edit's line to the end of the last
	// edit's line, its newline included. An edit ending just after a newline ends on that line.
	begin := bytes.LastIndexByte(text[:first.Start], '\n') + 1
	end := last.End
	if end == last.Start || text[end-1] != '\n' {
		if nl := bytes.IndexByte(text[end:], '\n'); nl >= 0 {
			end += nl + 1
		} else {
			end = len(text)
		}
	}
	old := string(text[begin:end])
	var b strings.Builder
	at := begin
	for _, e := range edits {
		b.WriteString(string(text[at:e.Start]))
		b.WriteString(e.New)
		at = e.End
	}
	b.WriteString(string(text[at:end]))
	repl := b.String()
	if !strings.HasSuffix(old, "\n") { // the file's last line, without a newline
		old += "\n"
		if repl != "" {
			repl += "\n"
		}
	}
	if repl != "" && !strings.HasSuffix(repl, "\n") {
		return LineFix{}, errors.New("the edit joins the last line it replaces to the next one")
	}
	from := firstLine + bytes.Count(text[:begin], []byte("\n"))
	return LineFix{From: from, To: from + strings.Count(old, "\n") - 1, Old: old, New: repl}, nil
}

// Lines is the LineFix replacing the lines from..to, whose text is old, by repl (lines without
// their newlines, as a model gives them).
func Lines(from, to int, old, repl []string) LineFix {
	join := func(ls []string) string {
		if len(ls) == 0 {
			return ""
		}
		return strings.Join(ls, "\n") + "\n"
	}
	return LineFix{From: from, To: to, Old: join(old), New: join(repl)}
}

// CheckFix reports why x cannot be posted as a suggestion on f, or nil when it can: its lines
// must lie inside one hunk's new side, at most MaxFixLines of them (GitHub accepts a suggestion only on lines of the diff,
// and a multi-line one only within one hunk), its Old must be the head's text of those lines
// exactly (the hunk's lines, and the file's content when known), and New must differ from Old.
// Text with carriage returns is refused: a suggestion cannot say which line ending it keeps.
func (f *File) CheckFix(x LineFix) error {
	if x.IsZero() {
		return errors.New("no fix")
	}
	if x.From < 1 || x.To < x.From {
		return fmt.Errorf("lines %d-%d are not a range of lines", x.From, x.To)
	}
	if x.To-x.From+1 > MaxFixLines {
		return fmt.Errorf("lines %d-%d are more than the %d lines a suggestion may replace", x.From, x.To, MaxFixLines)
	}
	if x.New == x.Old {
		return errors.New("the replacement leaves the lines as they are")
	}
	if strings.Contains(x.Old, "\r") || strings.Contains(x.New, "\r") {
		return errors.New("the lines hold carriage returns")
	}
	if !strings.HasSuffix(x.Old, "\n") || x.New != "" && !strings.HasSuffix(x.New, "\n") {
		return errors.New("the text is not whole lines")
	}
	old := strings.Split(strings.TrimSuffix(x.Old, "\n"), "\n")
	if len(old) != x.To-x.From+1 {
		return fmt.Errorf("lines %d-%d are %d line(s) but the original text has %d", x.From, x.To, x.To-x.From+1, len(old))
	}
	var hunk *Hunk
	for i := range f.Hunks {
		h := &f.Hunks[i]
		if h.NewStart <= x.From && x.To < h.NewStart+h.NewLines {
			hunk = h
			break
		}
	}
	if hunk == nil {
		return fmt.Errorf("lines %d-%d of %s are not inside one hunk of the diff", x.From, x.To, f.Path)
	}
	shown := map[int]string{}
	for _, l := range hunk.Lines {
		if l.Kind != Deleted {
			shown[l.New] = l.Text
		}
	}
	var content []string
	if f.HasContent {
		content = strings.SplitAfter(string(f.Content), "\n")
	}
	for i, want := range old {
		n := x.From + i
		got, ok := shown[n]
		if !ok {
			return fmt.Errorf("line %d of %s is not shown by its hunk", n, f.Path)
		}
		if got != want {
			return fmt.Errorf("line %d of %s reads %q in the head, not %q", n, f.Path, clipText(got), clipText(want))
		}
		if content != nil && (n > len(content) || strings.TrimSuffix(content[n-1], "\n") != want) {
			return fmt.Errorf("line %d of %s differs from the head file", n, f.Path)
		}
	}
	return nil
}

// clipText cuts s to at most 60 bytes at a character boundary, for an error message.
func clipText(s string) string {
	if len(s) <= 60 {
		return s
	}
	cut := 60
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// MaxFixLines is how many lines a suggestion replaces at most: an edit spread wider (an import
// added at the top of the file for a call far below) is not one a reader checks at a glance.
const MaxFixLines = 10

// MaxWiden is how many lines Widen adds to a fix at most.
const MaxWiden = 5

// Widen extends x to include line n, copying the lines between unchanged from the hunk that
// shows x's lines: an analyzer's edit a line or two away from its diagnostic (a channel made
// unbuffered where signal.Notify is called) becomes a suggestion on a range that ends or starts
// at the finding's line. It fails when that takes more than MaxWiden lines or leaves the hunk.
func (f *File) Widen(x LineFix, n int) (LineFix, error) {
	if x.IsZero() || n >= x.From && n <= x.To {
		return x, nil
	}
	if n < x.From-MaxWiden || n > x.To+MaxWiden || n < 1 {
		return x, fmt.Errorf("line %d is more than %d lines away from the edit's lines %d-%d", n, MaxWiden, x.From, x.To)
	}
	from, to := min(n, x.From), max(n, x.To)
	var hunk *Hunk
	for i := range f.Hunks {
		if h := &f.Hunks[i]; h.NewStart <= from && to < h.NewStart+h.NewLines {
			hunk = h
		}
	}
	if hunk == nil {
		return x, fmt.Errorf("lines %d-%d of %s are not inside one hunk of the diff", from, to, f.Path)
	}
	text := map[int]string{}
	for _, l := range hunk.Lines {
		if l.Kind != Deleted {
			text[l.New] = l.Text + "\n"
		}
	}
	var before, after strings.Builder
	for i := from; i < x.From; i++ {
		before.WriteString(text[i])
	}
	for i := x.To + 1; i <= to; i++ {
		after.WriteString(text[i])
	}
	return LineFix{From: from, To: to, Old: before.String() + x.Old + after.String(), New: before.String() + x.New + after.String()}, nil
}
