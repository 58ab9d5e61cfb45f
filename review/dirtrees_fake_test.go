package review_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/pull/pulltest"
)

// goChange is a change of the Go files at paths.
func goChange(paths ...string) *change.Change {
	c := &change.Change{}
	for _, p := range paths {
		c.Files = append(c.Files, &change.File{Path: p})
	}
	return c
}

// readTree returns the files under dir, by slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// The changed packages' directories are read at both commits: their Go files (not the others, not
// the subdirectories) and the nearest go.mod above them; a package added at head is missing at
// base, which is no error; a Go file over the size limit is left out at both sides and said.
func TestDirTreesFromFake(t *testing.T) {
	big := strings.Repeat("x", review.DefaultMaxFileBytes+1)
	gh := &pulltest.Fake{Trees: map[string]map[string]string{
		"base": {"go.mod": "module acme\n", "pkg/a/a.go": "package a\n", "pkg/a/README.md": "a", "pkg/a/sub/s.go": "package sub\n", "pkg/a/gen.go": big},
		"head": {"go.mod": "module acme\n", "pkg/a/a.go": "package a // x\n", "pkg/b/b.go": "package b\n", "pkg/a/gen.go": big},
	}}
	c := goChange("pkg/a/a.go", "pkg/b/b.go")
	base, head := t.TempDir(), t.TempDir()
	left, err := review.DirTrees(context.Background(), gh, fakePR, c, "base", "head", base, head)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{fmt.Sprintf("pkg/a/gen.go (larger than %d KiB)", review.DefaultMaxFileBytes>>10)}; !slices.Equal(left, want) {
		t.Errorf("left out = %q, want %q", left, want)
	}
	wantBase := map[string]string{"go.mod": "module acme\n", "pkg/a/a.go": "package a\n"}
	wantHead := map[string]string{"go.mod": "module acme\n", "pkg/a/a.go": "package a // x\n", "pkg/b/b.go": "package b\n"}
	for _, side := range []struct {
		dir  string
		want map[string]string
	}{{base, wantBase}, {head, wantHead}} {
		if got := readTree(t, side.dir); fmt.Sprint(got) != fmt.Sprint(side.want) {
			t.Errorf("tree = %q, want %q", got, side.want)
		}
	}
	if n := gh.Count("File go.mod@"); n != 2 {
		t.Errorf("go.mod read %d times, want once a commit", n)
	}
}

// A go.mod in the package's own directory is its module's: nothing above it is read.
func TestDirTreesModuleInTheDirectory(t *testing.T) {
	gh := &pulltest.Fake{Trees: map[string]map[string]string{
		"base": {"tools/go.mod": "module tools\n", "tools/t.go": "package tools\n"},
		"head": {"tools/go.mod": "module tools\n", "tools/t.go": "package tools // x\n"},
	}}
	if _, err := review.DirTrees(context.Background(), gh, fakePR, goChange("tools/t.go"), "base", "head", t.TempDir(), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for _, call := range gh.Calls() {
		if strings.HasPrefix(call, "File go.mod@") || strings.HasPrefix(call, "Dir @") {
			t.Errorf("%s: the package's own go.mod is its module's", call)
		}
	}
	if n := gh.Count("File tools/go.mod@"); n != 2 {
		t.Errorf("tools/go.mod read %d times, want once a commit", n)
	}
}

func TestDirTreesRefusesFromFake(t *testing.T) {
	many := make([]string, 21)
	for i := range many {
		many[i] = fmt.Sprintf("p%d/x.go", i)
	}
	for name, tc := range map[string]struct {
		fake *pulltest.Fake
		c    *change.Change
		want string
	}{
		"too many directories": {&pulltest.Fake{}, goChange(many...), "more than the 20 read without whole trees"},
		"no Go file":           {&pulltest.Fake{Trees: map[string]map[string]string{"base": {}, "head": {}}}, goChange("a/a.go"), "hold no Go file at either commit"},
		"list fails": {&pulltest.Fake{
			Trees:  map[string]map[string]string{"base": {"a/a.go": "package a\n"}},
			Errors: map[string]error{"Dir a@base": pulltest.Status(http.StatusInternalServerError, "boom")},
		}, goChange("a/a.go"), "failed to list a of acme/shop#7 at base"},
		"read fails": {&pulltest.Fake{
			Trees:  map[string]map[string]string{"base": {"go.mod": "module m\n", "a/a.go": "package a\n"}},
			Errors: map[string]error{"File a/a.go@base": pulltest.Status(http.StatusInternalServerError, "boom")},
		}, goChange("a/a.go"), "failed to read a/a.go of acme/shop#7 at base"},
		"undecodable": {&pulltest.Fake{
			Trees:  map[string]map[string]string{"base": {"go.mod": "module m\n", "a/a.go": "package a\n"}},
			Errors: map[string]error{"File a/a.go@base": &review.DecodeError{Err: fmt.Errorf("illegal base64 data")}},
		}, goChange("a/a.go"), "failed to decode a/a.go of acme/shop#7 at base"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := review.DirTrees(context.Background(), tc.fake, fakePR, tc.c, "base", "head", t.TempDir(), t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
