package evidence

import (
	"context"
	"errors"
	"fmt"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// The go command reads a module's go.mod as its author wrote it, and a pull request writes it: a
// go line newer than the toolchain ("go 1.99") makes it refuse the whole module, an unknown
// godebug key does the same, and a replacement by a local path makes it read wherever that path
// leads, outside the tree too. The analysis gives it a copy instead (go list -modfile), in which
// those lines are lowered or taken out; the tree itself is never written, and the notes say what
// was changed.

// modRewrite is what sanitizeGoMod changed, for the notes.
type modRewrite struct {
	// goLine is the go version the file asked for when it was lowered to the toolchain's.
	goLine string
	// toolchain is the toolchain line taken out ("go1.99.1"), if any.
	toolchain string
	// godebug counts the godebug settings taken out.
	godebug int
	// outside are the replacements taken out because their local path leaves the tree
	// ("example.com/x => ../../etc").
	outside []string
	// local are the directories (absolute) of the replacements kept, which the go command reads
	// as modules of the tree.
	local []string
}

func (r modRewrite) changed() bool {
	return r.goLine != "" || r.toolchain != "" || r.godebug > 0 || len(r.outside) > 0
}

// sanitizeGoMod rewrites the go.mod text data of the module at modDir, in the tree at treeRoot
// (both absolute and clean), for a go command of version goVersion ("go1.26.8"): a go line
// newer than that is lowered to it, the toolchain line and godebug settings are taken out, and
// so are replacements whose local path resolves outside treeRoot (lexically or through a
// symbolic link). name is the file's name in errors. A file that does not parse is an error, and
// the go command reports it as it would.
func sanitizeGoMod(name string, data []byte, treeRoot, modDir, goVersion string) ([]byte, modRewrite, error) {
	var rw modRewrite
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, rw, fmt.Errorf("failed to parse %s: %w", name, err)
	}
	if f.Go != nil && version.IsValid(goVersion) && version.Compare("go"+f.Go.Version, goVersion) > 0 {
		rw.goLine = f.Go.Version
		if err := f.AddGoStmt(strings.TrimPrefix(goVersion, "go")); err != nil {
			return nil, rw, fmt.Errorf("failed to lower the go line of %s: %w", name, err)
		}
	}
	if f.Toolchain != nil {
		rw.toolchain = f.Toolchain.Name
		f.DropToolchainStmt()
	}
	var keys []string
	for _, g := range f.Godebug {
		keys = append(keys, g.Key)
	}
	for _, k := range keys {
		rw.godebug++
		if err := f.DropGodebug(k); err != nil {
			return nil, rw, fmt.Errorf("failed to drop godebug %s in %s: %w", k, name, err)
		}
	}
	for _, r := range f.Replace {
		if !modfile.IsDirectoryPath(r.New.Path) {
			continue
		}
		dir, ok := insideTree(treeRoot, modDir, r.New.Path)
		if ok {
			rw.local = append(rw.local, dir)
			continue
		}
		rw.outside = append(rw.outside, r.Old.Path+" => "+r.New.Path)
		if err := f.DropReplace(r.Old.Path, r.Old.Version); err != nil {
			return nil, rw, fmt.Errorf("failed to drop the replacement of %s in %s: %w", r.Old.Path, name, err)
		}
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return nil, rw, fmt.Errorf("failed to write %s: %w", name, err)
	}
	return out, rw, nil
}

// insideTree resolves the local replacement path p of the module at modDir and reports whether
// it stays inside treeRoot, after cleaning and through any symbolic link on the way.
func insideTree(treeRoot, modDir, p string) (string, bool) {
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(modDir, p)
	}
	p = filepath.Clean(p)
	if !within(treeRoot, p) {
		return "", false
	}
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, os.ErrNotExist) {
		// Nothing there to follow: the go command finds no module either. A link on the way
		// that leads nowhere still fails here, so only an absent path is accepted.
		if _, lerr := os.Lstat(p); errors.Is(lerr, os.ErrNotExist) && !linkOnTheWay(treeRoot, p) {
			return p, true
		}
		return "", false
	}
	if err != nil {
		return "", false
	}
	root, err := filepath.EvalSymlinks(treeRoot)
	if err != nil {
		return "", false
	}
	return p, within(root, real)
}

