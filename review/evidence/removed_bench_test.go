package evidence

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/compare"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// BenchmarkRemovedLargeChange runs the base/head comparison over the change of
// BenchmarkRunLargeRepository: 60 edited Go files of a repository of about 100,000 lines, with
// its trees at hand (the comparison parses both sides of each changed file and reads the
// unchanged files calls point at).
func BenchmarkRemovedLargeChange(b *testing.B) {
	root := b.TempDir()
	base, head := filepath.Join(root, "base"), filepath.Join(root, "head")
	writeBigRepo(b, base, "example.com/big", false)
	writeBigRepo(b, head, "example.com/big", true)
	var files [][3]string
	for p := 0; p < bigChangedPkgs; p++ {
		for f := 0; f < bigFilesPerPkg; f++ {
			rel := fmt.Sprintf("p%d/f%d.go", p, f)
			bs, err := os.ReadFile(filepath.Join(base, rel))
			if err != nil {
				b.Fatal(err)
			}
			hs, err := os.ReadFile(filepath.Join(head, rel))
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, [3]string{rel, string(bs), string(hs)})
		}
	}
	c := changetest.Versions(b, files...)
	c.Trees = func(context.Context) (string, string, func(), error) { return base, head, func() {}, nil }
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range c.Files {
			f.Reindex()
		}
		if _, _, err := scan.GatherWithNotes(context.Background(), c, []scan.Analyzer{compare.RemovedAnalyzer{}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(files)), "files")
}
