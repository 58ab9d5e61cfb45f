package review

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/compare"
	"github.com/debatebot/debatebot/review/evidence/external"
)

// MaxContentBytes bounds the head content FillContents reads over all the files of one change,
// as maxDirTreeBytes bounds DirTrees': a pull request of 3,000 files of 1 MiB each must not hold
// 3 GiB. The files past it are analysed from their diff.
const MaxContentBytes = 32 << 20

// FillContents reads the head content of the changed files the analyzers need, whose content the
// diff does not hold, once each: Go, Python and JavaScript files (the AST analyzers and the
// base/head comparison read whole files) and the files of the external tools' languages (shell,
// C/C++, TypeScript). A file that cannot be read, or is larger than DefaultMaxFileBytes, is
// analysed from its diff, with a note. Once the content read reaches MaxContentBytes, no more is
// read: the file that would pass it and every file after it are analysed from their diff, with
// one note that names them.
func FillContents(ctx context.Context, gh FileReader, pr PullRequest, c *change.Change) {
	tools := external.DefaultTools()
	var total int
	var past []string
	for _, f := range c.Files {
		if f.HasContent || f.Status == change.StatusDeleted || (!compare.NeedsContent(f.Language()) && !external.Handled(tools, f.Path)) || f.IsGenerated() {
			continue
		}
		if past != nil {
			past = append(past, f.Path)
			continue
		}
		content, ok := readHead(ctx, gh, pr, c, f.Path)
		switch {
		case !ok:
			continue
		case total+len(content) > MaxContentBytes:
			past = append(past, f.Path)
			continue
		}
		total += len(content)
		f.Content, f.HasContent = content, true
	}
	if past != nil {
		c.Notes = append(c.Notes, pastBudgetNote(past))
	}
}

// readHead reads one file's head content for FillContents; a file that cannot be read or is
// larger than DefaultMaxFileBytes is not, with a note.
func readHead(ctx context.Context, gh FileReader, pr PullRequest, c *change.Change, path string) ([]byte, bool) {
	content, err := gh.File(ctx, pr, path, c.HeadSHA)
	var undecodable *DecodeError
	switch {
	case errors.As(err, &undecodable):
		c.Notes = append(c.Notes, fmt.Sprintf("%s: head content undecodable, analysed from its diff only", path))
		return nil, false
	case err != nil:
		c.Notes = append(c.Notes, fmt.Sprintf("%s: head content unavailable, analysed from its diff only", path))
		return nil, false
	case len(content) > DefaultMaxFileBytes:
		// As a git range's files (git.go): a file past the bound costs only itself.
		c.Notes = append(c.Notes, fmt.Sprintf("%s: larger than %d KiB, analysed from its diff only", path, DefaultMaxFileBytes>>10))
		return nil, false
	}
	return content, true
}

// pastBudgetNote says which files were analysed from their diff because the content read had
// reached MaxContentBytes; it names the first ten.
func pastBudgetNote(paths []string) string {
	const named = 10
	list := strings.Join(paths[:min(len(paths), named)], ", ")
	if len(paths) > named {
		list += fmt.Sprintf(" and %d more", len(paths)-named)
	}
	return fmt.Sprintf("%d files analysed from their diff only, the head content read having reached %d MiB: %s", len(paths), MaxContentBytes>>20, list)
}