// linkOnTheWay reports whether a directory between treeRoot and p (exclusive) is a symbolic link.
func linkOnTheWay(treeRoot, p string) bool {
	for d := filepath.Dir(p); within(treeRoot, d) && d != treeRoot; d = filepath.Dir(d) {
		if st, err := os.Lstat(d); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// within reports whether p is root or below it; both are clean and absolute.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// modCopy is the go.mod the go command reads for one module of a tree.
type modCopy struct {
	// flags are the go command's flags that point it at the copy (-modfile).
	flags []string
	// overlay holds sanitised go.mod files of the modules the kept replacements name.
	overlay map[string][]byte
	// notes say what was changed, with tree-relative paths.
	notes []string
}

// prepareModule writes, in scratch, the sanitised copy of the go.mod of the module at modDir
// (and its go.sum, which the go command reads beside the copy), and sanitises the go.mod files
// of the local replacements it keeps. A go.mod that does not parse is copied as it is: the go
// command then says what is wrong with it, and it still never writes the tree.
func prepareModule(treeRoot, modDir, scratch, goVersion string) (*modCopy, error) {
	rel := relSlash(treeRoot, filepath.Join(modDir, "go.mod"))
	data, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", rel, err)
	}
	mc := &modCopy{overlay: map[string][]byte{}}
	out, rw, err := sanitizeGoMod(rel, data, treeRoot, modDir, goVersion)
	if err != nil {
		out = data
	} else {
		mc.notes = append(mc.notes, rw.notes(rel, goVersion)...)
	}
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return nil, fmt.Errorf("failed to prepare the analysis copy of %s: %w", rel, err)
	}
	if err := os.WriteFile(filepath.Join(scratch, "go.mod"), out, 0o600); err != nil {
		return nil, fmt.Errorf("failed to write the analysis copy of %s: %w", rel, err)
	}
	if sum, err := os.ReadFile(filepath.Join(modDir, "go.sum")); err == nil {
		if err := os.WriteFile(filepath.Join(scratch, "go.sum"), sum, 0o600); err != nil {
			return nil, fmt.Errorf("failed to write the analysis copy of %s's go.sum: %w", rel, err)
		}
	}
	mc.flags = []string{"-modfile=" + filepath.Join(scratch, "go.mod")}
	for _, dir := range rw.local {
		name := filepath.Join(dir, "go.mod")
		data, err := os.ReadFile(name)
		if err != nil {
			continue // the go command says the module is missing
		}
		drel := relSlash(treeRoot, name)
		// A dependency's replacements do not apply; its go line, toolchain and godebug do.
		out, drw, err := sanitizeGoMod(drel, data, treeRoot, dir, goVersion)
		if err != nil || !drw.changed() {
			continue
		}
		drw.outside = nil
		mc.overlay[name] = out
		mc.notes = append(mc.notes, drw.notes(drel, goVersion)...)
	}
	return mc, nil
}

// notes say what the rewrite of the file rel changed.
func (r modRewrite) notes(rel, goVersion string) []string {
	var out []string
	if r.goLine != "" {
		out = append(out, fmt.Sprintf("%s asks for go %s, newer than this toolchain (%s): analysed as go %s, without downloading a toolchain", rel, r.goLine, goVersion, strings.TrimPrefix(goVersion, "go")))
	}
	if r.toolchain != "" && r.goLine != "" {
		out = append(out, fmt.Sprintf("%s: the toolchain line (%s) was ignored", rel, r.toolchain))
	}
	if r.godebug > 0 {
		out = append(out, fmt.Sprintf("%s: %d godebug setting(s) ignored", rel, r.godebug))
	}
	for _, o := range r.outside {
		out = append(out, fmt.Sprintf("%s: replacement %s refused: its path leaves the tree, so the module resolves like any missing dependency", rel, o))
	}
	return out
}

// relSlash is p relative to root, slash-separated, or p's base name when it is not under root.
func relSlash(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return filepath.Base(p)
	}
	return filepath.ToSlash(rel)
}

// goVersion asks the go command of env which version it is ("go1.26.8"), from dir (a directory
// outside any tree, whose go.mod could make it refuse to answer).
func goVersion(ctx context.Context, env []string, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("failed to ask the go command its version: %w", err)
	}
	v := strings.TrimSpace(string(out))
	// A development toolchain says "devel go1.27-abcdef …"; its language is what counts.
	if i := strings.Index(v, "go1"); i >= 0 {
		v = strings.Fields(v[i:])[0]
	}
	if !version.IsValid(v) {
		return "", fmt.Errorf("the go command's version %q is not one this analysis understands", v)
	}
	return v, nil
}
