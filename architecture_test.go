// The checks of the repository's structure that ARCHITECTURE.md describes: each fails with the
// places that break it, so the structure stays as the map says.
package debatebot_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/debatebot/debatebot"

// Limits of the structure.
const (
	maxFuncLines       = 80   // any non-test function, declaration line to closing brace
	maxPackageShare    = 0.30 // of the repository's non-test lines, for any one package
	maxBinaryLines     = 900  // cmd/debatebot: flags and wiring
	maxEventFileLines  = 150  // each webhook event handler's file
	architectureMapDoc = "ARCHITECTURE.md"
)

// goFile is one parsed non-generated Go file of the repository.
type goFile struct {
	path  string // slash-separated, relative to the repository's root
	dir   string // the package's directory, relative ("." for the root)
	lines int
	test  bool
	fset  *token.FileSet
	ast   *ast.File
}

// parsed holds the repository's files, read once for all the checks.
var parsed = sync.OnceValues(parseRepo)

func repoFiles(t *testing.T) []goFile {
	t.Helper()
	files, err := parsed()
	if err != nil {
		t.Fatalf("failed to read the repository: %v", err)
	}
	return files
}

func parseRepo() ([]goFile, error) {
	var files []goFile
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, goFile{
			path: filepath.ToSlash(p), dir: filepath.ToSlash(filepath.Dir(p)), lines: strings.Count(string(src), "\n"),
			test: strings.HasSuffix(p, "_test.go"), fset: fset, ast: f,
		})
		return nil
	})
	return files, err
}

// testSupport tells the packages that exist for tests (the GitHub, model and git fakes).
func testSupport(dir string) bool { return strings.HasSuffix(dir, "test") }

func TestNoLongFunctions(t *testing.T) {
	for _, f := range repoFiles(t) {
		if f.test || testSupport(f.dir) {
			continue
		}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := f.fset.Position(fn.End()).Line - f.fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: %s is %d lines (at most %d): split it into named stages", f.path, funcName(fn), n, maxFuncLines)
			}
		}
	}
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// TestNoReExports: a name lives in one package; no package gives another's name a second home
// (a type alias, or a variable or constant that is only another package's name).
func TestNoReExports(t *testing.T) {
	for _, f := range repoFiles(t) {
		if f.test {
			continue
		}
		project := map[string]bool{} // local names of the project's own imports
		for _, im := range f.ast.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(p, module+"/") {
				continue
			}
			name := filepath.Base(p)
			if im.Name != nil {
				name = im.Name.Name
			}
			project[name] = true
		}
		reexport := func(e ast.Expr) (string, bool) {
			sel, ok := e.(*ast.SelectorExpr)
			if !ok {
				return "", false
			}
			id, ok := sel.X.(*ast.Ident)
			return id.Name + "." + sel.Sel.Name, ok && project[id.Name]
		}
		for _, d := range f.ast.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if name, ok := reexport(s.Type); ok && s.Assign.IsValid() {
						t.Errorf("%s: type %s = %s re-exports another package's type; use it where it lives", f.path, s.Name.Name, name)
					}
				case *ast.ValueSpec:
					for i, v := range s.Values {
						if name, ok := reexport(v); ok && i < len(s.Names) && s.Names[i].IsExported() {
							t.Errorf("%s: %s = %s re-exports another package's name; use it where it lives", f.path, s.Names[i].Name, name)
						}
					}
				}
			}
		}
	}
}

func TestNoPackageHoldsTooMuch(t *testing.T) {
	per, total := map[string]int{}, 0
	for _, f := range repoFiles(t) {
		if f.test {
			continue
		}
		per[f.dir] += f.lines
		total += f.lines
	}
	for dir, n := range per {
		if share := float64(n) / float64(total); share > maxPackageShare {
			t.Errorf("%s holds %d of %d non-test lines (%.0f%%, at most %.0f%%): split it by responsibility", dir, n, total, 100*share, 100*maxPackageShare)
		}
	}
	if n := per["cmd/debatebot"]; n >= maxBinaryLines {
		t.Errorf("cmd/debatebot is %d non-test lines (under %d): the binary is flags and wiring", n, maxBinaryLines)
	}
}

