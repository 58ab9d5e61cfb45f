package review

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// writeTree writes files (slash paths) under a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const applyBase = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n"

// One diff that modifies (two hunks), adds, deletes and renames (with a change) files.
const applyDiffText = `diff --git a/a.go b/a.go
index 1111111..2222222 100644
--- a/a.go
+++ b/a.go
@@ -3,3 +3,3 @@ package a
 func A() int {
-	return 1
+	return 10
 }
@@ -7,3 +7,4 @@ func A() int {
 func B() int {
+	// two
 	return 2
 }
diff --git a/new/n.go b/new/n.go
new file mode 100755
index 0000000..3333333
--- /dev/null
+++ b/new/n.go
@@ -0,0 +1,2 @@
+package n
+// new
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 4444444..0000000
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-gone
-too
diff --git a/r/from.go b/s/to.go
similarity index 80%
rename from r/from.go
rename to s/to.go
index 5555555..6666666 100644
--- a/r/from.go
+++ b/s/to.go
@@ -1,2 +1,2 @@
-package r
+package s
 // moved
`

func TestReadDiffOnBaseAppliesEveryKindOfChange(t *testing.T) {
	base := writeTree(t, map[string]string{
		"a.go":           applyBase,
		"old.txt":        "gone\ntoo\n",
		"r/from.go":      "package r\n// moved\n",
		"keep/k.go":      "package keep\n",
		".git/HEAD":      "ref: refs/heads/main\n",
		"go.mod":         "module example.com/a\n",
		"untouched.json": "{}\n",
	})
	c, err := ReadDiffOnBase(strings.NewReader(applyDiffText), "d.diff", 0, base)
	if err != nil {
		t.Fatal(err)
	}
	wantA := strings.Replace(strings.Replace(applyBase, "return 1", "return 10", 1), "func B() int {\n", "func B() int {\n\t// two\n", 1)
	content := map[string]string{}
	for _, f := range c.Files {
		if f.HasContent {
			content[f.Path] = string(f.Content)
		}
	}
	if content["a.go"] != wantA {
		t.Errorf("a.go content:\n%s\nwant:\n%s", content["a.go"], wantA)
	}
	if content["s/to.go"] != "package s\n// moved\n" || content["new/n.go"] != "package n\n// new\n" {
		t.Errorf("contents of the renamed and the new file: %q", content)
	}
	if c.Trees == nil {
		t.Fatal("the change has no trees")
	}
	b, h, cleanup, err := c.Trees(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	gotBase, gotHead := readTree(t, b), readTree(t, h)
	wantBase := readTree(t, base)
	delete(wantBase, ".git/HEAD")
	if len(gotBase) != len(wantBase) {
		t.Errorf("base tree %v, want %v", keys(gotBase), keys(wantBase))
	}
	for p, s := range wantBase {
		if gotBase[p] != s {
			t.Errorf("base tree %s = %q, want %q", p, gotBase[p], s)
		}
	}
	wantHead := map[string]string{
		"a.go": wantA, "new/n.go": "package n\n// new\n", "s/to.go": "package s\n// moved\n",
		"keep/k.go": "package keep\n", "go.mod": "module example.com/a\n", "untouched.json": "{}\n",
	}
	if len(gotHead) != len(wantHead) {
		t.Errorf("head tree %v, want %v", keys(gotHead), keys(wantHead))
	}
	for p, s := range wantHead {
		if gotHead[p] != s {
			t.Errorf("head tree %s = %q, want %q", p, gotHead[p], s)
		}
	}
	if st, err := os.Stat(filepath.Join(h, "new", "n.go")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("the new file's mode 100755 is lost: %v %v", st.Mode(), err)
	}
	// The checkout itself is left as it was.
	if got := readTree(t, base); got["a.go"] != applyBase || got["old.txt"] != "gone\ntoo\n" || got["r/from.go"] == "" {
		t.Errorf("the base directory was changed: %v", got)
	}
	cleanup()
	if _, err := os.Stat(b); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cleanup left %s: %v", b, err)
	}
	if _, err := os.Stat(h); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cleanup left %s: %v", h, err)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestReadDiffOnBaseRefusesWhatDoesNotApply(t *testing.T) {
	base := writeTree(t, map[string]string{"a.go": strings.Replace(applyBase, "return 2", "return 3", 1), "old.txt": "gone\ntoo\n", "r/from.go": "package r\n// moved\n"})
	for _, tc := range []struct {
		name, diff, base, want string
	}{
		{"a hunk that does not match", applyDiffText, base,
			"d.diff: a.go: hunk 2 (@@ -7,3 +7,4 @@) does not apply to the base at base line 8: conflict: fragment line does not match src line"},
		{"a modified file missing", applyDiffText, writeTree(t, map[string]string{"old.txt": "gone\ntoo\n"}),
			"d.diff: a.go: not in the base directory"},
		{"a new file that exists", applyDiffText, writeTree(t, map[string]string{"a.go": applyBase, "new/n.go": "package n\n"}),
			"d.diff: new/n.go: the diff adds it, but the base directory"},
		{"a deletion of other content", applyDiffText, writeTree(t, map[string]string{"a.go": applyBase, "old.txt": "gone\nbut kept\n"}),
			"d.diff: old.txt: hunk 1 (@@ -1,2 +0,0 @@) does not apply"},
		{"a path outside the tree", "--- ../x.go\n+++ ../x.go\n@@ -1 +1 @@\n-a\n+b\n", base,
			"a path outside the tree cannot be applied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadDiffOnBase(strings.NewReader(tc.diff), "d.diff", 0, tc.base)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want an InputError", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line containing %q", err, tc.want)
			}
		})
	}
	if _, err := ReadDiffOnBase(strings.NewReader(applyDiffText), "d.diff", 0, filepath.Join(base, "a.go")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as the base directory: %v", err)
	}
}

