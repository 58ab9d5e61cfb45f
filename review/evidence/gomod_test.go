package evidence

import (
	"context"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"golang.org/x/tools/go/packages"
)

// shopTree writes a module whose api.Describe dereferences a nil user, with goMod as its go.mod,
// under root/tree, and returns the tree's directory.
func shopTree(t *testing.T, root, goMod string) string {
	t.Helper()
	tree := filepath.Join(root, "tree")
	changetest.Write(t, filepath.Join(tree, "go.mod"), goMod)
	changetest.Write(t, filepath.Join(tree, "api", "user.go"), "package api\n\ntype User struct{ Name string }\n\nfunc Describe(u *User) string {\n\tif u == nil {\n\t\treturn u.Name\n\t}\n\treturn u.Name\n}\n")
	return tree
}

// A replacement leading out of the tree, by its path or through a symbolic link, is not read:
// the module it names resolves like a missing dependency, the package is still analysed, and
// nothing reported names the directory outside.
func TestReplaceOutsideTreeIsNotRead(t *testing.T) {
	for name, target := range map[string]string{"path": "../outside", "absolute": "", "link": "./link"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			outside := filepath.Join(root, "outside")
			changetest.Write(t, filepath.Join(outside, "go.mod"), "module example.com/evil\n\ngo 1.22\n")
			changetest.Write(t, filepath.Join(outside, "evil.go"), "package evil\n\nfunc Secret() string { return \"s\" }\n")
			if target == "" {
				target = outside
			}
			tree := shopTree(t, root, "module example.com/shop\n\ngo 1.22\n\nrequire example.com/evil v0.0.0\n\nreplace example.com/evil => "+target+"\n")
			if err := os.Symlink(outside, filepath.Join(tree, "link")); err != nil {
				t.Fatal(err)
			}
			changetest.Write(t, filepath.Join(tree, "reader", "reader.go"), "package reader\n\nimport \"example.com/evil\"\n\nvar _ = evil.Secret\n")
			rep, err := AnalyzeTree(context.Background(), tree, []string{"api/user.go", "reader/reader.go"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(rep.Packages, "example.com/shop/api") {
				t.Errorf("Packages = %v", rep.Packages)
			}
			if !hasFinding(rep.Findings, "nilness", "api/user.go", 7) {
				t.Errorf("the nil dereference is not found: %+v", rep.Findings)
			}
			if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "go.mod: replacement example.com/evil => "+filepath.ToSlash(target)+" refused") {
				t.Errorf("Notes = %q", rep.Notes)
			}
			// The module is not read: the package importing it does not type-check.
			if len(rep.Degraded) == 0 || rep.Degraded[0].Package != "example.com/shop/reader" || !strings.Contains(rep.Degraded[0].Reason, "could not import example.com/evil") {
				t.Errorf("the unresolved import does not degrade the package: %+v", rep.Degraded)
			}
			for _, d := range rep.Degraded {
				if strings.Contains(d.Reason, root) || strings.Contains(d.Reason, os.TempDir()) {
					t.Errorf("a host path is reported: %q", d.Reason)
				}
			}
			if data, _ := os.ReadFile(filepath.Join(tree, "go.mod")); !strings.Contains(string(data), "replace example.com/evil") {
				t.Errorf("the tree's go.mod was written:\n%s", data)
			}
		})
	}
}

// A replacement inside the tree is kept, and the go line of the module it names is lowered too.
func TestReplaceInsideTreeKept(t *testing.T) {
	root := t.TempDir()
	tree := shopTree(t, root, "module example.com/shop\n\ngo 1.99\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ./lib\n")
	changetest.Write(t, filepath.Join(tree, "lib", "go.mod"), "module example.com/lib\n\ngo 1.99\n")
	changetest.Write(t, filepath.Join(tree, "lib", "lib.go"), "package lib\n\nfunc Get() *int { return nil }\n")
	changetest.Write(t, filepath.Join(tree, "api", "lib.go"), "package api\n\nimport \"example.com/lib\"\n\nfunc Deref() int { return *lib.Get() }\n")
	rep, err := AnalyzeTree(context.Background(), tree, []string{"api/user.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Degraded) != 0 || strings.Join(rep.Packages, " ") != "example.com/shop/api" {
		t.Errorf("Packages = %v, Degraded = %+v", rep.Packages, rep.Degraded)
	}
	notes := strings.Join(rep.Notes, "\n")
	for _, want := range []string{"go.mod asks for go 1.99", "lib/go.mod asks for go 1.99"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q: %q", want, rep.Notes)
		}
	}
}

