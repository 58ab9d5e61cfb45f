package compare

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/debatebot/debatebot/review/change"
)

// treeLoader finds, in the change's materialised base or head tree, the files that may define a
// function a call names and that the change does not touch (a helper in an unchanged file, the
// package a sanitiser comes from), and parses them on demand: the comparison then sees what the
// helper does. Only the files the call's import or package points at are read, at most
// treeLoadMax of them, and the trees are materialised only when such a call is looked up.
type treeLoader struct {
	c    *sideComparison
	head bool
	// tried holds the relative paths parsed or found missing.
	tried  map[string]bool
	loaded int
	// module is the tree's Go module path, once moduleRead.
	module     string
	moduleRead bool
}

// treeLoadMax bounds the files one side's loader parses.
const treeLoadMax = 200

// treeFileMax bounds the size of a file the loader parses.
const treeFileMax = 1 << 20

func (l *treeLoader) dir() (string, bool) {
	base, head, err := l.c.s.Trees()
	if err != nil {
		return "", false
	}
	if l.head {
		return head, true
	}
	return base, true
}

// load parses the files that may define callee as seen from the function from, and reports
// whether it added any.
func (l *treeLoader) load(callee string, from *irFunc) bool {
	if from == nil || from.file == nil || l.loaded >= treeLoadMax {
		return false
	}
	cands := l.candidates(callee, from)
	if len(cands) == 0 {
		return false
	}
	dir, ok := l.dir()
	if !ok {
		return false
	}
	x := l.c.base
	if l.head {
		x = l.c.head
	}
	added := false
	var py []pySource
	for _, rel := range cands {
		if l.tried[rel] || l.loaded >= treeLoadMax {
			continue
		}
		l.tried[rel] = true
		if x.hasFile(rel) {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(rel))
		st, err := os.Stat(full)
		if err != nil || !st.Mode().IsRegular() || st.Size() > treeFileMax {
			continue
		}
		src, err := os.ReadFile(full)
		if err != nil {
			continue
		}
		l.loaded++
		switch change.LanguageOf(rel) {
		case "go":
			x.add(goIR(rel, src))
			added = true
		case "javascript":
			x.add(jsModuleIR(rel, src))
			added = true
		case "typescript":
			x.add(tsIR(rel, src))
			added = true
		case "python":
			py = append(py, pySource{Path: rel, Source: string(src)})
		}
	}
	if len(py) > 0 {
		if irs, err := pyIR(l.c.s.Context(), py); err == nil {
			for _, ir := range irs {
				x.add(ir)
				added = true
			}
		}
	}
	return added
}

// candidates returns the tree's files (relative paths) that may define callee: for Go, the
// files of the caller's package (an unqualified call or a method) or of the module's package
// the call's qualifier imports; for Python and JavaScript, the module a relative or
// module-local import names.
func (l *treeLoader) candidates(callee string, from *irFunc) []string {
	callee = strings.TrimPrefix(callee, "new ")
	root := dottedRoot(callee)
	mod, imported := from.file.Imports[root]
	here := path.Dir(from.file.Path)
	switch change.LanguageOf(from.file.Path) {
	case "go":
		if !imported {
			return l.goFiles(here)
		}
		if m := l.goModule(); m != "" && strings.HasPrefix(mod, m+"/") {
			return l.goFiles(strings.TrimPrefix(mod, m+"/"))
		}
	case "python":
		if !imported {
			return nil
		}
		if strings.TrimPrefix(callee, root) == "" {
			mod = qualifier(mod) // from m import f: f is in m
		}
		return pyModuleFiles(mod, here)
	case "javascript", "typescript":
		if !imported || !strings.HasPrefix(mod, ".") {
			return nil
		}
		var out []string
		for _, m := range []string{mod, qualifier(mod)} {
			if m == "" || m == "." {
				continue
			}
			out = append(out, jsModuleFiles(path.Clean(path.Join(here, m)))...)
		}
		return out
	}
	return nil
}

// goFiles lists the non-test Go files of a directory of the tree.
func (l *treeLoader) goFiles(rel string) []string {
	dir, ok := l.dir()
	if !ok {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			out = append(out, path.Join(rel, n))
		}
	}
	sort.Strings(out)
	return out
}

// goModule returns the module path of the tree's go.mod, "" without one; the file is read once.
func (l *treeLoader) goModule() string {
	if !l.moduleRead {
		l.module, l.moduleRead = l.readGoModule(), true
	}
	return l.module
}

func (l *treeLoader) readGoModule() string {
	dir, ok := l.dir()
	if !ok {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// pyModuleFiles returns the files a Python module name may be: relative to the importing file's
// package (leading dots), or from the tree's root or its src directory.
func pyModuleFiles(mod, here string) []string {
	if mod == "" {
		return nil
	}
	var bases []string
	if strings.HasPrefix(mod, ".") {
		level := len(mod) - len(strings.TrimLeft(mod, "."))
		dir := here
		for i := 1; i < level; i++ {
			dir = path.Dir(dir)
		}
		bases = append(bases, path.Join(dir, strings.ReplaceAll(strings.TrimLeft(mod, "."), ".", "/")))
	} else {
		rel := strings.ReplaceAll(mod, ".", "/")
		bases = append(bases, rel, path.Join("src", rel))
	}
	var out []string
	for _, b := range bases {
		b = path.Clean(b)
		out = append(out, b+".py", path.Join(b, "__init__.py"))
	}
	return out
}

// jsModuleFiles are the files a relative module path p may name, JavaScript's and TypeScript's
// (which also names its own files by the .js they compile to).
func jsModuleFiles(p string) []string {
	out := []string{p, p + ".js", p + ".cjs", p + ".mjs", p + "/index.js", p + ".ts", p + ".tsx", p + "/index.ts"}
	if strings.HasSuffix(p, ".js") {
		out = append(out, strings.TrimSuffix(p, ".js")+".ts", strings.TrimSuffix(p, ".js")+".tsx")
	}
	return out
}
