package reviewtest

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/change/changetest"
)

// ReadChange reads the diff file at path into a change.
func ReadChange(t testing.TB, path string) *change.Change {
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

// ChangeOf parses diffs of new files given as path -> content.
func ChangeOf(t testing.TB, files map[string]string) *change.Change {
	t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(changetest.NewFileDiff(p, files[p]))
	}
	c, err := review.ParseDiff([]byte(b.String()), "test.diff")
	if err != nil {
		t.Fatalf("ParseDiff: %v", err)
	}
	return c
}

// MustParse parses the diff text (a leading newline is dropped) into a change.
func MustParse(t testing.TB, diff string) *change.Change {
	t.Helper()
	c, err := review.ParseDiff([]byte(strings.TrimPrefix(diff, "\n")), "test.diff")
	if err != nil {
		t.Fatalf("ParseDiff: %v", err)
	}
	return c
}
