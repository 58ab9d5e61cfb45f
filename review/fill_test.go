package review_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/pull/pulltest"
)

// The head content read for one pull request is bounded over all its files: once it reaches
// MaxContentBytes, the file that would pass it and every file after it are analysed from their
// diff (their hunks kept), no further file is requested, and one note names them.
func TestFillContentsBoundsAllFiles(t *testing.T) {
	const files = 45
	fit := review.MaxContentBytes / review.DefaultMaxFileBytes // files of the largest size read whole
	// Each file is exactly as large as one file may be, so that only the total bound applies.
	content := "package p // x\n" + strings.Repeat("/", review.DefaultMaxFileBytes-len("package p // x\n")-1) + "\n"
	var diff strings.Builder
	tree := map[string]string{}
	for i := range files {
		name := fmt.Sprintf("f%02d.go", i)
		fmt.Fprintf(&diff, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-package p\n+package p // x\n", name, name, name, name)
		tree[name] = content
	}
	c, err := review.ParseDiff([]byte(diff.String()), "test")
	if err != nil {
		t.Fatal(err)
	}
	c.HeadSHA = "h1"
	gh := &pulltest.Fake{Trees: map[string]map[string]string{"h1": tree}}
	review.FillContents(context.Background(), gh, fakePR, c)

	var read, total int
	var past []string
	for _, f := range c.Files {
		if f.HasContent {
			read++
			total += len(f.Content)
			continue
		}
		past = append(past, f.Path)
		if len(f.Hunks) == 0 {
			t.Errorf("%s lost its diff", f.Path)
		}
	}
	if read != fit || total > review.MaxContentBytes {
		t.Errorf("read %d files, %d bytes; want %d files within %d bytes", read, total, fit, review.MaxContentBytes)
	}
	if len(past) != files-fit || past[0] != fmt.Sprintf("f%02d.go", fit) {
		t.Fatalf("analysed from their diff: %q; want the last %d files", past, files-fit)
	}
	// The file that passed the bound was read to learn its size; none after it was requested.
	if n := gh.Count("File "); n != fit+1 {
		t.Errorf("%d files requested, want %d", n, fit+1)
	}
	want := fmt.Sprintf("%d files analysed from their diff only, the head content read having reached 32 MiB: %s and %d more",
		files-fit, strings.Join(past[:10], ", "), files-fit-10)
	if len(c.Notes) != 1 || c.Notes[0] != want {
		t.Errorf("notes = %q, want [%q]", c.Notes, want)
	}
}
