package changetest

import (
	"strings"
	"testing"
	"unicode"

	"github.com/debatebot/debatebot/review/change"
)

// Versions builds a change from the base and head contents of files, with one hunk per file
// that shows the whole file (a line diff by longest common subsequence), as a diff with
// unlimited context would. A file absent on a side has "" there.
func Versions(t testing.TB, files ...[3]string) *change.Change {
	t.Helper()
	c := &change.Change{Source: "test"}
	for _, f := range files {
		p, base, head := f[0], f[1], f[2]
		file := &change.File{Path: p, OldPath: p, Status: change.StatusModified}
		switch {
		case base == "":
			file.Status, file.OldPath = change.StatusAdded, ""
		case head == "":
			file.Status = change.StatusDeleted
		}
		a, b := splitLines(base), splitLines(head)
		// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
		lcs := make([][]int, len(a)+1)
		for i := range lcs {
			lcs[i] = make([]int, len(b)+1)
		}
		for i := len(a) - 1; i >= 0; i-- {
			for j := len(b) - 1; j >= 0; j-- {
				if a[i] == b[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		h := change.Hunk{OldStart: 1, OldLines: len(a), NewStart: 1, NewLines: len(b)}
		if len(a) == 0 {
			h.OldStart = 0
		}
		if len(b) == 0 {
			h.NewStart = 0
		}
		i, j := 0, 0
		for i < len(a) || j < len(b) {
			switch {
			case i < len(a) && j < len(b) && a[i] == b[j]:
				h.Lines = append(h.Lines, change.Line{Kind: change.Context, Old: i + 1, New: j + 1, Text: a[i]})
				i, j = i+1, j+1
			case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
				// deletions before additions, as git writes them
				h.Lines = append(h.Lines, change.Line{Kind: change.Deleted, Old: i + 1, Text: a[i]})
				file.Deleted++
				i++
			default:
				h.Lines = append(h.Lines, change.Line{Kind: change.Added, New: j + 1, Text: b[j]})
				file.Added++
				j++
			}
		}
		file.Hunks = []change.Hunk{h}
		if head != "" {
			file.Content, file.HasContent = []byte(head), true
		}
		c.Files = append(c.Files, file)
	}
	return c
}

// splitLines splits a file's text into its lines; the empty text has none.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// HunksOnly turns a change made by Versions into what a bare diff gives: hunks with ctx lines
// of context, each with the section git writes (the last line above it that starts with a
// letter, _ or $), and no file contents.
func HunksOnly(c *change.Change, ctx int) *change.Change {
	for _, f := range c.Files {
		if f.Status != change.StatusModified {
			continue
		}
		f.Content, f.HasContent = nil, false
		f.Hunks = NarrowHunks(f.Hunks[0].Lines, ctx)
		f.Reindex()
	}
	return c
}

// NarrowHunks splits one whole-file hunk into hunks of ctx lines of context, as git does.
func NarrowHunks(all []change.Line, ctx int) []change.Hunk {
	keep := make([]bool, len(all))
	for i, l := range all {
		if l.Kind == change.Context {
			continue
		}
		for k := max(0, i-ctx); k <= min(len(all)-1, i+ctx); k++ {
			keep[k] = true
		}
	}
	var out []change.Hunk
	var baseSoFar []string
	for i := 0; i < len(all); {
		if !keep[i] {
			if all[i].Kind != change.Added {
				baseSoFar = append(baseSoFar, all[i].Text)
			}
			i++
			continue
		}
		h := change.Hunk{Section: gitSection(baseSoFar)}
		for ; i < len(all) && keep[i]; i++ {
			l := all[i]
			h.Lines = append(h.Lines, l)
			if l.Kind != change.Added {
				baseSoFar = append(baseSoFar, l.Text)
			}
		}
		for _, l := range h.Lines {
			if l.Kind != change.Added && h.OldStart == 0 {
				h.OldStart = l.Old
			}
			if l.Kind != change.Deleted && h.NewStart == 0 {
				h.NewStart = l.New
			}
			if l.Kind != change.Added {
				h.OldLines++
			}
			if l.Kind != change.Deleted {
				h.NewLines++
			}
		}
		out = append(out, h)
	}
	return out
}

// gitSection is the section git writes above a hunk: the last line before it that starts with
// a letter, _ or $.
func gitSection(before []string) string {
	for i := len(before) - 1; i >= 0; i-- {
		if l := before[i]; l != "" && (unicode.IsLetter(rune(l[0])) || l[0] == '_' || l[0] == '$') {
			return l
		}
	}
	return ""
}
