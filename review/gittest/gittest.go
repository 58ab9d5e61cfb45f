// Package gittest builds git repositories for tests from trees on disk: the base tree committed
// on main and the head tree on feature, as a pull request would have them.
package gittest

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FromTrees returns a new repository whose main branch holds the base tree and whose feature
// branch, one commit later, holds the head tree (files of base that head lacks are kept).
func FromTrees(t testing.TB, base, head string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required for this test; .ci/run installs it")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	CopyTree(t, base, dir)
	git("add", "-A")
	git("commit", "-qm", "base")
	git("checkout", "-qb", "feature")
	CopyTree(t, head, dir)
	git("add", "-A")
	git("commit", "-qm", "head")
	return dir
}

// CopyTree copies the files below from into to, making the folders it needs.
func CopyTree(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(to, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", from, err)
	}
}

// Rev returns the commit id of rev (a branch, say) in the repository at dir.
func Rev(t testing.TB, dir, rev string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--verify", rev+"^{commit}").Output()
	if err != nil {
		t.Fatalf("git rev-parse %s: %v", rev, err)
	}
	return strings.TrimSpace(string(out))
}

// CommitBlob commits on the checked-out branch of the repository at dir one blob, content's
// bytes, listed under each of paths, without writing them to the work tree: a repository of a few
// KB that lists a large blob many times, as a hostile pull request may. It returns the new head.
func CommitBlob(t testing.TB, dir string, content io.Reader, paths []string) string {
	t.Helper()
	run := func(stdin io.Reader, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Stdin = stdin
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	sha := run(content, "hash-object", "-w", "--stdin")
	var index strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&index, "100644 %s\t%s\n", sha, p)
	}
	run(strings.NewReader(index.String()), "update-index", "--add", "--index-info")
	run(nil, "commit", "-qm", fmt.Sprintf("%d paths to one blob", len(paths)))
	return run(nil, "rev-parse", "HEAD")
}
