package compare_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/compare"
)

// The comparison rebuilds each changed file's base from its head and its hunks (a pull request
// or a bare diff with --dir has no base file at hand): on every written regression case the rebuilt base is
// the real one.
func TestBaseTextRebuildsRegressionBases(t *testing.T) {
	diffs, err := filepath.Glob(filepath.Join("..", "testdata", "regression", "*", "change.diff"))
	if err != nil || len(diffs) == 0 {
		t.Fatalf("no regression case diffs: %v", err)
	}
	checked := 0
	for _, p := range diffs {
		dir := filepath.Dir(p)
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := review.ReadDiffOnBase(f, p, review.DefaultMaxDiffBytes, filepath.Join(dir, "base"))
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, file := range c.Files {
			if file.Status != change.StatusModified && file.Status != change.StatusRenamed {
				continue
			}
			want, err := os.ReadFile(filepath.Join(dir, "base", filepath.FromSlash(file.OldPath)))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := compare.BaseText(file)
			if !ok || string(got) != string(want) {
				t.Errorf("%s: %s: the base rebuilt from head and hunks differs from the real base", dir, file.OldPath)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Errorf("only %d files checked", checked)
	}
}
