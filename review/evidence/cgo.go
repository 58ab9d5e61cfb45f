package evidence

import (
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/types"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// With cgo off (loading a cgo package runs the C compiler on the author's C code), the go command
// leaves out every file that imports "C": a package of such files is not loaded at all, and one
// import "C" added to a file takes that file out of the analysis. addCgoFiles puts them back for
// the Go code: it parses them and type-checks the package again with go/types' FakeImportC, as
// tools do that see cgo packages without a C compiler. Names from C are untyped; the bodies of
// the functions that use them are left out of the analysis (SSA, which most checks build on,
// cannot be built from untyped expressions), their declarations stay.

// cgoResult says what addCgoFiles did to one package.
type cgoResult struct {
	files int
	// stubbed counts the functions whose bodies were left out because they use C names.
	stubbed int
}

// cgoFiles are the files of pkg the go command ignored only because cgo is off: .go files
// that a build with cgo on would compile. bctx is the build context of the go command's
// environment with cgo on.
func cgoFiles(pkg *packages.Package, bctx *build.Context) []string {
	var out []string
	for _, f := range pkg.IgnoredFiles {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		if ok, err := bctx.MatchFile(filepath.Dir(f), filepath.Base(f)); err == nil && ok {
			out = append(out, f)
		}
	}
	return out
}

// cgoOffFiles are the files of pkg that a build with cgo on leaves out (a stub for builds
// without cgo, "//go:build !cgo"): they declare again what the cgo files declare.
func cgoOffFiles(pkg *packages.Package, bctx *build.Context) map[string]bool {
	out := map[string]bool{}
	for _, f := range pkg.CompiledGoFiles {
		if ok, err := bctx.MatchFile(filepath.Dir(f), filepath.Base(f)); err == nil && !ok {
			out[f] = true
		}
	}
	return out
}

// cgoContext is the build context of the go command's environment env, with cgo on.
func cgoContext(env []string) *build.Context { return buildContext(env, true) }

// buildContext is the build context of the go command's environment env (its GOOS and
// GOARCH), with cgo on or off.
func buildContext(env []string, cgo bool) *build.Context {
	bctx := build.Default
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GOOS":
			bctx.GOOS = v
		case "GOARCH":
			bctx.GOARCH = v
		}
	}
	bctx.CgoEnabled = cgo
	return &bctx
}

// addCgoFiles type-checks pkg again with its cgo files and without the files drop names, which
// a build with cgo on leaves out; load loads, from export data, packages that only the cgo
// files import. It changes pkg in place and returns what it did; on an error
// pkg is left as it was. The type checker runs here on files the go command never checked: a
// panic of it on a hostile file is that error, never a crash of the analysis.
func addCgoFiles(pkg *packages.Package, files []string, drop map[string]bool, load func([]string) (map[string]*types.Package, error)) (res cgoResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = cgoResult{}, fmt.Errorf("type-checking them panicked: %v (%s)", r, firstFrame(debug.Stack()))
		}
	}()
	parsed := make([]*ast.File, 0, len(files))
	for _, name := range files {
		f, err := parser.ParseFile(pkg.Fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return res, fmt.Errorf("failed to parse %s: %w", filepath.Base(name), err)
		}
		if pkg.Name != "" && f.Name.Name != pkg.Name {
			continue // another package's file in the directory: the go command says so
		}
		parsed = append(parsed, f)
	}
	if len(parsed) == 0 {
		return res, nil
	}
	syntax := slices.DeleteFunc(slices.Clone(pkg.Syntax), func(f *ast.File) bool { return drop[pkg.Fset.File(f.Pos()).Name()] })
	syntax = append(syntax, parsed...)
	imports, err := cgoImports(pkg, syntax, load)
	if err != nil {
		return res, err
	}
	tpkg, info, typeErrs := checkCgo(pkg, syntax, imports)
	n, typeErrs := stubInvalid(parsed, typeErrs)
	res.stubbed += n
	for _, f := range parsed {
		res.stubbed += stubCFuncs(f)
		name := pkg.Fset.File(f.Pos()).Name()
		pkg.GoFiles = append(pkg.GoFiles, name)
		pkg.CompiledGoFiles = append(pkg.CompiledGoFiles, name)
		pkg.IgnoredFiles = slices.DeleteFunc(pkg.IgnoredFiles, func(s string) bool { return s == name })
	}
	isDropped := func(name string) bool { return drop[name] }
	pkg.GoFiles = slices.DeleteFunc(pkg.GoFiles, isDropped)
	pkg.CompiledGoFiles = slices.DeleteFunc(pkg.CompiledGoFiles, isDropped)
	res.files = len(parsed)
	if pkg.Name == "" {
		pkg.Name = parsed[0].Name.Name
	}
	pkg.Syntax, pkg.Types, pkg.TypesInfo, pkg.TypeErrors = syntax, tpkg, info, typeErrs
	pkg.IllTyped = len(typeErrs) > 0
	// The go command's complaint that cgo left nothing to build no longer holds.
	pkg.Errors = slices.DeleteFunc(pkg.Errors, func(e packages.Error) bool {
		return strings.Contains(e.Msg, "build constraints exclude all Go files")
	})
	for _, te := range typeErrs {
		pkg.Errors = append(pkg.Errors, packages.Error{Pos: te.Fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
	}
	return res, nil
}

// checkCgo type-checks the files syntax of pkg with names from C faked, importing imports.
func checkCgo(pkg *packages.Package, syntax []*ast.File, imports map[string]*types.Package) (*types.Package, *types.Info, []types.Error) {
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
		Implicits: map[ast.Node]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}, Scopes: map[ast.Node]*types.Scope{},
		Instances: map[*ast.Ident]types.Instance{}, FileVersions: map[*ast.File]string{},
	}
	var typeErrs []types.Error
	conf := types.Config{
		FakeImportC: true,
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			if p, ok := imports[path]; ok && p != nil {
				return p, nil
			}
			return nil, fmt.Errorf("package %s was not loaded", path)
		}),
		Sizes: pkg.TypesSizes,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				typeErrs = append(typeErrs, te)
			}
		},
	}
	if pkg.Module != nil && pkg.Module.GoVersion != "" {
		conf.GoVersion = "go" + pkg.Module.GoVersion
	}
	tpkg, _ := conf.Check(pkg.PkgPath, pkg.Fset, syntax, info)
	return tpkg, info, typeErrs
}

