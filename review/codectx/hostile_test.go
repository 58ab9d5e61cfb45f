package codectx

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/change"
)

// oneLineChange is a change of path whose head is src, adding only line n.
func oneLineChange(path, src string, n int) *change.Change {
	lines := strings.Split(src, "\n")
	f := &change.File{Path: path, OldPath: path, Status: change.StatusModified, Added: 1, Deleted: 1,
		Content: []byte(src), HasContent: true,
		Hunks: []change.Hunk{{OldStart: n, OldLines: 1, NewStart: n, NewLines: 1, Lines: []change.Line{
			{Kind: change.Deleted, Old: n, Text: "old"},
			{Kind: change.Added, New: n, Text: lines[n-1]},
		}}}}
	return &change.Change{Files: []*change.File{f}}
}

// bounded builds the code of c within a few seconds, whatever c holds.
func bounded(t *testing.T, c *change.Change, budget int) Code {
	t.Helper()
	start := time.Now()
	code, err := Build(context.Background(), c, nil, nil, budget, tokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("building took %v", d)
	}
	return code
}

func TestHostileOneMegabyteLine(t *testing.T) {
	src := "package p\n\nfunc Big() string {\n\treturn \"" + strings.Repeat("a", 1_000_000) + "\"\n}\n"
	code := bounded(t, oneLineChange("p/big.go", src, 4), 6000)
	if !strings.Contains(code.Text, "    4| \treturn \"aaaa") || !strings.Contains(code.Text, "(999610 more bytes on this line)") {
		t.Errorf("the long line is not clipped with its number kept:\n%s", clipText(code.Text))
	}
	if len(code.Text) > 2000 {
		t.Errorf("the code is %d bytes", len(code.Text))
	}
}

func clipText(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// Fifty thousand functions, ten thousand calling the changed one: parsing is linear, a few hundred are
// weighed, twenty are named and the rest counted.
func TestHostileFiftyThousandFunctions(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nfunc target() {\n\tprintln()\n}\n")
	for i := 0; i < 50000; i++ {
		if i%5 == 0 {
			fmt.Fprintf(&b, "func f%x(){target()}\n", i)
		} else {
			fmt.Fprintf(&b, "func g%x(){}\n", i)
		}
	}
	if b.Len() > MaxFileBytes {
		t.Fatalf("the file is %d bytes, over the limit of what is parsed", b.Len())
	}
	code := bounded(t, oneLineChange("p/many.go", b.String(), 4), 300)
	if got := headers(code.Text); len(got) == 0 || got[0] != "func target" {
		t.Errorf("the changed function is not first: %q", got)
	}
	if len(code.Omitted) != maxNamed+2 {
		t.Fatalf("%d left-out entries, want %d named, a count and the note on the weighing", len(code.Omitted), maxNamed)
	}
	joined := strings.Join(code.Omitted, "\n")
	if !strings.Contains(joined, "more definitions around the change: over the budget") || !strings.Contains(joined, "beyond the first 400 were not weighed") {
		t.Errorf("the left-out list does not count the rest:\n%s", joined)
	}
}

func TestHostileDeepNestingAndUnparsableFiles(t *testing.T) {
	deepJS := "function f() {\n  return " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + ";\n}\n"
	deepGo := "package p\n\nfunc F() int {\n\treturn " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + "\n}\n"
	for _, tc := range []struct {
		path, src string
		line      int
		why       string
	}{
		{"web/deep.js", deepJS, 2, "brackets deep (more than 400), not parsed"},
		{"web/deep.ts", deepJS, 2, "brackets deep (more than 400), not parsed"},
		{"p/deep.go", deepGo, 4, "go: p/deep.go:4"},
		{"p/broken.go", "package p\n\nfunc F( {\n\treturn\n}\n", 4, "go: p/broken.go:3"},
		{"web/broken.ts", "export function f(: {\n  return 1;\n}\n", 2, "line 1: Expected"},
		{"p/huge.go", "package p\n\nfunc F() {\n}\n" + strings.Repeat("// x\n", MaxFileBytes/5+1), 3, "larger than 1 MiB, not parsed"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			code := bounded(t, oneLineChange(tc.path, tc.src, tc.line), 6000)
			if code.Text != "" {
				t.Errorf("code shown for a file that does not parse:\n%s", clipText(code.Text))
			}
			want := tc.path + ": the code around its hunks is not shown ("
			if len(code.Omitted) != 1 || !strings.HasPrefix(code.Omitted[0], want) || !strings.Contains(code.Omitted[0], tc.why) {
				t.Errorf("left out %q, want %q…%q", code.Omitted, want, tc.why)
			}
		})
	}
}

// Python nested deeper than its parser recurses: python3 says why and the hunks stand alone;
// without python3 the indentation scanner, which does not recurse, reads it.
func TestHostileDeepPython(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "%sdef f%d():\n", strings.Repeat(" ", i), i)
	}
	fmt.Fprintf(&b, "%sreturn 1\n", strings.Repeat(" ", 1000))
	src := b.String()
	t.Run("without python3", func(t *testing.T) {
		old := python3
		python3 = "/nonexistent/python3"
		defer func() { python3 = old }()
		code := bounded(t, oneLineChange("deep/mod.py", src, 1001), 6000)
		if got := headers(code.Text); len(got) == 0 || got[0] != "def f999" {
			t.Errorf("the innermost function is not shown: %q", got)
		}
	})
	t.Run("python3", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("python3 is not installed; install it (Debian: apt-get install python3) to test the ast path")
		}
		code := bounded(t, oneLineChange("deep/mod.py", src, 1001), 6000)
		if code.Text != "" && headers(code.Text)[0] != "def f999" {
			t.Errorf("python3 read the file, but not its innermost function first: %q", headers(code.Text)[:1])
		}
		if code.Text == "" && (len(code.Omitted) == 0 || !strings.Contains(code.Omitted[0], "deep/mod.py: the code around its hunks is not shown (python: ")) {
			t.Errorf("python3 did not read the file, and the left-out list does not say why: %q", code.Omitted)
		}
	})
}
