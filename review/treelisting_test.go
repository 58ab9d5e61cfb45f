package review

import (
	"fmt"
	"strings"
	"testing"
)

// A hostile listing costs only its budget in memory: millions of files in a changed directory,
// a large blob under millions of paths and paths too long to write are not all held.
func TestReadListingIsBounded(t *testing.T) {
	sha := strings.Repeat("a", 40)
	var rec strings.Builder
	add := func(size int, p string) { fmt.Fprintf(&rec, "100644 blob %s %7d\t%s\x00", sha, size, p) }
	add(10, "go.mod")
	for i := range 1000 {
		add(0, fmt.Sprintf("api/f%d.txt", i))
		add(1<<20, fmt.Sprintf("big/b%d.bin", i))
	}
	add(0, "api/"+strings.Repeat("x", maxTreeName+1))
	add(0, strings.Repeat("d/", maxTreePath/2)+"f")
	add(5, "api/a.go")
	lim := TreeLimits{MaxBytes: 1 << 20, MaxFiles: 10, MaxFileBytes: 1 << 10}
	places := placesOf([]string{"api/a.go"})
	l, err := readListing(strings.NewReader(rec.String()), lim, places)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.files) > 2*lim.MaxFiles+2 || len(l.large) > maxLargeNames || l.largeCount != 1000 || !l.dirsTruncated || l.count != 1002 {
		t.Errorf("kept %d files, %d large names of %d, dirs truncated %v, counted %d", len(l.files), len(l.large), l.largeCount, l.dirsTruncated, l.count)
	}
	kept := map[string]bool{}
	for _, f := range l.files {
		kept[f.path] = true
	}
	if !kept["api/a.go"] || !kept["go.mod"] {
		t.Errorf("the changed file or the module file was dropped: %v", kept)
	}
	sel, notes, err := planTrees(l, l, places, lim)
	if err != nil {
		t.Fatal(err)
	}
	note := strings.Join(notes, "; ")
	for _, want := range []string{"1000 file(s) larger than 1 KiB", "and 995 more", "only the changed files and their module files were written"} {
		if !strings.Contains(note, want) {
			t.Errorf("notes %q lack %q", note, want)
		}
	}
	if sel.files != 4 || len(note) > 2000 {
		t.Errorf("selected %d files, notes of %d bytes", sel.files, len(note))
	}
}