// stubInvalid takes out of files the bodies of the functions where a type error is about a
// value of invalid type (a field or variable of a C type, which the fake C package leaves
// invalid), as stubCFuncs does for those naming C, and returns how many and the other errors.
func stubInvalid(files []*ast.File, errs []types.Error) (int, []types.Error) {
	var bodies []*ast.BlockStmt
	for _, f := range files {
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				bodies = append(bodies, fd.Body)
			}
		}
	}
	body := func(te types.Error) *ast.BlockStmt {
		i := slices.IndexFunc(bodies, func(b *ast.BlockStmt) bool { return b.Pos() <= te.Pos && te.Pos < b.End() })
		if i < 0 {
			return nil
		}
		return bodies[i]
	}
	stub := map[*ast.BlockStmt]bool{}
	for _, te := range errs {
		if b := body(te); b != nil && strings.Contains(te.Msg, "invalid type") {
			stub[b] = true
		}
	}
	var kept []types.Error
	for _, te := range errs {
		if b := body(te); b == nil || !stub[b] {
			kept = append(kept, te)
		}
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && stub[fd.Body] {
				fd.Body = nil
			}
		}
	}
	return len(stub), kept
}

// cgoImports maps the import paths of files to their packages: those pkg already imports, and
// those only the cgo files import, loaded with load. When some are loaded anew, every import is
// taken from that load, so that the types the package sees are one world.
func cgoImports(pkg *packages.Package, files []*ast.File, load func([]string) (map[string]*types.Package, error)) (map[string]*types.Package, error) {
	var paths []string
	missing := false
	for _, f := range files {
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil || p == "C" || p == "unsafe" || slices.Contains(paths, p) {
				continue
			}
			paths = append(paths, p)
			if ip, ok := pkg.Imports[p]; !ok || ip.Types == nil {
				missing = true
			}
		}
	}
	if !missing {
		imports := map[string]*types.Package{}
		for p, ip := range pkg.Imports {
			imports[p] = ip.Types
		}
		return imports, nil
	}
	imports, err := load(paths)
	if err != nil {
		return nil, fmt.Errorf("failed to load what the cgo files import: %w", err)
	}
	return imports, nil
}

// exportLoader loads packages by import path from export data, in the module's environment.
func exportLoader(ctx context.Context, cfg *packages.Config) func([]string) (map[string]*types.Package, error) {
	return func(paths []string) (map[string]*types.Package, error) {
		c := *cfg
		c.Context, c.Mode, c.Tests = ctx, packages.NeedName|packages.NeedTypes|packages.NeedImports, false
		pkgs, err := packages.Load(&c, paths...)
		if err != nil {
			return nil, err
		}
		out := map[string]*types.Package{}
		for _, p := range pkgs {
			if p.Types != nil {
				out[p.PkgPath] = p.Types
			}
		}
		return out, nil
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// stubCFuncs takes out of f the bodies of the functions that use names of package C, and
// returns how many.
func stubCFuncs(f *ast.File) int {
	n := 0
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil || !usesC(fd.Body) {
			continue
		}
		fd.Body = nil
		n++
	}
	return n
}

// usesC reports whether n refers to a name of package C.
func usesC(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "C" {
				found = true
			}
		}
		return !found
	})
	return found
}
