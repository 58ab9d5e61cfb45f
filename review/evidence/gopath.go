package evidence

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// A tree without go.mod (written for GOPATH) is analysed as a module whose go.mod exists only in
// the analysis: its path is the one the tree's import comments give ("package x // import
// "example.com/x""), else the one its own imports of its folders imply (a file importing
// "github.com/o/r/util" in a tree with a util folder says the tree is github.com/o/r), and its
// dependencies are resolved like any module's, at their latest versions.

// syntheticGoLine is the language version of a synthesised module: GOPATH code predates the
// features a newer one would change, and module graph pruning needs 1.17.
const syntheticGoLine = "1.21"

// gopathScanLimit bounds the Go files read to infer a tree's import path.
const gopathScanLimit = 5000

var importComment = regexp.MustCompile(`(?m)^package\s+\w+\s*//\s*import\s+"([^"]+)"`)

// fallbackModulePath names a tree whose path nothing implies.
const fallbackModulePath = "gopath.invalid/tree"

// inferModulePath infers the import path of the tree at root (see above) and says how.
func inferModulePath(root string) (string, string) {
	votes := map[string]int{}
	dirs := map[string]bool{}
	var imports []string
	seen := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "vendor" || name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if rel, err := filepath.Rel(root, p); err == nil && rel != "." {
				dirs[filepath.ToSlash(rel)] = true
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || seen >= gopathScanLimit {
			return nil
		}
		seen++
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		found, imps := fileImports(p)
		if found != "" {
			votes[importRoot(found, filepath.ToSlash(rel))] += 1000
		}
		imports = append(imports, imps...)
		return nil
	})
	how := "from its import comments"
	if len(votes) == 0 {
		how = "from its imports of its own folders"
		for _, imp := range imports {
			for i := strings.Index(imp, "/"); i >= 0; {
				if dirs[imp[i+1:]] {
					votes[imp[:i]]++
				}
				j := strings.Index(imp[i+1:], "/")
				if j < 0 {
					break
				}
				i += j + 1
			}
		}
	}
	best := ""
	keys := make([]string, 0, len(votes))
	for k := range votes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if module.CheckImportPath(k) == nil && (best == "" || votes[k] > votes[best]) {
			best = k
		}
	}
	if best == "" {
		return fallbackModulePath, "as nothing in it names its import path"
	}
	return best, how
}

// importRoot is the tree's root path for a folder rel whose import path is imp.
func importRoot(imp, rel string) string {
	if rel == "." {
		return imp
	}
	return strings.TrimSuffix(imp, "/"+rel)
}

// gopathHeadBytes is how much of a Go file the inference reads: the package clause and imports
// are at the top, and a huge file of a hostile tree must not be read whole.
const gopathHeadBytes = 64 << 10

// fileImports reads a Go file's import comment and imports from its first gopathHeadBytes.
func fileImports(name string) (string, []string) {
	fh, err := os.Open(name)
	if err != nil {
		return "", nil
	}
	data, err := io.ReadAll(io.LimitReader(fh, gopathHeadBytes))
	fh.Close()
	if err != nil {
		return "", nil
	}
	comment := ""
	if m := importComment.FindSubmatch(data); m != nil {
		comment = string(m[1])
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, data, parser.ImportsOnly)
	if err != nil || f == nil {
		return comment, nil
	}
	var out []string
	for _, is := range f.Imports {
		if p, err := strconv.Unquote(is.Path.Value); err == nil && strings.Contains(p, ".") {
			out = append(out, p)
		}
	}
	return comment, out
}

// synthesizeModule writes, in scratch, the go.mod of the analysis of the tree at root, which has
// none, and returns the module copy: the go command finds the module's root through the overlay
// and reads and updates the copy. The go.mod requires the versions the tree's dependency
// manager pinned (see gopins.go), as m's proxy resolves them.
func synthesizeModule(ctx context.Context, root, scratch string, m ModuleSettings) (*modCopy, error) {
	modPath, how := inferModulePath(root)
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return nil, fmt.Errorf("failed to prepare the analysis copy of a go.mod: %w", err)
	}
	pinned, pinNote := synthesizedPins(ctx, root, modPath, m)
	var b strings.Builder
	b.WriteString("module " + modPath + "\n\ngo " + syntheticGoLine + "\n")
	for _, v := range pinned {
		fmt.Fprintf(&b, "\nrequire %s %s", modfile.AutoQuote(v.Path), modfile.AutoQuote(v.Version))
	}
	if len(pinned) > 0 {
		b.WriteString("\n")
	}
	content := []byte(b.String())
	if err := os.WriteFile(filepath.Join(scratch, "go.mod"), content, 0o600); err != nil {
		return nil, fmt.Errorf("failed to write the analysis copy of a go.mod: %w", err)
	}
	return &modCopy{
		flags:   []string{"-modfile=" + filepath.Join(scratch, "go.mod")},
		overlay: map[string][]byte{filepath.Join(root, "go.mod"): content},
		notes: []string{fmt.Sprintf("the tree has no go.mod (written for GOPATH): analysed as module %s (its path inferred %s), %s",
			path.Clean(modPath), how, pinNote)},
	}, nil
}

// synthesizedPins are the requirements of the pins of the tree at root (none when it has no
// dependency manager's file or downloads are off), and the note saying how its dependencies
// were resolved.
func synthesizedPins(ctx context.Context, root, modPath string, m ModuleSettings) ([]module.Version, string) {
	const latest = "its dependencies resolved at their latest versions"
	pins, file, err := readPins(root)
	switch {
	case err != nil:
		return nil, latest + " (" + scan.Clip(err.Error(), 200) + ")"
	case file == "":
		return nil, latest
	case len(pins) == 0:
		return nil, latest + " (" + file + " pins none)"
	case !m.downloads():
		return nil, latest + " (the versions " + file + " pins are resolved only through the module proxy, and downloads are off)"
	}
	reqs, missing := resolvePins(ctx, m, modPath, pins)
	note := fmt.Sprintf("%d of its dependencies at the versions %s pins", len(reqs), file)
	if missing > 0 {
		note += fmt.Sprintf(" (%d pinned ones the module proxy did not resolve)", missing)
	}
	return reqs, note + ", the others at their latest versions"
}
