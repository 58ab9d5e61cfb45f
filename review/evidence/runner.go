package evidence

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/packages"
)

// Degraded says why a package was analysed only in part (or not at all).
type Degraded struct {
	Package string `json:"package"`
	Reason  string `json:"reason"`
}

// TreeReport is what one tree's analysis found.
type TreeReport struct {
	// Packages are the import paths analysed.
	Packages []string
	Degraded []Degraded
	Findings []scan.Finding
	// Notes say what the analysis did to analyse the tree as far as it could (a go line lowered,
	// a replacement refused, cgo files type-checked without C), with tree-relative paths.
	Notes []string
	// dirs are the tree-relative directories of the packages analysed, by import path.
	dirs map[string]string
	// files are the tree-relative files the packages analysed were built from.
	files map[string]bool
	// summary is what protects each function's sensitive calls, for the base/head comparison.
	summary *treeSummary
	// changed are the tree-relative directories of the changed Go files that exist in the tree.
	changed []string
}

// Result is the comparison of base and head.
type Result struct {
	// New are the head's findings that the base does not have, at their head lines.
	New []scan.Finding
	// Preexisting counts head findings already present in the base.
	Preexisting int
	// Packages are the head packages analysed; Degraded those of either tree analysed in part.
	Packages []string
	Degraded []Degraded
	// Notes are what the analysis of either tree did to analyse it as far as it could.
	Notes []string
	Base  *TreeReport
	Head  *TreeReport
}

// Options of a run.
type Options struct {
	// BaseDir and HeadDir are checkouts of the repository at the change's base and head.
	BaseDir, HeadDir string
	// Files are the changed files, slash-separated and relative to the repository's root; only
	// Go files count (a deleted file counts in the base).
	Files []string
	// Env, when set, replaces the environment of the go command's analysis (the default is
	// Env()'s, whose downloads are off: dependencies are downloaded before, see Modules).
	Env []string
	// Modules say how the trees' dependencies are downloaded and cached; nil reads them from
	// the process's environment (ModuleSettingsFromEnv).
	Modules *ModuleSettings
	// Sources are the families of checks to run, by their source (rules.AnalyzerGoVet,
	// rules.AnalyzerStaticcheck, rules.AnalyzerGoLinter, rules.AnalyzerGosec,
	// rules.AnalyzerDebatebot); nil runs every family. The summary of protections runs whatever
	// they are: what is new in head is decided with it (checkedByCallers).
	Sources []string
}

// runs reports whether the options run the checks of source.
func (o Options) runs(source string) bool {
	return o.Sources == nil || slices.Contains(o.Sources, source)
}

// Run analyses the packages the change touches in both trees and reports what is new in head.
func Run(ctx context.Context, opts Options) (*Result, error) {
	m := ModuleSettingsFromEnv(os.Getenv)
	if opts.Modules != nil {
		m = *opts.Modules
	}
	env := opts.Env
	if env == nil {
		env = goEnv(m)
	}
	release, err := m.useCache(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	var base, head *TreeReport
	var baseErr, headErr error
	// The trees load one after the other: the dependencies the first compiles for their export
	// data are in the build cache for the second (their analyses still run side by side).
	var loads sync.Mutex
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		base, baseErr = analyzeTree(ctx, opts.BaseDir, opts.Files, env, m, &loads, opts.runs)
	}()
	head, headErr = analyzeTree(ctx, opts.HeadDir, opts.Files, env, m, &loads, opts.runs)
	wg.Wait()
	if err := errors.Join(baseErr, headErr); err != nil {
		return nil, err
	}
	res := &Result{Packages: head.Packages, Base: base, Head: head}
	// What is new in head: the comparison chain (processors.go).
	cmp := &treeComparison{opts: opts, env: env, base: base, head: head}
	fresh, errs := scan.RunChain(comparisonChain(cmp), head.Findings)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("comparing base and head: %w", err)
	}
	res.New, res.Preexisting = fresh, cmp.preexisting
	for _, n := range append(append([]string(nil), head.Notes...), base.Notes...) {
		if !slices.Contains(res.Notes, n) {
			res.Notes = append(res.Notes, n)
		}
	}
	seen := map[string]bool{}
	for _, d := range append(append([]Degraded(nil), head.Degraded...), base.Degraded...) {
		if !seen[d.Package] {
			seen[d.Package] = true
			res.Degraded = append(res.Degraded, d)
		}
	}
	return res, nil
}

