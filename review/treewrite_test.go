package review

import (
	"strings"
	"testing"
)

func TestParseTreeRecordWritesRegularLocalFilesOnly(t *testing.T) {
	sha := strings.Repeat("a", 40)
	for rec, want := range map[string]bool{
		"100644 blob " + sha + "      12\tapi/user.go":   true,
		"100755 blob " + sha + "      12\tbin/run.sh":    true,
		"120000 blob " + sha + "      12\tlink":          false, // a link
		"160000 commit " + sha + "       -\tsub":         false, // a submodule
		"100644 blob " + sha + "      12\t../escape.go":  false,
		"100644 blob " + sha + "      12\t/abs.go":       false,
		"100644 blob " + sha + "      12\ta/.git/config": false,
		"100644 blob " + sha + "      12\ta/.GIT/hooks":  false,
		"100644 blob " + sha + "      12\ta\\..\\b.go":   false,
	} {
		f, ok, err := parseTreeRecord(rec)
		if err != nil || ok != want {
			t.Errorf("parseTreeRecord(%q) = %+v, %v, %v; want written %v", rec, f, ok, err, want)
		}
	}
	if _, _, err := parseTreeRecord("100644 blob " + sha + " many\tx"); err == nil {
		t.Error("a record without a size was accepted")
	}
}

func listing(files ...treeFile) *treeListing {
	l := &treeListing{files: files}
	for _, f := range files {
		l.count++
		l.bytes += f.size
	}
	return l
}

// Past the budget, base and head fall back alike: the changed directories, then the module files
// and the changed files that fit, source first.
func TestPlanTreesFallsBackAlike(t *testing.T) {
	base := listing(treeFile{path: "go.mod", size: 10}, treeFile{path: "api/a.go", size: 100}, treeFile{path: "other/o.go", size: 500})
	head := listing(treeFile{path: "go.mod", size: 10}, treeFile{path: "api/a.go", size: 120}, treeFile{path: "api/big.bin", size: 400}, treeFile{path: "other/o.go", size: 500})
	places := placesOf([]string{"api/a.go", "api/big.bin"})
	names := func(fs []treeFile) string {
		var n []string
		for _, f := range fs {
			n = append(n, f.path)
		}
		return strings.Join(n, " ")
	}
	for _, tc := range []struct {
		maxBytes         int64
		base, head, note string
	}{
		{10_000, "go.mod api/a.go other/o.go", "go.mod api/a.go api/big.bin other/o.go", ""},
		{1000, "go.mod api/a.go", "go.mod api/a.go api/big.bin", "only the changed files' directories"},
		{300, "go.mod api/a.go", "go.mod api/a.go", "(1 changed file(s) left out)"},
	} {
		sel, notes, err := planTrees(base, head, places, TreeLimits{MaxBytes: tc.maxBytes, MaxFiles: 100})
		if err != nil {
			t.Fatalf("budget %d: %v", tc.maxBytes, err)
		}
		if names(sel.base) != tc.base || names(sel.head) != tc.head || sel.bytes > tc.maxBytes {
			t.Errorf("budget %d: base %q, head %q (%d bytes); want %q, %q", tc.maxBytes, names(sel.base), names(sel.head), sel.bytes, tc.base, tc.head)
		}
		if got := strings.Join(notes, "; "); !strings.Contains(got, tc.note) || (tc.note == "") != (got == "") {
			t.Errorf("budget %d: notes %q, want %q", tc.maxBytes, got, tc.note)
		}
	}
	if _, _, err := planTrees(base, head, places, TreeLimits{MaxBytes: 15, MaxFiles: 100}); err == nil || !strings.Contains(err.Error(), "the module files alone hold") {
		t.Errorf("module files over the budget: err %v", err)
	}
}
