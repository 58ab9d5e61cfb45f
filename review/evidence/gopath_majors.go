package evidence

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/tools/go/packages"
)

// A tree written for GOPATH imports its dependencies without a major version suffix, and where
// no pin says otherwise they resolve at their latest version: a dependency that has since
// published v1 (or a v2+ without go.mod) under the same import path may no longer have what the
// tree calls ("undefined: glob.Glob"). The analysis then takes the newest version of an older
// major instead, the one the tree was written against: it excludes the versions of the major
// in use in the analysis copy of go.mod, resolves again and keeps the second load when it
// type-checks more of the changed packages.

// undefinedSel are type errors naming a package-qualified name its package does not have.
var undefinedSel = regexp.MustCompile(`undefined: (\w+)\.\w+|(\w+)\.\w+ undefined`)

// olderMajors loads patterns again with older majors of the dependencies whose API the loaded
// packages pkgs miss, for a module whose go.mod the analysis synthesised at goModCopy. It returns
// the load to keep and notes saying what was done.
func (t *treeRun) olderMajors(cfg *packages.Config, pkgs []*packages.Package, patterns []string, goModCopy string) ([]*packages.Package, []string) {
	cited := citedImports(pkgs)
	if len(cited) == 0 || !t.mods.downloads() {
		return pkgs, nil
	}
	data, err := os.ReadFile(goModCopy)
	if err != nil {
		return pkgs, nil
	}
	f, err := modfile.Parse(goModCopy, data, nil)
	if err != nil {
		return pkgs, nil
	}
	changed := excludeMajors(t.ctx, t.mods, f, cited)
	if len(changed) == 0 {
		return pkgs, nil
	}
	out, err := f.Format()
	if err != nil || os.WriteFile(goModCopy, out, 0o600) != nil {
		return pkgs, nil
	}
	var again []*packages.Package
	if _, _, err = resolveExcluding(t.ctx, cfg, t.mods, patterns, goModCopy); err == nil {
		again, err = packages.Load(cfg, patterns...)
	}
	if err != nil || illTyped(again) >= illTyped(pkgs) {
		_ = os.WriteFile(goModCopy, data, 0o600) // the first load's go.mod, for what loads after
		return pkgs, nil
	}
	now := requiredVersions(goModCopy)
	var notes []string
	for _, v := range changed {
		notes = append(notes, fmt.Sprintf("%s %s lacks what the tree calls: analysed with %s %s, the newest version of an older major", v.Path, v.Version, v.Path, now[v.Path]))
	}
	return again, notes
}

// citedImports are the import paths of the packages whose names the type errors of pkgs use
// with a selector their package lacks.
func citedImports(pkgs []*packages.Package) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range pkgs {
		if p.Types == nil {
			continue
		}
		byName := map[string]string{}
		for _, imp := range p.Types.Imports() {
			byName[imp.Name()] = imp.Path()
		}
		for _, te := range p.TypeErrors {
			for _, m := range undefinedSel.FindAllStringSubmatch(te.Msg, -1) {
				name := m[1] + m[2]
				if path, ok := byName[name]; ok && !seen[path] {
					seen[path] = true
					out = append(out, path)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// excludeMajors excludes, in f, the listed versions of the major in use of the module required
// for each import path of cited, and drops its requirement; it returns the versions replaced.
// Only modules at v1 or later, and not the main module, are changed.
func excludeMajors(ctx context.Context, m ModuleSettings, f *modfile.File, cited []string) []module.Version {
	var changed []module.Version
	for _, imp := range cited {
		var req *modfile.Require
		for _, r := range f.Require {
			if (imp == r.Mod.Path || strings.HasPrefix(imp, r.Mod.Path+"/")) && (req == nil || len(r.Mod.Path) > len(req.Mod.Path)) {
				req = r
			}
		}
		if req == nil || semver.Major(req.Mod.Version) == "v0" || module.IsPseudoVersion(req.Mod.Version) {
			continue
		}
		major := semver.Major(req.Mod.Version)
		list := proxyVersions(ctx, m, req.Mod.Path)
		var excluded int
		for _, v := range list {
			if semver.Major(v) == major && f.AddExclude(req.Mod.Path, v) == nil {
				excluded++
			}
		}
		if excluded == len(list) || excluded == 0 {
			continue // nothing older to take
		}
		changed = append(changed, req.Mod)
		_ = f.DropRequire(req.Mod.Path)
	}
	f.Cleanup()
	return changed
}

// proxyVersions are the versions the first proxy of m that answers lists for module mod.
func proxyVersions(ctx context.Context, m ModuleSettings, mod string) []string {
	esc, err := module.EscapePath(mod)
	if err != nil {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, m.Timeout)
	defer cancel()
	client := &http.Client{}
	for _, item := range strings.FieldsFunc(m.Proxy, func(r rune) bool { return r == ',' || r == '|' }) {
		body, err := proxyGet(rctx, client, strings.TrimSuffix(strings.TrimSpace(item), "/")+"/"+esc+"/@v/list", func(b []byte) (string, error) { return string(b), nil })
		if err == nil {
			return strings.Fields(body)
		}
	}
	return nil
}

// illTyped counts the packages of pkgs with errors.
func illTyped(pkgs []*packages.Package) int {
	n := 0
	for _, p := range pkgs {
		if len(p.Errors) > 0 || len(p.TypeErrors) > 0 {
			n++
		}
	}
	return n
}

// requiredVersions are the versions the go.mod at name requires, by module path.
func requiredVersions(name string) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(name)
	if err != nil {
		return out
	}
	f, err := modfile.ParseLax(filepath.Base(name), data, nil)
	if err != nil {
		return out
	}
	for _, r := range f.Require {
		out[r.Mod.Path] = r.Mod.Version
	}
	return out
}