// Env is the go command's environment for analysis of a tree that an untrusted author wrote: no
// network (the dependencies were downloaded before, see gomodules.go; what is missing degrades
// the package that needs it), the shared module cache, no toolchain download (a go.mod's
// toolchain line would fetch and run a program), no workspace of the caller's, and no cgo:
// loading a package with cgo runs the C compiler on the author's C code. The App's own secrets
// (its private key, webhook secret, model key, database URL) are left out, since nothing the go
// command runs needs them.
func Env() []string { return goEnv(ModuleSettingsFromEnv(os.Getenv)) }

// secretEnv reports whether the environment entry kv belongs to the App's configuration or
// credentials rather than to the go command.
func secretEnv(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	for _, prefix := range []string{"DEBATEBOT_", "GITHUB_", "OPENAI_", "AWS_", "GH_"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// AnalyzeTree loads the packages of the directories holding files (those that exist in the tree)
// and runs every check over them.
func AnalyzeTree(ctx context.Context, root string, files []string, env []string) (*TreeReport, error) {
	m := ModuleSettingsFromEnv(os.Getenv)
	if env == nil {
		env = goEnv(m)
	}
	release, err := m.useCache(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return analyzeTree(ctx, root, files, env, m, &sync.Mutex{}, Options{}.runs)
}

// analyzeTree is AnalyzeTree with the module settings m, the caller holding the module cache;
// loads is held while the go command resolves and loads packages, and runs says which families
// of checks run, by source.
func analyzeTree(ctx context.Context, root string, files []string, env []string, m ModuleSettings, loads *sync.Mutex, runs func(source string) bool) (*TreeReport, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("failed to resolve tree %s: %w", root, err)
	}
	rep := &TreeReport{summary: newTreeSummary(abs), dirs: map[string]string{}, files: map[string]bool{}}
	modules, withTests, err := touchedModules(abs, files, rep)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "debatebot-gomod-")
	if err != nil {
		return nil, fmt.Errorf("failed to make a directory for the analysis copies of go.mod: %w", err)
	}
	defer os.RemoveAll(scratch)
	t := &treeRun{ctx: ctx, root: abs, env: env, mods: m, loads: loads, runs: runs, scratch: scratch, rep: rep, bctx: cgoContext(env), scrub: &scan.PathScrubber{}, times: scan.TimingsOf(ctx)}
	t.scrub.Add(abs, "")
	if len(modules) > 0 {
		// Without an answer there is no go command, and loading says so for every package.
		t.goVersion, _ = goVersion(ctx, env, scratch)
	}
	mods := make([]string, 0, len(modules))
	for m := range modules {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for i, mod := range mods {
		if err := t.analyzeModule(mod, i, modules[mod], withTests[mod]); err != nil {
			return nil, err
		}
	}
	t.scrubReport()
	sortFindings(rep.Findings)
	return rep, nil
}

// touchedModules groups the directories of the changed Go files by the module that holds them,
// as load patterns ("./api"); a module whose changed files include tests is loaded with its test
// packages. A directory outside every module belongs to the module synthesised at the tree's
// root (see gopath.go).
func touchedModules(abs string, files []string, rep *TreeReport) (map[string][]string, map[string]bool, error) {
	modules := map[string][]string{}
	withTests := map[string]bool{}
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") || !filepath.IsLocal(filepath.FromSlash(f)) {
			continue
		}
		dir := filepath.Join(abs, filepath.FromSlash(path.Dir(f)))
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		if d := path.Dir(f); !slices.Contains(rep.changed, d) {
			rep.changed = append(rep.changed, d)
		}
		mod, ok := moduleRoot(abs, dir)
		if !ok {
			mod = abs
		}
		rel, err := filepath.Rel(mod, dir)
		if err != nil {
			return nil, nil, fmt.Errorf("failed to place %s in its module: %w", dir, err)
		}
		pattern := "./" + filepath.ToSlash(rel)
		withTests[mod] = withTests[mod] || strings.HasSuffix(f, "_test.go")
		if !slices.Contains(modules[mod], pattern) {
			modules[mod] = append(modules[mod], pattern)
		}
	}
	return modules, withTests, nil
}

