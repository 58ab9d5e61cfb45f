package gomod

import (
	"go/version"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/mod/modfile"
)

// FuzzSanitizeGoMod feeds go.mod text of any shape to the sanitiser: it never panics, and what it
// writes parses again with no go line newer than the toolchain, no toolchain or godebug line, and
// no replacement whose local path leaves the tree. Run it with
// go test ./review/evidence/gomod/ -run '^$' -fuzz FuzzSanitizeGoMod -fuzztime=2m -parallel=1.
func FuzzSanitizeGoMod(f *testing.F) {
	for _, seed := range []string{
		"module example.com/m\n\ngo 1.22\n",
		"module example.com/m\n\ngo 1.99\n\ntoolchain go1.99.1\n\ngodebug panicnil=1\n",
		"module example.com/m\n\ngo 1.22\n\nrequire example.com/x v0.0.0\n\nreplace example.com/x => ../../../../etc\n",
		"module example.com/m\n\ngo 1.22\n\nreplace (\n\texample.com/x v1.0.0 => ./x\n\texample.com/y => /etc\n\texample.com/z => example.com/w v1.2.3\n\texample.com/l => ./link/..\n)\n",
		"module example.com/m\n\ngo 1.21rc1\n\ngodebug (\n\tdefault=go1.21\n\tx=1\n)\n",
		"module \"example.com/m\"\n\ngo 1.22.0\n\nexclude example.com/x v1.0.0\n\nretract v1.0.0\n\ntool example.com/t\n\nignore ./vendor\n",
		"go 99999999999999999999\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	root := f.TempDir()
	modDir := filepath.Join(root, "sub")
	if err := os.MkdirAll(filepath.Join(modDir, "x"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(modDir, "link")); err != nil {
		f.Fatal(err)
	}
	const toolchain = "go1.26.8"
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := Sanitize("sub/go.mod", data, root, modDir, toolchain)
		if err != nil {
			return // the go command reports what it does not parse
		}
		mf, err := modfile.Parse("out.mod", out, nil)
		if err != nil {
			t.Fatalf("the sanitised go.mod does not parse: %v\n%s", err, out)
		}
		if mf.Go != nil && version.Compare("go"+mf.Go.Version, toolchain) > 0 {
			t.Errorf("go line %s is newer than the toolchain", mf.Go.Version)
		}
		if mf.Toolchain != nil || len(mf.Godebug) > 0 {
			t.Errorf("toolchain or godebug lines left:\n%s", out)
		}
		for _, r := range mf.Replace {
			if !modfile.IsDirectoryPath(r.New.Path) {
				continue
			}
			if _, ok := InsideTree(root, modDir, r.New.Path); !ok {
				t.Errorf("replacement %s => %s leaves the tree", r.Old.Path, r.New.Path)
			}
		}
	})
}