// A bare diff has no trees; the evidence phase says so once when the change asks for it.
func TestHunksOnlyNote(t *testing.T) {
	c, err := ParseDiff([]byte(applyDiffText), "d.diff")
	if err != nil {
		t.Fatal(err)
	}
	c.NoTrees = HunksOnlyNote
	_, notes, err := scan.GatherWithNotes(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range notes {
		if s == HunksOnlyNote {
			n++
		}
	}
	if n != 1 {
		t.Errorf("notes %q: want the hunk-only note once", notes)
	}
}

// diff -ruN BASE HEAD names the files with the directories compared; with --dir those names are
// read relative to the trees' roots, in the change as in the trees.
func TestReadDiffOnBaseDirectoryDiff(t *testing.T) {
	const diff = `diff -ruN X/d/m.txt Y/d/m.txt
--- X/d/m.txt	2026-11-22 22:43:41.282954773 +0000
+++ Y/d/m.txt	2026-11-22 22:43:41.282954773 +0000
@@ -1,2 +1,2 @@
 a
-b
+c
diff -ruN X/d/n.txt Y/d/n.txt
--- X/d/n.txt	1970-01-01 00:00:00.000000000 +0000
+++ Y/d/n.txt	2026-11-22 22:43:41.282954773 +0000
@@ -0,0 +1 @@
+new
diff -ruN X/d/o.txt Y/d/o.txt
--- X/d/o.txt	2026-11-22 22:43:41.282954773 +0000
+++ Y/d/o.txt	1970-01-01 00:00:00.000000000 +0000
@@ -1 +0,0 @@
-old
`
	base := writeTree(t, map[string]string{"d/m.txt": "a\nb\n", "d/o.txt": "old\n"})
	c, err := ReadDiffOnBase(strings.NewReader(diff), "t.diff", 0, base)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range c.Files {
		paths = append(paths, string(f.Status)+" "+f.Path)
	}
	if got := strings.Join(paths, ", "); got != "modified d/m.txt, added d/n.txt, deleted d/o.txt" {
		t.Errorf("files %s", got)
	}
	_, h, cleanup, err := c.Trees(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	got := readTree(t, h)
	if len(got) != 2 || got["d/m.txt"] != "a\nc\n" || got["d/n.txt"] != "new\n" {
		t.Errorf("head tree %q", got)
	}

	// A tree that has the prefixed paths is taken as it is.
	prefixed := writeTree(t, map[string]string{"Y/d/m.txt": "a\nb\n", "X/d/o.txt": "old\n"})
	c, err = ReadDiffOnBase(strings.NewReader(diff), "t.diff", 0, prefixed)
	if err != nil {
		t.Fatal(err)
	}
	if c.File("Y/d/m.txt") == nil || c.File("X/d/o.txt") == nil {
		t.Errorf("paths stripped although the base has them: %s, %s, %s", c.Files[0].Path, c.Files[1].Path, c.Files[2].Path)
	}
}
