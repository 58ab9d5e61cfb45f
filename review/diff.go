package review

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/debatebot/debatebot/review/change"
)

// DefaultMaxDiffBytes bounds the size of a diff read from a file or stdin.
const DefaultMaxDiffBytes = 20 << 20

// InputError is bad input: what was wrong and where. The command prints it on one line.
type InputError struct {
	Source  string
	Problem string
}

func (e *InputError) Error() string { return e.Source + ": " + e.Problem }

// ReadDiff reads a unified diff of at most max bytes from r, naming it source in errors.
func ReadDiff(r io.Reader, source string, max int64) (*change.Change, error) {
	data, err := readDiffData(r, source, max)
	if err != nil {
		return nil, err
	}
	return ParseDiff(data, source)
}

func readDiffData(r io.Reader, source string, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxDiffBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("failed to read diff %s: %w", source, err)
	}
	if int64(len(data)) > max {
		return nil, &InputError{source, fmt.Sprintf("larger than the %s a diff may have (a huge change is better debated in parts)", humanBytes(max))}
	}
	return data, nil
}

// ParseDiff parses a unified diff (git's or diff -u's) into a Change.
func ParseDiff(data []byte, source string) (*change.Change, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &InputError{source, "empty diff: there is no change to debate"}
	}
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return nil, &InputError{source, "binary data, not a unified diff"}
	}
	files, _, err := gitdiff.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, &InputError{source, "not a valid unified diff: " + err.Error()}
	}
	if len(files) == 0 {
		return nil, &InputError{source, "no file changes found: not a unified diff (expected '--- a/FILE', '+++ b/FILE' and '@@' hunks)"}
	}
	c := &change.Change{Source: source}
	seen := map[string]bool{}
	for _, gf := range files {
		f, note := convert(gf)
		if note != "" {
			c.Notes = append(c.Notes, note)
		}
		if f == nil {
			continue
		}
		if problem := badHunks(f); problem != "" {
			return nil, &InputError{source, problem}
		}
		// A file changed twice would hide the second change behind the first wherever the
		// change is looked up by path (citations, evidence, the prompt). A deletion and an
		// addition of one path is git's type change (a symlink become a file) and is kept.
		if f.Status != change.StatusDeleted {
			if seen[f.Path] {
				return nil, &InputError{source, fmt.Sprintf("the diff changes %q twice: not a diff git or diff -u would write", f.Path)}
			}
			seen[f.Path] = true
		}
		c.Files = append(c.Files, f)
	}
	if len(c.Files) == 0 {
		return nil, &InputError{source, "the diff changes no text file: " + strings.Join(c.Notes, "; ")}
	}
	change.SortFiles(c.Files)
	return c, nil
}

func convert(gf *gitdiff.File) (*change.File, string) {
	f := &change.File{Path: gf.NewName, OldPath: gf.OldName, Status: change.StatusModified}
	switch {
	case gf.IsNew:
		f.Status, f.OldPath = change.StatusAdded, ""
	case gf.IsDelete:
		f.Status, f.Path = change.StatusDeleted, gf.OldName
	case gf.IsRename || (gf.OldName != "" && gf.NewName != "" && gf.OldName != gf.NewName):
		f.Status = change.StatusRenamed
	}
	if f.Path == "" {
		f.Path = gf.OldName
	}
	if gf.IsBinary {
		return nil, fmt.Sprintf("%s: binary file left out", f.Path)
	}
	for _, tf := range gf.TextFragments {
		h := change.Hunk{
			OldStart: int(tf.OldPosition), OldLines: int(tf.OldLines),
			NewStart: int(tf.NewPosition), NewLines: int(tf.NewLines),
			Section: strings.TrimSpace(tf.Comment),
		}
		old, nw := h.OldStart, h.NewStart
		for _, l := range tf.Lines {
			text := strings.TrimSuffix(strings.TrimSuffix(l.Line, "\n"), "\r")
			switch l.Op {
			case gitdiff.OpAdd:
				h.Lines = append(h.Lines, change.Line{Kind: change.Added, New: nw, Text: text})
				nw++
				f.Added++
			case gitdiff.OpDelete:
				h.Lines = append(h.Lines, change.Line{Kind: change.Deleted, Old: old, Text: text})
				old++
				f.Deleted++
			default:
				h.Lines = append(h.Lines, change.Line{Kind: change.Context, Old: old, New: nw, Text: text})
				old++
				nw++
			}
		}
		f.Hunks = append(f.Hunks, h)
	}
	// A new file's one hunk is the whole file: analyzers that need whole files can use it.
	if f.Status == change.StatusAdded && len(f.Hunks) == 1 && f.Hunks[0].NewStart <= 1 {
		var b strings.Builder
		for _, l := range f.Hunks[0].Lines {
			b.WriteString(l.Text)
			b.WriteByte('\n')
		}
		f.Content, f.HasContent = []byte(b.String()), true
	}
	return f, ""
}

// badHunks reports hunk headers no diff tool writes: a side that starts at line 0 yet has lines.
// Their lines would be numbered 0, which no citation can name.
func badHunks(f *change.File) string {
	for _, h := range f.Hunks {
		if (h.OldStart == 0 && h.OldLines > 0) || (h.NewStart == 0 && h.NewLines > 0) {
			return fmt.Sprintf("%s: hunk @@ -%d,%d +%d,%d @@ starts at line 0 but has lines", f.Path, h.OldStart, h.OldLines, h.NewStart, h.NewLines)
		}
	}
	return ""
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