func moduleRoot(treeRoot, dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, true
		}
		if d == treeRoot || len(d) <= len(treeRoot) || d == filepath.Dir(d) {
			return "", false
		}
	}
}

const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedTypes | packages.NeedTypesSizes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule

// treeRun is the analysis of one tree.
type treeRun struct {
	ctx  context.Context
	root string // absolute
	env  []string
	mods ModuleSettings
	// loads is held while the go command resolves and loads packages (see Run).
	loads *sync.Mutex
	// runs says which families of checks run, by source (see Options.Sources).
	runs func(source string) bool
	// goVersion is the go command's ("go1.26.8"), empty when it did not say.
	goVersion string
	// scratch holds the analysis copies of the modules' go.mod files.
	scratch string
	// bctx is the go command's build context with cgo on (see cgoFiles).
	bctx  *build.Context
	scrub *scan.PathScrubber
	rep   *TreeReport
	// times are the timings of the run's context (nil: none kept).
	times *scan.Timings
}

// analyzeModule loads the packages patterns of the module at mod (the idx-th of the tree) and
// runs every check over them.
func (t *treeRun) analyzeModule(mod string, idx int, patterns []string, tests bool) error {
	rep := t.rep
	t.loads.Lock()
	cfg, res, err := t.prepare(mod, idx, patterns, tests)
	if err != nil || cfg == nil {
		t.loads.Unlock()
		return err
	}
	start, cpu0 := time.Now(), scan.ChildCPU()
	pkgs, err := packages.Load(cfg, patterns...)
	if _, synthesized := cfg.Overlay[filepath.Join(mod, "go.mod")]; err == nil && synthesized {
		var notes []string
		pkgs, notes = t.olderMajors(cfg, pkgs, patterns, filepath.Join(t.scratch, strconv.Itoa(idx), "go.mod"))
		rep.Notes = append(rep.Notes, notes...)
	}
	t.times.ChildrenSince("go load", start, cpu0)
	t.loads.Unlock()
	if err != nil {
		if t.ctx.Err() != nil {
			return fmt.Errorf("loading packages of %s stopped: %w", relSlash(t.root, mod), t.ctx.Err())
		}
		// go list itself failed (no go command, a broken go.mod): every package is degraded.
		for _, p := range patterns {
			rep.Degraded = append(rep.Degraded, Degraded{Package: p, Reason: "not loaded: " + scan.Clip(t.scrub.Clean(err.Error()), 300)})
		}
		return nil
	}
	// Facts flow from a package to those importing it when both were loaded from source; facts
	// of dependencies read from export data are absent, which the analyzers tolerate.
	facts := newFactStore()
	load := exportLoader(t.ctx, cfg)
	// With tests, a package's files appear in it and in its test variant: a diagnostic is kept
	// once, and a package is named once.
	seenFinding := map[scan.Finding]bool{}
	seenPkg := map[string]bool{}
	for _, pkg := range topo(pkgs) {
		if err := t.ctx.Err(); err != nil {
			return fmt.Errorf("analysis of %s stopped: %w", relSlash(t.root, mod), err)
		}
		if pkg.Name == "main" && strings.HasSuffix(pkg.PkgPath, ".test") {
			continue // the generated test main
		}
		t.withCgo(pkg, load, !seenPkg[pkg.PkgPath])
		if len(pkg.Errors) > 0 && !seenPkg[pkg.PkgPath] {
			rep.Degraded = append(rep.Degraded, Degraded{Package: pkg.PkgPath, Reason: res.explain(degradeReason(pkg, t.scrub), pkg.Errors)})
		}
		if pkg.Types == nil || len(pkg.Syntax) == 0 {
			continue
		}
		if !seenPkg[pkg.PkgPath] {
			seenPkg[pkg.PkgPath] = true
			rep.Packages = append(rep.Packages, pkg.PkgPath)
			rep.dirs[pkg.PkgPath] = t.pkgDir(pkg)
		}
		for _, f := range pkg.CompiledGoFiles {
			if rel, err := filepath.Rel(t.root, f); err == nil && filepath.IsLocal(rel) {
				rep.files[filepath.ToSlash(rel)] = true
			}
		}
		t.analyzePackage(&driver{pkg: pkg, facts: facts, results: map[*analysis.Analyzer]*outcome{}, times: t.times}, seenFinding)
	}
	return nil
}

