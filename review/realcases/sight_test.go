package realcases

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/gittest"
)

// caseTrees writes a case repository as ../shared/realcases/materialize builds one (tags base
// and head) at trees/<id>: a handler whose change rewords an error reply, the defect being the
// missing return after it (our own fixture of the code-context tests).
func caseTrees(t *testing.T, trees, id string) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "codectx", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	dirs := map[string]string{}
	for side, handler := range map[string]string{"base": read("handler_base.go.txt"), "head": read("handler_head.go.txt")} {
		dirs[side] = t.TempDir()
		files := map[string]string{"go.mod": "module example.com/orders\n\ngo 1.22\n", "api/handler.go": handler,
			"api/errors.go": read("errors.go.txt"), "api/store.go": read("store.go.txt")}
		for p, text := range files {
			name := filepath.Join(dirs[side], filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	repo := gittest.FromTrees(t, dirs["base"], dirs["head"])
	for tag, rev := range map[string]string{"base": "main", "head": "feature"} {
		if out, err := exec.Command("git", "-C", repo, "tag", tag, rev).CombinedOutput(); err != nil {
			t.Fatalf("git tag: %v\n%s", err, out)
		}
	}
	if err := os.Rename(repo, filepath.Join(trees, id)); err != nil {
		t.Fatal(err)
	}
}

// bench --context reads the change message a model would get and says where it shows each
// defect location: the changed line in the diff, the callee's definition (another file of the
// package) only in the code around the change, and a line of a file the message does not reach
// nowhere. The case line and the totals count them.
func TestBenchContextSaysWhereTheModelSeesEachDefect(t *testing.T) {
	trees := t.TempDir()
	caseTrees(t, trees, "go-x-001")
	c := Case{ID: "go-x-001", Lang: "go", Kind: "defect", Class: "correctness", Fix: strings.Repeat("a", 40),
		Defects: []Location{{"api/handler.go", 26, 26}, {"api/errors.go", 10, 12}, {"cmd/main.go", 3, 3}}}
	var out bytes.Buffer
	if err := Bench(context.Background(), []Case{c}, BenchOptions{Trees: trees, Split: "all", Context: true}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"[sight: diff 1, code 1, none 1]",
		"sight        3 defect locations: 1 in the diff, 1 more only in the code around it, 1 not shown (33%); every location shown in 0/1 cases (0%)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
}

// The lines a change message shows are read under their file headers, a quoted path unquoted; a
// removed line (no head number) and a marker line are not lines shown.
func TestShownLinesReadsTheNumberedLinesUnderEachHeader(t *testing.T) {
	diff := "--- \"a\\tb.go\" (modified, +1 -1)\n@@ -1,3 +1,3 @@\n   1  x\n     -y\n   2 +z\n--- c.go (added, +1 -0)\n@@ -0,0 +1 @@\n   7 +w\n"
	got := shownLines(diff, diffFileRe, diffLineRe)
	if !got["a\tb.go"][1] || !got["a\tb.go"][2] || len(got["a\tb.go"]) != 2 || !got["c.go"][7] {
		t.Errorf("diff lines %v", got)
	}
	code := "--- a.go:18-33 func f: changed here\n   18| func f() {\n    ⋮ lines 19-25: in the diff above\n   26| }\n"
	if got := shownLines(code, codeFileRe, codeLineRe); len(got["a.go"]) != 2 || !got["a.go"][18] || !got["a.go"][26] {
		t.Errorf("code lines %v", got)
	}
}
