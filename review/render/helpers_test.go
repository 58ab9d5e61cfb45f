package render_test

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
	"github.com/debatebot/debatebot/toulmin"
)

// The debates these tests render are run as review's tests run them (review's debate_test.go
// and helpers_test.go).

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
