package review

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/debatebot/debatebot/review/change"
)

// gitTrees returns a Change.Trees that writes the commits base and head of the repository at dir
// into a temporary directory (WriteGitTrees, within lim; what it left out goes to c.TreesNotes),
// removed by cleanup.
func gitTrees(c *change.Change, dir, base, head string, lim TreeLimits) func(ctx context.Context) (string, string, func(), error) {
	changed := ChangedPaths(c)
	return func(ctx context.Context) (string, string, func(), error) {
		w, err := WriteGitTrees(ctx, GitTrees{Repo: dir, Base: base, Head: head, Changed: changed, Limits: lim})
		if err != nil {
			return "", "", nil, fmt.Errorf("failed to write the trees: %w", err)
		}
		c.TreesNotes = append(c.TreesNotes, w.Notes...)
		return w.Base, w.Head, w.Cleanup, nil
	}
}

// ChangedPaths are the paths of the change's files, new and old.
func ChangedPaths(c *change.Change) []string {
	var paths []string
	for _, f := range c.Files {
		paths = append(paths, f.Path)
		if f.OldPath != "" && f.OldPath != f.Path {
			paths = append(paths, f.OldPath)
		}
	}
	return paths
}

// TempTrees makes a temporary directory, has fill write the base and head trees into its "base"
// and "head", and returns them with the cleanup that removes it; on failure it is removed at once.
func TempTrees(fill func(baseDir, headDir string) error) (string, string, func(), error) {
	tmp, err := os.MkdirTemp("", "debatebot-trees-")
	if err != nil {
		return "", "", nil, fmt.Errorf("failed to make a directory for the trees: %w", err)
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	baseDir, headDir := filepath.Join(tmp, "base"), filepath.Join(tmp, "head")
	if err := fill(baseDir, headDir); err != nil {
		cleanup()
		return "", "", nil, err
	}
	return baseDir, headDir, cleanup, nil
}

func writeFile(name string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("failed to make %s: %w", filepath.Dir(name), err)
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return fmt.Errorf("failed to create %s: %w", name, err)
	}
	if _, err := io.Copy(f, r); err != nil {
		_ = f.Close()
		return fmt.Errorf("failed to write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("failed to write %s: %w", name, err)
	}
	return nil
}
