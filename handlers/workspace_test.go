//go:build unix

package handlers

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A process's workspace outlives it when it is killed: the next one to start removes it, trees
// and all, but never the workspace of a replica that is still running on the same directory.
func TestWorkspaceSweepsOnlyTheDead(t *testing.T) {
	root := t.TempDir()
	live, _, err := OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	tree := filepath.Join(live.Dir, "debatebot-trees-1", "head", "main.go")
	writeFile(t, tree)
	// A dead process's workspace: its lock file is there, held by no one.
	dead := filepath.Join(root, "999999-dead")
	writeFile(t, filepath.Join(dead, "debatebot-trees-2", "head", "main.go"))
	writeFile(t, dead+lockSuffix)
	// A folder whose lock file is gone (a sweep died between the two removals).
	orphan := filepath.Join(root, "999998-orphan")
	writeFile(t, filepath.Join(orphan, "x"))
	other := filepath.Join(root, "README")
	writeFile(t, other)

	next, removed, err := OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	slices.Sort(removed)
	if want := []string{orphan, dead}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, p := range []string{dead, dead + lockSuffix, orphan} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	for _, p := range []string{tree, live.lock, other, next.Dir} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(live.Dir); !os.IsNotExist(err) {
		t.Errorf("a closed workspace is still there: %v", err)
	}
}

func writeFile(t *testing.T, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}
