package review

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitTrees returns a Change.Trees that writes the commits base and head of the repository at dir
// into a temporary directory (git archive, read here as a tar stream), removed by cleanup.
func gitTrees(dir, base, head string) func(ctx context.Context) (string, string, func(), error) {
	return func(ctx context.Context) (string, string, func(), error) {
		return TempTrees(func(baseDir, headDir string) error {
			if err := ArchiveTree(ctx, dir, base, baseDir); err != nil {
				return err
			}
			return ArchiveTree(ctx, dir, head, headDir)
		})
	}
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

// ArchiveTree extracts the tree of rev of the git repository at repo (a work tree or a bare
// repository) into dest.
func ArchiveTree(ctx context.Context, repo, rev, dest string) error {
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "archive", "--format=tar", rev)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("failed to archive %s: %w", rev, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("failed to archive %s: %w", rev, err)
	}
	extractErr := extractTar(out, dest)
	if extractErr != nil {
		_, _ = io.Copy(io.Discard, out) // let git finish writing before waiting for it
	}
	waitErr := cmd.Wait()
	if waitErr != nil {
		waitErr = fmt.Errorf("git archive %s: %w: %s", rev, waitErr, strings.TrimSpace(stderr.String()))
	}
	if err := errors.Join(extractErr, waitErr); err != nil {
		return fmt.Errorf("failed to write the tree of %s: %w", rev, err)
	}
	return nil
}

func extractTar(r io.Reader, dest string) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return fmt.Errorf("failed to make %s: %w", dest, err)
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("failed to read the archive: %w", err)
		}
		name := filepath.FromSlash(strings.TrimSuffix(h.Name, "/"))
		if name == "" || !filepath.IsLocal(name) {
			continue // git archive writes repository paths only; anything else is skipped
		}
		target := filepath.Join(dest, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("failed to make %s: %w", target, err)
			}
		case tar.TypeReg:
			if err := writeFile(target, tr, h.FileInfo().Mode().Perm()|0o600); err != nil {
				return err
			}
		}
		// Symbolic links and submodules are left out: analysis needs the files of the tree only,
		// and a link could point outside it.
	}
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
