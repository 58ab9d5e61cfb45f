//go:build unix

package handlers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/gittest"
)

// treeWatch samples, every few milliseconds, what the debates' tree directories (debatebot-trees-*
// in the temporary directory, which the test points at a directory of its own) hold on disk, and
// keeps the peak: bytes as allocated (st_blocks, so that sparse or compressed files cannot hide)
// and files. The writer only adds files until the debate removes its trees, so the peak is what a
// debate wrote.
type treeWatch struct {
	mu             sync.Mutex
	peakBytes      int64
	peakFiles      int
	samplesWithAny int
	stop           context.CancelFunc
	done           chan struct{}
}

func watchTrees(t *testing.T) *treeWatch {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithCancel(context.Background())
	w := &treeWatch{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for ctx.Err() == nil {
			bytes, files := treesOnDisk(tmp)
			w.mu.Lock()
			w.peakBytes, w.peakFiles = max(w.peakBytes, bytes), max(w.peakFiles, files)
			if files > 0 {
				w.samplesWithAny++
			}
			w.mu.Unlock()
			time.Sleep(2 * time.Millisecond)
		}
	}()
	t.Cleanup(w.finish)
	return w
}

// finish stops the sampling and returns the peak bytes and files, and how many samples saw trees.
func (w *treeWatch) finish() {
	w.stop()
	<-w.done
}

func (w *treeWatch) peak() (int64, int, int) {
	w.finish()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peakBytes, w.peakFiles, w.samplesWithAny
}

func treesOnDisk(tmp string) (int64, int) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, "debatebot-trees-*"))
	var bytes int64
	files := 0
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			if info, err := e.Info(); err == nil {
				bytes += diskBytes(info)
				files++
			}
			return nil
		})
	}
	return bytes, files
}

// zeros is n zero bytes, as a reader.
func zeros(n int64) io.Reader { return io.LimitReader(zeroReader{}, n) }

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// bombPaths are n paths below dir.
func bombPaths(dir string, n int) []string {
	var paths []string
	for i := range n {
		paths = append(paths, fmt.Sprintf("%s/blob%02d.bin", dir, i))
	}
	return paths
}

// A pull request that lists one 32 MiB blob of zeros under 32 paths (a repository of a few KB that
// git archive unpacked to 1 GiB per tree) is reviewed with a few KB of trees on disk: files over
// the 1 MiB the analyzers read are left out, and the evidence phase says so. With a budget of
// 16 MB, 40 paths to one blob of 1000 KiB (39 MiB at head) pass it: the debate falls back to the
// changed files' directories (the binary files are not among the change's files), stays under the
// budget and says so; the type-checked analysis of the changed package still runs.
func TestBlobBombIsReviewedWithinTheTreeBudget(t *testing.T) {
	t.Run("large blob", func(t *testing.T) {
		watch := watchTrees(t)
		a, _ := treesAppWith(t, nil, func(dir string) {
			gittest.CommitBlob(t, dir, zeros(32<<20), bombPaths("assets", 32))
		})
		start := time.Now()
		tr, dec := a.debate("pull_request.opened.json", "d-bomb1")
		peakBytes, peakFiles, seen := watch.peak()
		t.Logf("blob bomb: peak %d bytes in %d files on disk for the trees; debate took %v", peakBytes, peakFiles, time.Since(start))
		if seen == 0 {
			t.Fatal("the trees were never seen on disk")
		}
		if peakBytes > 1<<20 {
			t.Errorf("the trees took %d bytes on disk, want the nilguard tree alone (under 1 MiB)", peakBytes)
		}
		for _, want := range []string{"32 file(s) larger than 1024 KiB left out of the trees, as the analyzers read none larger: assets/blob00.bin", nilDeref, "of 1 package(s) in base and head: example.com/shop/api"} {
			if !strings.Contains(tr, want) {
				t.Errorf("transcript lacks %q", want)
			}
		}
		if !strings.Contains(dec, "decision: request_changes") {
			t.Errorf("the bomb's pull request was not reviewed to a decision:\n%s", dec)
		}
		if t.Failed() {
			t.Logf("transcript:\n%s", tr)
		}
	})
	t.Run("over the byte budget", func(t *testing.T) {
		watch := watchTrees(t)
		a, _ := treesAppWith(t, func(cfg *config.Server) { cfg.MaxTreeMB = 16 }, func(dir string) {
			gittest.CommitBlob(t, dir, zeros(1000<<10), bombPaths("assets", 40))
		})
		tr, dec := a.debate("pull_request.opened.json", "d-bomb2")
		peakBytes, peakFiles, seen := watch.peak()
		t.Logf("byte budget: peak %d bytes in %d files on disk for the trees", peakBytes, peakFiles)
		if seen == 0 {
			t.Fatal("the trees were never seen on disk")
		}
		if peakBytes > 16<<20 {
			t.Errorf("the trees took %d bytes on disk, over the 16 MiB budget", peakBytes)
		}
		for _, want := range []string{
			"the trees hold 39.1 MiB in 48 files, over the trees' budget of 16.0 MiB and 100000 files: only the changed files' directories and their module files were written",
			nilDeref, "of 1 package(s) in base and head: example.com/shop/api",
		} {
			if !strings.Contains(tr, want) {
				t.Errorf("transcript lacks %q", want)
			}
		}
		if !strings.Contains(dec, "decision:") {
			t.Errorf("no decision:\n%s", dec)
		}
		if t.Failed() {
			t.Logf("transcript:\n%s", tr)
		}
	})
}

// A pull request of 600 empty files, with a budget of 200 files, writes at most 200 (the module
// files and the changed files that fit, the Go source first: the changed directories hold 600) and
// says why; the
// changed Go package is analysed.
func TestFileCountBombIsBounded(t *testing.T) {
	watch := watchTrees(t)
	a, _ := treesAppWith(t, func(cfg *config.Server) { cfg.MaxTreeFiles = 200 }, func(dir string) {
		gittest.CommitBlob(t, dir, bytes.NewReader(nil), bombPaths("many", 600))
	})
	tr, _ := a.debate("pull_request.opened.json", "d-files")
	_, peakFiles, seen := watch.peak()
	t.Logf("file bomb: peak %d files on disk for the trees", peakFiles)
	if seen == 0 {
		t.Fatal("the trees were never seen on disk")
	}
	if peakFiles > 200 {
		t.Errorf("%d files written, over the budget of 200", peakFiles)
	}
	for _, want := range []string{"files, over the trees' budget of 512.0 MiB and 200 files, and so do the changed files' directories: only the module files and the changed files that fit, source code and the smallest first, were written (404 changed file(s) left out)", nilDeref, "of 1 package(s) in base and head: example.com/shop/api"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", tr)
	}
}

// A pull request that adds .gitattributes with `*.go export-ignore` (and export-subst) does not
// hide its Go files from the type-checked analysis: the trees are written as committed.
func TestExportAttributesDoNotHideFiles(t *testing.T) {
	a, _ := treesAppWith(t, nil, func(dir string) {
		gittest.CommitBlob(t, dir, strings.NewReader("*.go export-ignore\n* export-subst\n"), []string{".gitattributes"})
	})
	tr, _ := a.debate("pull_request.opened.json", "d-attr")
	for _, want := range []string{nilDeref, "of 1 package(s) in base and head: example.com/shop/api; 1 new finding(s)"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
}