// TestEventHandlersOwnFiles: each webhook event handler (a type with a Handles method) has a file
// of its own, short enough to be only routing.
func TestEventHandlersOwnFiles(t *testing.T) {
	handlersIn := map[string][]string{}
	lines := map[string]int{}
	for _, f := range repoFiles(t) {
		if f.test || f.dir != "handlers" {
			continue
		}
		lines[f.path] = f.lines
		for _, d := range f.ast.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == "Handles" {
				handlersIn[f.path] = append(handlersIn[f.path], funcName(fn))
			}
		}
	}
	if len(handlersIn) == 0 {
		t.Fatal("found no webhook event handler in handlers")
	}
	for path, hs := range handlersIn {
		if len(hs) > 1 {
			t.Errorf("%s holds %d event handlers (%s); give each a file", path, len(hs), strings.Join(hs, ", "))
		}
		if lines[path] > maxEventFileLines {
			t.Errorf("%s is %d lines (at most %d): an event's file only routes", path, lines[path], maxEventFileLines)
		}
	}
}

// TestOnlyServeImportsTheApp: the Action and the CLI run the pipeline without the App's handlers.
func TestOnlyServeImportsTheApp(t *testing.T) {
	for _, f := range repoFiles(t) {
		if f.test || f.dir != "cmd/debatebot" || filepath.Base(f.path) == "serve.go" {
			continue
		}
		for _, im := range f.ast.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == module+"/handlers" || strings.HasPrefix(p, module+"/handlers/") {
				t.Errorf("%s imports %s; only serve.go wires the App", f.path, p)
			}
		}
	}
}

// TestArchitectureMapNamesEveryPackage: ARCHITECTURE.md names each package of the repository.
func TestArchitectureMapNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(architectureMapDoc)
	if err != nil {
		t.Fatalf("the repository's map is missing: %v", err)
	}
	var dirs []string
	for _, f := range repoFiles(t) {
		if f.dir != "." && !slices.Contains(dirs, f.dir) {
			dirs = append(dirs, f.dir)
		}
	}
	for _, dir := range dirs {
		if !strings.Contains(string(doc), fmt.Sprintf("`%s`", dir)) {
			t.Errorf("%s does not name package %s (as `%s`)", architectureMapDoc, dir, dir)
		}
	}
}

// TestNoImportAcrossTheLayers: evidence gathering knows nothing of the debate (no package under
// review/evidence imports toulmin, tests included: findings leave it as scan.Finding, and
// review.Evidence makes the debate's evidence of them); toulmin imports only voting; voting
// imports nothing of the project.
func TestNoImportAcrossTheLayers(t *testing.T) {
	for _, f := range repoFiles(t) {
		for _, im := range f.ast.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(p, module+"/") {
				continue
			}
			if why := layerBreach(f.dir, strings.TrimPrefix(p, module+"/")); why != "" {
				t.Errorf("%s imports %s: %s", f.path, p, why)
			}
		}
	}
}

// layerBreach says why the package in dir may not import imp (both relative to the module), or
// "" when it may.
func layerBreach(dir, imp string) string {
	under := func(p, pkg string) bool { return p == pkg || strings.HasPrefix(p, pkg+"/") }
	switch {
	case under(dir, "review/evidence") && under(imp, "toulmin"):
		return "evidence gathering does not know the debate; return scan.Finding and let review.Evidence make the debate's evidence of it"
	case under(dir, "voting") && !under(imp, "voting"):
		return "voting imports nothing of the project"
	case under(dir, "toulmin") && !under(imp, "toulmin") && !under(imp, "voting"):
		return "toulmin imports only voting"
	}
	return ""
}