// prepare makes the analysis copy of the module at mod's go.mod (or synthesises one), and its
// dependencies available: from its vendor folder, else downloaded through the proxy. A nil
// configuration means the module's packages were degraded and are not to be loaded.
func (t *treeRun) prepare(mod string, idx int, patterns []string, tests bool) (*packages.Config, *resolution, error) {
	rep := t.rep
	scratch := filepath.Join(t.scratch, strconv.Itoa(idx))
	to := strings.TrimSuffix(path.Dir(relSlash(t.root, filepath.Join(mod, "go.mod"))), ".")
	t.scrub.Add(scratch, to)
	// The go command names the copy relative to the module's directory, where it runs, when
	// that is shorter ("../../debatebot-gomod-1/0/go.mod" under a TMPDIR beside the tree).
	if rel, err := filepath.Rel(mod, scratch); err == nil {
		t.scrub.Add(rel, to)
	}
	goMod, readErr := os.ReadFile(filepath.Join(mod, "go.mod"))
	var mc *modCopy
	var err error
	switch {
	case errors.Is(readErr, fs.ErrNotExist):
		mc, err = synthesizeModule(t.ctx, mod, scratch, t.mods)
	case readErr != nil:
		err = fmt.Errorf("failed to read %s: %w", relSlash(t.root, filepath.Join(mod, "go.mod")), readErr)
	default:
		mc, err = prepareModule(t.root, mod, scratch, t.goVersion, goMod)
	}
	if err != nil {
		for _, p := range patterns {
			rep.Degraded = append(rep.Degraded, Degraded{Package: p, Reason: "not loaded: " + scan.Clip(t.scrub.Clean(err.Error()), 300)})
		}
		return nil, nil, nil
	}
	rep.Notes = append(rep.Notes, mc.notes...)
	// -trimpath keeps the tree's directory out of the build cache's keys: the export data of a
	// package the two trees share (or a tree and an earlier review share) is compiled once, not
	// once per checkout directory. Positions in the export data name the module path, not the
	// host's directory; the analysis reports positions of the packages it type-checks from source.
	flags := append(slices.Clip(mc.flags), "-trimpath")
	cfg := &packages.Config{Context: t.ctx, Mode: loadMode, Dir: mod, Env: t.env, Tests: tests, BuildFlags: flags, Overlay: mc.overlay}
	where := relSlash(t.root, filepath.Join(mod, "go.mod"))
	if readErr == nil && vendored(mod, goMod) {
		cfg.BuildFlags = append(slices.Clip(cfg.BuildFlags), "-mod=vendor")
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: dependencies read from the tree's vendor folder", where))
		return cfg, nil, nil
	}
	if !t.mods.downloads() {
		return cfg, nil, nil
	}
	start, cpu0 := time.Now(), scan.ChildCPU()
	res, excluded, err := resolveExcluding(t.ctx, cfg, t.mods, patterns, filepath.Join(scratch, "go.mod"))
	t.times.ChildrenSince("go resolve (downloads)", start, cpu0)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", where, err)
	}
	rep.Notes = append(rep.Notes, excluded...)
	if res.timedOut {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: downloading the dependencies took longer than %s, so the analysis went on with the modules already downloaded: packages needing the others were analysed with incomplete types", where, t.mods.Timeout))
	}
	markUsed(t.mods.Cache, res.modules)
	return cfg, res, nil
}

