package review

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// FuzzReadDiff feeds arbitrary bytes to the reader behind `debatebot debate --diff`: it must
// never panic, must answer bad input with an InputError, and what it accepts must be a change
// whose files, hunks and line numbers agree with one another.
func FuzzReadDiff(f *testing.F) {
	for _, glob := range []string{"../examples/*.diff", "evidence/testdata/cases/*.diff"} {
		paths, _ := filepath.Glob(glob)
		for i, p := range paths {
			if i >= 8 {
				break
			}
			if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
				f.Add(data)
			}
		}
	}
	for _, s := range []string{
		"",
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		"diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n",
		"diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+one\n+two\n",
		"diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-gone\n",
		"diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n",
		"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@ func f() {\n a\n-b\n+c\n\\ No newline at end of file\n",
		"--- \"a/we\\tird\"\n+++ \"b/we\\nird\"\n@@ -1 +1 @@\n-a\n+b\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadDiff(bytes.NewReader(data), "fuzz.diff", 1<<20)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("bad input answered with %T, not an InputError: %v", err, err)
			}
			if strings.ContainsAny(err.Error(), "\x00") {
				t.Fatalf("error carries a NUL byte: %q", err)
			}
			return
		}
		if len(c.Files) == 0 {
			t.Fatal("an accepted diff has no file")
		}
		files, added, deleted := c.Stats()
		if files != len(c.Files) || added < 0 || deleted < 0 {
			t.Fatalf("stats %d %d %d", files, added, deleted)
		}
		for _, fl := range c.Files {
			if fl.Path == "" {
				t.Fatalf("a file without a path: %+v", fl)
			}
			if c.File(fl.Path) == nil {
				t.Fatalf("file %q is not found by its path", fl.Path)
			}
			nAdded, nDeleted := len(fl.AddedLines()), len(fl.DeletedLines())
			if nAdded != fl.Added || nDeleted != fl.Deleted {
				t.Fatalf("%s: counts +%d -%d, lines +%d -%d", fl.Path, fl.Added, fl.Deleted, nAdded, nDeleted)
			}
			for _, h := range fl.Hunks {
				_ = agents.HunkText(h)
				for _, l := range h.Lines {
					switch l.Kind {
					case change.Added:
						if !fl.IsAdded(l.New) || (fl.Status != change.StatusDeleted && !c.HasLine(fl.Path, l.New)) {
							t.Fatalf("%s: added line %d is not in the change", fl.Path, l.New)
						}
					case change.Deleted, change.Context:
					default:
						t.Fatalf("%s: line of unknown kind %q", fl.Path, l.Kind)
					}
				}
			}
			_ = fl.IsGenerated()
			_ = fl.Language()
			_ = fl.IsTest()
			_, _ = fl.Line(1)
		}
		// What the reader accepted goes through the untrusted-text checks of every debate.
		s := scan.New(c)
		evidence.PromptInjectionAnalyzer{}.Analyze(s)
		_ = s.Findings()
	})
}
