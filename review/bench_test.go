package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
)

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

func BenchmarkGatherAndDebate5000Lines(b *testing.B) {
	diff := []byte(largeDiff(5000))
	b.SetBytes(int64(len(diff)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := ParseDiff(diff, "large.diff")
		if err != nil {
			b.Fatal(err)
		}
		d := &Debate{Change: c, Protocol: toulmin.Standard()}
		t, err := d.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := render.Markdown(t, render.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(countAdded(string(diff))), "added-lines")
}

// TestLargeDiffFile keeps testdata/large-5000.diff (the input of the command-line measurement
// in the README) equal to what the benchmark debates.
func TestLargeDiffFile(t *testing.T) {
	want := largeDiff(5000)
	path := filepath.Join("testdata", "large-5000.diff")
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./review -run LargeDiffFile -update)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: run go test ./review -run LargeDiffFile -update", path)
	}
	c, err := ParseDiff(got, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, added, _ := c.Stats(); added < 5000 {
		t.Errorf("large diff adds %d lines, want at least 5000", added)
	}
}