// A go.mod the change breaks hides the package: the finding is at the line the go command
// complains of, and it names no host path.
func TestBrokenGoModIsABlindingFinding(t *testing.T) {
	t.Run("temporary directory elsewhere", func(t *testing.T) { brokenGoModIsABlindingFinding(t, t.TempDir()) })
	// serve points TMPDIR into its workspace, beside the trees: the go command then names the
	// analysis copy of go.mod by a relative path, which must not be reported either.
	t.Run("temporary directory beside the tree", func(t *testing.T) {
		root := t.TempDir()
		tmp := filepath.Join(root, "tmp")
		if err := os.MkdirAll(tmp, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", tmp)
		brokenGoModIsABlindingFinding(t, root)
	})
}

func brokenGoModIsABlindingFinding(t *testing.T, root string) {
	base := shopTree(t, filepath.Join(root, "base"), "module example.com/shop\n\ngo 1.22\n")
	head := shopTree(t, filepath.Join(root, "head"), "module example.com/shop\n\ngo 1.22\n\nnonsense here\n")
	res, err := Run(context.Background(), Options{BaseDir: base, HeadDir: head, Files: []string{"api/user.go"}})
	if err != nil {
		t.Fatal(err)
	}
	var blind *scan.Finding
	for i, f := range res.New {
		if f.Rule == rules.RuleAnalysisBlinded {
			blind = &res.New[i]
		}
	}
	if blind == nil || blind.Path != "go.mod" || blind.Line != 5 {
		t.Fatalf("blinding finding = %+v, want one at go.mod:5; new: %+v", blind, res.New)
	}
	for _, text := range append([]string{blind.Message, typedGoNote(res, typedFamilies)}, res.Notes...) {
		if strings.Contains(text, root) || strings.Contains(text, "debatebot-gomod-") {
			t.Errorf("a host path is reported: %q", text)
		}
	}
}

// A package that is gone from head is no blinding.
func TestDeletedPackageIsNotBlinding(t *testing.T) {
	root := t.TempDir()
	base := shopTree(t, filepath.Join(root, "base"), "module example.com/shop\n\ngo 1.22\n")
	head := filepath.Join(root, "head")
	changetest.Write(t, filepath.Join(head, "go.mod"), "module example.com/shop\n\ngo 1.22\n")
	res, err := Run(context.Background(), Options{BaseDir: base, HeadDir: head, Files: []string{"api/user.go"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.New {
		if f.Rule == rules.RuleAnalysisBlinded {
			t.Errorf("a deleted package is reported as hidden: %+v", f)
		}
	}
}

func TestPathScrubber(t *testing.T) {
	var p scan.PathScrubber
	p.Add("/work/trees/head", "")
	p.Add("/work/trees/head/.scratch/0", "sub")
	tmp := filepath.Clean(os.TempDir())
	for in, want := range map[string]string{
		"/work/trees/head/api/user.go:3:1: x":                 "api/user.go:3:1: x",
		"open /work/trees/head: denied":                       "open .: denied",
		"/work/trees/head/.scratch/0/go.mod:4: unknown":       "sub/go.mod:4: unknown",
		"failed to make " + tmp + "/debatebot-trees-9/head/a": "failed to make a",
		"cut " + tmp + "/debatebot-tre…":                      "cut …",
		"/work/trees/header.go stays":                         "/work/trees/header.go stays",
	} {
		if got := p.Clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func hasFinding(fs []scan.Finding, rule, path string, line int) bool {
	for _, f := range fs {
		if f.Rule == rule && f.Path == path && f.Line == line {
			return true
		}
	}
	return false
}

// A file the change takes out of its package with a build constraint hides what it does: a
// finding at the constraint, while the rest of the package is still analysed.
func TestExcludedFileIsABlindingFinding(t *testing.T) {
	root := t.TempDir()
	base := shopTree(t, filepath.Join(root, "base"), "module example.com/shop\n\ngo 1.22\n")
	changetest.Write(t, filepath.Join(base, "api", "admin.go"), "package api\n\nfunc Admin(u *User) bool { return u != nil && u.Name == \"root\" }\n")
	head := shopTree(t, filepath.Join(root, "head"), "module example.com/shop\n\ngo 1.22\n")
	changetest.Write(t, filepath.Join(head, "api", "admin.go"), "// Admin is off.\n\n//go:build ignore\n\npackage api\n\nfunc Admin(u *User) bool { return true }\n")
	res, err := Run(context.Background(), Options{BaseDir: base, HeadDir: head, Files: []string{"api/admin.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if !hasFinding(res.New, rules.RuleAnalysisBlinded, "api/admin.go", 3) {
		t.Errorf("no blinding finding at api/admin.go:3: %+v", res.New)
	}
	if strings.Join(res.Packages, " ") != "example.com/shop/api" {
		t.Errorf("Packages = %v", res.Packages)
	}
}

// A cgo file that imports what no other file of its package does is type-checked with that
// import loaded for it; the nil dereference in it is found, and the function calling C is
// analysed by its declaration only.
func TestCgoFileWithItsOwnImports(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tree")
	changetest.Write(t, filepath.Join(tree, "go.mod"), "module example.com/c\n\ngo 1.22\n")
	changetest.Write(t, filepath.Join(tree, "p", "plain.go"), "package p\n\n// T is plain.\ntype T struct{ S string }\n")
	changetest.Write(t, filepath.Join(tree, "p", "c.go"), "package p\n\n// #include <stdlib.h>\nimport \"C\"\n\nimport (\n\t\"strings\"\n\t\"unsafe\"\n)\n\nfunc Upper(t *T) string {\n\tif t == nil {\n\t\treturn strings.ToUpper(t.S)\n\t}\n\treturn t.S\n}\n\nfunc Free(p unsafe.Pointer) { C.free(p) }\n")
	rep, err := AnalyzeTree(context.Background(), tree, []string{"p/c.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Packages, " ") != "example.com/c/p" || len(rep.Degraded) != 0 {
		t.Errorf("Packages = %v, Degraded = %+v", rep.Packages, rep.Degraded)
	}
	if !hasFinding(rep.Findings, "nilness", "p/c.go", 13) {
		t.Errorf("the nil dereference in the cgo file is not found: %+v", rep.Findings)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], `example.com/c/p: 1 file(s) importing "C" type-checked without compiling C (names from C are untyped; 1 function(s) using them analysed by their declarations only)`) {
		t.Errorf("Notes = %q", rep.Notes)
	}
}

// A package with a stub for builds without cgo ("//go:build !cgo") declaring what its cgo file
// declares is type-checked as a build with cgo on compiles it: the stub is left out, so nothing
// is declared twice; without a stub, every plain file stays.
func TestCgoStubIsLeftOut(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tree")
	changetest.Write(t, filepath.Join(tree, "go.mod"), "module example.com/c\n\ngo 1.22\n")
	changetest.Write(t, filepath.Join(tree, "p", "plain.go"), "package p\n\n// Name names the driver.\nconst Name = \"c\"\n")
	changetest.Write(t, filepath.Join(tree, "p", "c.go"), "package p\n\n// #include <stdlib.h>\nimport \"C\"\n\n// Driver is the real driver.\ntype Driver struct{ n int }\n\n// Open opens.\nfunc (d *Driver) Open() int { return d.n + len(Name) }\n")
	changetest.Write(t, filepath.Join(tree, "p", "stub.go"), "//go:build !cgo\n\npackage p\n\n// Driver is unavailable without cgo.\ntype Driver struct{}\n\n// Open fails.\nfunc (d *Driver) Open() int { return -1 }\n")
	rep, err := AnalyzeTree(context.Background(), tree, []string{"p/c.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Packages, " ") != "example.com/c/p" || len(rep.Degraded) != 0 {
		t.Errorf("with a !cgo stub: Packages = %v, Degraded = %+v", rep.Packages, rep.Degraded)
	}
	if err := os.Remove(filepath.Join(tree, "p", "stub.go")); err != nil {
		t.Fatal(err)
	}
	rep, err = AnalyzeTree(context.Background(), tree, []string{"p/c.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Degraded) != 0 || !rep.files["p/plain.go"] || !rep.files["p/c.go"] {
		t.Errorf("without a stub: Degraded = %+v, files %v", rep.Degraded, rep.files)
	}
}

// A function of a cgo file using a field of a C type without naming C (converting it to
// unsafe.Pointer) is analysed by its declaration only, and the package type-checks; a
// function using only Go types keeps its body.
func TestCgoInvalidTypeIsStubbed(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tree")
	changetest.Write(t, filepath.Join(tree, "go.mod"), "module example.com/c\n\ngo 1.22\n")
	changetest.Write(t, filepath.Join(tree, "p", "c.go"), "package p\n\n// #include <stdlib.h>\nimport \"C\"\n\nimport \"unsafe\"\n\n// Rows hold C values.\ntype Rows struct {\n\tvals **C.char\n\tn    int\n}\n\n// Raw is the values' address.\nfunc (r *Rows) Raw() unsafe.Pointer { return unsafe.Pointer(r.vals) }\n\n// Len counts.\nfunc (r *Rows) Len() int { return r.n }\n")
	rep, err := AnalyzeTree(context.Background(), tree, []string{"p/c.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if full, changed := rep.TypeCoverage(); full != 1 || changed != 1 {
		t.Errorf("%d/%d fully type-checked, want 1/1: Degraded = %+v", full, changed, rep.Degraded)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "1 function(s) using them analysed by their declarations only") {
		t.Errorf("Notes = %q", rep.Notes)
	}
}

// A panic while the cgo files are type-checked again (in the type checker, or in what it
// calls) is an error for their package, which is left as it was: the analysis goes on.
func TestCgoFilesPanicIsAnError(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "c.go")
	changetest.Write(t, name, "package p\n\nimport \"C\"\n\nimport \"strings\"\n\nvar _ = strings.ToUpper\n")
	pkg := &packages.Package{Name: "p", PkgPath: "example.com/p", Fset: token.NewFileSet(), IgnoredFiles: []string{name}}
	res, err := addCgoFiles(pkg, []string{name}, nil, func([]string) (map[string]*types.Package, error) { panic("hostile") })
	if err == nil || !strings.Contains(err.Error(), "panicked: hostile") || res.files != 0 {
		t.Errorf("addCgoFiles = %+v, %v; want the panic as an error", res, err)
	}
	if len(pkg.GoFiles) != 0 || len(pkg.IgnoredFiles) != 1 || pkg.Types != nil {
		t.Errorf("the package was changed: %+v", pkg)
	}
}
