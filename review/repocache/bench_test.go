package repocache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/gittest"
)

// goRepoTree writes a module of about lines lines of Go: packages of ten files of 1000 lines.
func goRepoTree(b *testing.B, lines int) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/big\n\ngo 1.22\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for file := 0; file*1000 < lines; file++ {
		pkg := fmt.Sprintf("pkg%02d", file/10)
		var src strings.Builder
		fmt.Fprintf(&src, "// Package %s is generated for the benchmark.\npackage %s\n", pkg, pkg)
		for fn := 0; fn < 111; fn++ { // 2 + 111*9 = 1001 lines a file
			fmt.Fprintf(&src, "\n// F%d_%d scales x.\nfunc F%d_%d(x int) int {\n\ty := x * %d\n\tif y > 100 {\n\t\treturn y - 1\n\t}\n\treturn y + 1\n}\n", file, fn, file, fn, fn)
		}
		name := filepath.Join(dir, pkg, fmt.Sprintf("f%03d.go", file))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(src.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkWarmTrees is what whole trees add to a debate once the cache holds the pull request's
// commits: no network, the lock, and writing base and head from git's listing and blobs (about 100,000 lines of Go
// each) into temporary directories, then their removal.
func BenchmarkWarmTrees(b *testing.B) {
	githubtest.RequireGitHTTPBackend(b)
	base := goRepoTree(b, 100_000)
	head := b.TempDir()
	if err := os.MkdirAll(filepath.Join(head, "pkg00"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(head, "pkg00", "f000.go"), []byte("package pkg00\n\n// Changed by the head.\nfunc Changed() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	repo := gittest.FromTrees(b, base, head)
	gh := githubtest.New(b)
	gh.AddGitRepo("acme/big", repo)
	remote := (&fixture{gh: gh}).remoteOf("acme/big")
	c := newCache(b)
	baseSHA, headSHA := gittest.Rev(b, repo, "main"), gittest.Rev(b, repo, "feature")
	ctx := context.Background()
	if _, err := c.Fetch(ctx, remote, baseSHA, headSHA); err != nil {
		b.Fatal(err)
	}
	calls := len(gh.Calls())
	b.ReportAllocs()
	for b.Loop() {
		w, err := c.Trees(ctx, remote, baseSHA, headSHA, []string{"pkg00/f000.go"}, review.DefaultTreeLimits())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(w.Head, "pkg09", "f099.go")); err != nil {
			b.Fatal(err)
		}
		w.Cleanup()
	}
	if n := len(gh.Calls()); n != calls {
		b.Fatalf("a warm Trees made %d requests", n-calls)
	}
}