// withCgo puts back the files of pkg that import "C" (see addCgoFiles); note says it in the
// report, once per package.
func (t *treeRun) withCgo(pkg *packages.Package, load func([]string) (map[string]*types.Package, error), note bool) {
	files := cgoFiles(pkg, t.bctx)
	if len(files) == 0 {
		return
	}
	res, err := addCgoFiles(pkg, files, cgoOffFiles(pkg, t.bctx), load)
	if !note {
		return
	}
	if err != nil {
		t.rep.Degraded = append(t.rep.Degraded, Degraded{Package: pkg.PkgPath, Reason: fmt.Sprintf("%d file(s) importing \"C\" left out: %s", len(files), scan.Clip(t.scrub.Clean(err.Error()), 200))})
		return
	}
	if res.files > 0 {
		t.rep.Notes = append(t.rep.Notes, fmt.Sprintf("%s: %d file(s) importing \"C\" type-checked without compiling C (names from C are untyped; %d function(s) using them analysed by their declarations only)", pkg.PkgPath, res.files, res.stubbed))
	}
}

// pkgDir is the tree-relative directory of pkg's files ("" when none is in the tree).
func (t *treeRun) pkgDir(pkg *packages.Package) string {
	for _, f := range append(append([]string(nil), pkg.GoFiles...), pkg.CompiledGoFiles...) {
		if rel, err := filepath.Rel(t.root, f); err == nil && filepath.IsLocal(rel) {
			return path.Dir(filepath.ToSlash(rel))
		}
	}
	return ""
}

// analyzePackage runs the checks of the families that run, the summary of protections and gosec
// (when it runs) over the package of d.
func (t *treeRun) analyzePackage(d *driver, seenFinding map[scan.Finding]bool) {
	rep, pkg := t.rep, d.pkg
	for _, c := range checks {
		if !t.runs(c.Source) {
			continue
		}
		out := d.run(c.Analyzer)
		if out.err != nil {
			rep.Degraded = append(rep.Degraded, Degraded{Package: pkg.PkgPath, Reason: fmt.Sprintf("%s did not run: %s", c.Rule, scan.Clip(t.scrub.Clean(out.err.Error()), 200))})
			continue
		}
		for _, diag := range out.diags {
			f, ok := d.finding(t.root, c, diag)
			if ok && !seenFinding[f] {
				seenFinding[f] = true
				rep.Findings = append(rep.Findings, f)
			}
		}
	}
	if out := d.run(summaryAnalyzer); out.err != nil {
		rep.Degraded = append(rep.Degraded, Degraded{Package: pkg.PkgPath, Reason: "the comparison of protections did not run: " + scan.Clip(t.scrub.Clean(out.err.Error()), 200)})
	} else if s, ok := out.result.(*pkgSummary); ok {
		rep.summary.add(s)
	}
	if !t.runs(rules.SourceGosec) {
		return
	}
	found, err := d.runGosec(t.root)
	if err != nil {
		rep.Degraded = append(rep.Degraded, Degraded{Package: pkg.PkgPath, Reason: "gosec did not run: " + scan.Clip(t.scrub.Clean(err.Error()), 200)})
	}
	for _, f := range found {
		if !seenFinding[f] {
			seenFinding[f] = true
			rep.Findings = append(rep.Findings, f)
		}
	}
}

// scrubReport rewrites the host's directories in what the report says to tree-relative paths.
func (t *treeRun) scrubReport() {
	rep := t.rep
	for i := range rep.Degraded {
		rep.Degraded[i].Reason = t.scrub.Clean(rep.Degraded[i].Reason)
	}
	for i := range rep.Notes {
		rep.Notes[i] = t.scrub.Clean(rep.Notes[i])
	}
	for i := range rep.Findings {
		rep.Findings[i].Message = t.scrub.Clean(rep.Findings[i].Message)
	}
}

