package review_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
)

func BenchmarkGatherAndDebate5000Lines(b *testing.B) {
	diff := []byte(changetest.LargeDiff(5000))
	b.SetBytes(int64(len(diff)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := review.ParseDiff(diff, "large.diff")
		if err != nil {
			b.Fatal(err)
		}
		d := &review.Debate{Change: c, Protocol: toulmin.Standard()}
		t, err := d.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := render.Markdown(t, render.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(changetest.CountAdded(string(diff))), "added-lines")
}

// TestLargeDiffFile keeps testdata/large-5000.diff (the input of the command-line measurement
// in the README) equal to what the benchmark debates.
func TestLargeDiffFile(t *testing.T) {
	want := changetest.LargeDiff(5000)
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
	c, err := review.ParseDiff(got, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, added, _ := c.Stats(); added < 5000 {
		t.Errorf("large diff adds %d lines, want at least 5000", added)
	}
}
