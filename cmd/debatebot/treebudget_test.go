//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/gittest"
)

const nilguardBase, nilguardHead = "../../handlers/testdata/nilguard/base", "../../handlers/testdata/nilguard/head"

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// peakTrees samples what the debate's tree directories (debatebot-trees-* in the temporary
// directory, pointed at one of the test's own) take on disk until stop, and returns the peak
// allocated bytes and whether trees were seen at all.
func peakTrees(t *testing.T) (stop func() (int64, bool)) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithCancel(context.Background())
	var peak int64
	seen := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			dirs, _ := filepath.Glob(filepath.Join(tmp, "debatebot-trees-*"))
			var n int64
			files := 0
			for _, d := range dirs {
				_ = filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
					if err != nil || e.IsDir() {
						return nil
					}
					if info, err := e.Info(); err == nil {
						files++
						n += info.Size()
						if st, ok := info.Sys().(*syscall.Stat_t); ok {
							n = n - info.Size() + max(st.Blocks*512, info.Size())
						}
					}
					return nil
				})
			}
			peak, seen = max(peak, n), seen || files > 0
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return func() (int64, bool) {
		cancel()
		<-done
		return peak, seen
	}
}

// `debate --git` over a range that lists one 32 MiB blob of zeros under 32 paths writes trees of a
// few KB (the blobs are over the 1 MiB the analyzers read, and left out, which the transcript
// says); one whose .gitattributes says `*.go export-ignore` still has its Go package analysed.
func TestDebateGitRangeTreesAreBounded(t *testing.T) {
	t.Run("blob bomb", func(t *testing.T) {
		dir := gittest.FromTrees(t, nilguardBase, nilguardHead)
		var paths []string
		for i := range 32 {
			paths = append(paths, fmt.Sprintf("assets/blob%02d.bin", i))
		}
		gittest.CommitBlob(t, dir, io.LimitReader(zeroReader{}, 32<<20), paths)
		stop := peakTrees(t)
		start := time.Now()
		code, md, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir)
		peak, seen := stop()
		t.Logf("debate --git of the blob bomb: peak %d bytes of trees on disk, %v", peak, time.Since(start))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !seen || peak > 1<<20 {
			t.Errorf("trees seen: %v, peak %d bytes; want the nilguard tree alone (under 1 MiB)", seen, peak)
		}
		for _, want := range []string{"32 file(s) larger than 1024 KiB left out of the trees", "| `api/user.go:19` | nilness |", "of 1 package(s) in base and head: example.com/shop/api"} {
			if !strings.Contains(md, want) {
				t.Errorf("transcript lacks %q", want)
			}
		}
		if t.Failed() {
			t.Logf("transcript:\n%s", md)
		}
	})
	t.Run("export-ignore", func(t *testing.T) {
		head := t.TempDir()
		gittest.CopyTree(t, nilguardHead, head)
		if err := os.WriteFile(filepath.Join(head, ".gitattributes"), []byte("*.go export-ignore\n* export-subst\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := gittest.FromTrees(t, nilguardBase, head)
		code, md, errOut := runCmd(t, "", nil, "debate", "--git", "main..feature", "--dir", dir)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{"| `api/user.go:19` | nilness |", "of 1 package(s) in base and head: example.com/shop/api; 1 new finding(s)"} {
			if !strings.Contains(md, want) {
				t.Errorf("transcript lacks %q:\n%s", want, md)
			}
		}
	})
}
