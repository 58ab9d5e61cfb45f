package agents_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
)

// The debates these tests hold are run as review's tests run them (review's debate_test.go,
// bench_test.go and helpers_test.go).

func fixedClock() func() time.Time {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var n atomic.Int64
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * 100 * time.Millisecond) }
}

func readChange(t testing.TB, path string) *change.Change {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := review.ReadDiff(f, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func runDebate(t testing.TB, c *change.Change, protocol string) *toulmin.Transcript {
	t.Helper()
	p, err := toulmin.Named(protocol)
	if err != nil {
		t.Fatal(err)
	}
	d := &review.Debate{Change: c, Protocol: p, Clock: fixedClock()}
	tr, err := d.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// newFileDiff is the git diff that adds a file with the given content.
func newFileDiff(path, content string) string {
	content = strings.TrimPrefix(content, "\n")
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// changeOf parses diffs of new files given as path -> content.
func changeOf(t testing.TB, files map[string]string) *change.Change {
	t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(newFileDiff(p, files[p]))
	}
	c, err := review.ParseDiff([]byte(b.String()), "test.diff")
	if err != nil {
		t.Fatalf("ParseDiff: %v", err)
	}
	return c
}

func mustParse(t testing.TB, diff string) *change.Change {
	t.Helper()
	c, err := review.ParseDiff([]byte(strings.TrimPrefix(diff, "\n")), "test.diff")
	if err != nil {
		t.Fatalf("ParseDiff: %v", err)
	}
	return c
}

func gather(t testing.TB, c *change.Change) []toulmin.Evidence {
	t.Helper()
	ev, err := scan.Gather(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return ev
}

func dump(ev []toulmin.Evidence) string {
	var b strings.Builder
	for _, e := range ev {
		fmt.Fprintf(&b, "  %s %s %s: %s\n", e.Severity, e.Rule, e.Location(), e.Message)
	}
	return b.String()
}

// found lists "path:line" of the evidence of one rule.
func found(ev []toulmin.Evidence, rule string) []string {
	var out []string
	for _, e := range ev {
		if e.Rule == rule {
			out = append(out, e.Location())
		}
	}
	sort.Strings(out)
	return out
}

// largeDiff builds a realistic change of about lines added lines over Go, Python and TypeScript
// files, with a few defects among ordinary code.
func largeDiff(lines int) string {
	var b strings.Builder
	perFile := 250
	for i := 0; b.Len() == 0 || countAdded(b.String()) < lines; i++ {
		var body strings.Builder
		switch i % 3 {
		case 0:
			fmt.Fprintf(&body, "package svc%d\n\nimport (\n\t\"database/sql\"\n\t\"fmt\"\n)\n\n", i)
			for f := 0; body.Len() < perFile*30; f++ {
				fmt.Fprintf(&body, "// Handler%d serves one endpoint.\nfunc Handler%d(db *sql.DB, ids []int) (int, error) {\n\ttotal := 0\n\tfor _, id := range ids {\n\t\tvar n int\n\t\tif err := db.QueryRow(\"SELECT n FROM t WHERE id = $1\", id).Scan(&n); err != nil {\n\t\t\treturn 0, fmt.Errorf(\"handler %d: %%w\", err)\n\t\t}\n\t\ttotal += n\n\t}\n\treturn total, nil\n}\n\n", f, f, f)
			}
		case 1:
			for f := 0; body.Len() < perFile*30; f++ {
				fmt.Fprintf(&body, "def job_%d(cur, name):\n    cur.execute(\"SELECT id FROM users WHERE name = %%s\", (name,))\n    row = cur.fetchone()\n    if row is None:\n        return None\n    return row[0]\n\n\n", f)
			}
		default:
			for f := 0; body.Len() < perFile*30; f++ {
				fmt.Fprintf(&body, "export async function load%d(ids: number[]): Promise<number[]> {\n  const res = await fetch('/api/items?ids=' + ids.join(','));\n  if (!res.ok) {\n    throw new Error(`load: ${res.status}`);\n  }\n  return res.json();\n}\n\n", f)
			}
		}
		ext := []string{"go", "py", "ts"}[i%3]
		b.WriteString(newFileDiff(fmt.Sprintf("pkg%d/file%d.%s", i/3, i, ext), body.String()))
	}
	return b.String()
}

func countAdded(diff string) int { return strings.Count(diff, "\n+") }