func degradeReason(pkg *packages.Package, scrub *scan.PathScrubber) string {
	var msgs []string
	seen := map[string]bool{}
	for _, e := range pkg.Errors {
		for _, m := range strings.Split(scrub.Clean(e.Msg), "\n") {
			m = strings.TrimSpace(m)
			if m == "" || strings.HasPrefix(m, "# ") || seen[m] {
				continue
			}
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	if len(msgs) > 3 {
		msgs = append(msgs[:3], fmt.Sprintf("and %d more", len(msgs)-3))
	}
	return "type information incomplete, analysed what type-checks: " + scan.Clip(strings.Join(msgs, "; "), 400)
}

// topo orders the loaded packages (roots and what they import, loaded or not) so that a package
// comes after those it imports; only the roots are analysed, which are the ones with syntax.
func topo(roots []*packages.Package) []*packages.Package {
	isRoot := map[*packages.Package]bool{}
	for _, p := range roots {
		isRoot[p] = true
	}
	var out []*packages.Package
	seen := map[*packages.Package]bool{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		paths := make([]string, 0, len(p.Imports))
		for ip := range p.Imports {
			paths = append(paths, ip)
		}
		sort.Strings(paths)
		for _, ip := range paths {
			visit(p.Imports[ip])
		}
		if isRoot[p] {
			out = append(out, p)
		}
	}
	for _, p := range roots {
		visit(p)
	}
	return out
}

type outcome struct {
	result any
	diags  []analysis.Diagnostic
	err    error
}

// driver runs analyzers over one package, each once, after what it requires (analysis.Pass with
// ResultOf filled in), sharing facts through the module's store.
type driver struct {
	pkg     *packages.Package
	facts   *factStore
	results map[*analysis.Analyzer]*outcome
	times   *scan.Timings
}

func (d *driver) run(a *analysis.Analyzer) *outcome {
	if out, ok := d.results[a]; ok {
		return out
	}
	out := &outcome{}
	d.results[a] = out
	inputs := map[*analysis.Analyzer]any{}
	for _, req := range a.Requires {
		r := d.run(req)
		if r.err != nil {
			out.err = fmt.Errorf("requires %s: %w", req.Name, r.err)
			return out
		}
		inputs[req] = r.result
	}
	pkg := d.pkg
	module := &analysis.Module{}
	if pkg.Module != nil {
		module.Path, module.GoVersion = pkg.Module.Path, pkg.Module.GoVersion
	}
	pass := &analysis.Pass{
		Analyzer: a, Fset: pkg.Fset, Files: pkg.Syntax, OtherFiles: pkg.OtherFiles, IgnoredFiles: pkg.IgnoredFiles,
		Pkg: pkg.Types, TypesInfo: pkg.TypesInfo, TypesSizes: pkg.TypesSizes, TypeErrors: pkg.TypeErrors,
		Module: module, ResultOf: inputs,
		Report:   func(diag analysis.Diagnostic) { out.diags = append(out.diags, diag) },
		ReadFile: os.ReadFile,
		ImportObjectFact: func(obj types.Object, fact analysis.Fact) bool {
			return d.facts.importObject(a, obj, fact)
		},
		ExportObjectFact: func(obj types.Object, fact analysis.Fact) {
			d.facts.exportObject(a, obj, fact)
		},
		ImportPackageFact: func(p *types.Package, fact analysis.Fact) bool {
			return d.facts.importPackage(a, p, fact)
		},
		ExportPackageFact: func(fact analysis.Fact) { d.facts.exportPackage(a, pkg.Types, fact) },
		AllObjectFacts:    func() []analysis.ObjectFact { return d.facts.allObjects(a) },
		AllPackageFacts:   func() []analysis.PackageFact { return d.facts.allPackages(a) },
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				// An analyzer that trips over ill-typed code loses this package only.
				out.err = fmt.Errorf("panic: %v (%s)", r, firstFrame(debug.Stack()))
			}
		}()
		run := a.Run
		if a == buildssa.Analyzer && pkg.IllTyped {
			run = ssaOfTyped // the functions that type-check (typedssa.go)
		}
		defer d.times.Since("go "+a.Name, time.Now())
		res, err := run(pass)
		out.result = res
		if err != nil {
			out.err = fmt.Errorf("%s: %w", a.Name, err)
		}
	}()
	return out
}

func firstFrame(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		if strings.Contains(l, "panic(") && i+3 < len(lines) {
			return hostFree(strings.TrimSpace(lines[i+3]))
		}
	}
	return ""
}

// hostFree shortens a stack frame's file to its module and path ("honnef.co/go/tools@v0.8.2/
// go/ir/source.go:177"), or its standard library path: where the App is installed is not posted.
func hostFree(frame string) string {
	frame, _, _ = strings.Cut(frame, " +0x")
	for _, marker := range []string{"/pkg/mod/", "/src/"} {
		if i := strings.LastIndex(frame, marker); i >= 0 {
			return frame[i+len(marker):]
		}
	}
	return filepath.Base(frame)
}

func (d *driver) finding(treeRoot string, c rules.Check, diag analysis.Diagnostic) (scan.Finding, bool) {
	pos := d.pkg.Fset.Position(diag.Pos)
	if !pos.IsValid() {
		return scan.Finding{}, false
	}
	rel, err := filepath.Rel(treeRoot, pos.Filename)
	if err != nil || !filepath.IsLocal(rel) {
		return scan.Finding{}, false // in the build cache (cgo, generated) or outside the tree
	}
	return scan.Finding{
		Rule: c.Rule, Source: c.Source, Severity: c.Severity, Topic: c.Topic,
		Path: filepath.ToSlash(rel), Line: pos.Line, Column: pos.Column,
		Func: enclosingFunc(d.pkg, diag.Pos), Message: diag.Message, Conds: pathConds(d.pkg.Syntax, diag.Pos),
		Fix: suggestedFix(d.pkg.Fset, diag, pos.Filename),
	}, true
}

// enclosingFunc names the top-level function or method declaration holding pos.
func enclosingFunc(pkg *packages.Package, pos token.Pos) string {
	for _, f := range pkg.Syntax {
		if pos < f.Pos() || pos > f.End() {
			continue
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || pos < fd.Pos() || pos > fd.End() {
				continue
			}
			return FuncName(fd)
		}
	}
	return ""
}

// FuncName names a function as findings are keyed and fingerprinted: "Name", or "Recv.Name"
// for a method (type parameters and pointers left out).
func FuncName(fd *ast.FuncDecl) string {
	if fd.Recv != nil && len(fd.Recv.List) > 0 {
		return recvName(fd.Recv.List[0].Type) + "." + fd.Name.Name
	}
	return fd.Name.Name
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// factStore keeps the facts analyzers export, per analyzer, for the packages of one load.
type factStore struct {
	mu      sync.Mutex
	objects map[factKey]analysis.Fact
	pkgs    map[factKey]analysis.Fact
}

type factKey struct {
	a   *analysis.Analyzer
	obj any // types.Object or *types.Package
	t   reflect.Type
}

func newFactStore() *factStore {
	return &factStore{objects: map[factKey]analysis.Fact{}, pkgs: map[factKey]analysis.Fact{}}
}

func (s *factStore) importObject(a *analysis.Analyzer, obj types.Object, fact analysis.Fact) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.objects[factKey{a, obj, reflect.TypeOf(fact)}]
	if ok {
		reflect.ValueOf(fact).Elem().Set(reflect.ValueOf(v).Elem())
	}
	return ok
}

func (s *factStore) exportObject(a *analysis.Analyzer, obj types.Object, fact analysis.Fact) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects[factKey{a, obj, reflect.TypeOf(fact)}] = fact
}

func (s *factStore) importPackage(a *analysis.Analyzer, p *types.Package, fact analysis.Fact) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.pkgs[factKey{a, p, reflect.TypeOf(fact)}]
	if ok {
		reflect.ValueOf(fact).Elem().Set(reflect.ValueOf(v).Elem())
	}
	return ok
}

func (s *factStore) exportPackage(a *analysis.Analyzer, p *types.Package, fact analysis.Fact) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pkgs[factKey{a, p, reflect.TypeOf(fact)}] = fact
}

func (s *factStore) allObjects(a *analysis.Analyzer) []analysis.ObjectFact {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []analysis.ObjectFact
	for k, f := range s.objects {
		if k.a == a {
			out = append(out, analysis.ObjectFact{Object: k.obj.(types.Object), Fact: f})
		}
	}
	return out
}

func (s *factStore) allPackages(a *analysis.Analyzer) []analysis.PackageFact {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []analysis.PackageFact
	for k, f := range s.pkgs {
		if k.a == a {
			out = append(out, analysis.PackageFact{Package: k.obj.(*types.Package), Fact: f})
		}
	}
	return out
}

func sortFindings(fs []scan.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Rule < b.Rule
	})
}
