package evidence

import (
	"context"
	"fmt"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/gomod"
)

// The go command reads a module's go.mod as its author wrote it, and a pull request writes it: a
// go line newer than the toolchain ("go 1.99") makes it refuse the whole module, an unknown
// godebug key does the same, and a replacement by a local path makes it read wherever that path
// leads, outside the tree too. The analysis gives it a copy instead (go list -modfile), in which
// those lines are lowered or taken out; the tree itself is never written, and the notes say what
// was changed.

// modCopy is the go.mod the go command reads for one module of a tree.
type modCopy struct {
	// flags are the go command's flags that point it at the copy (-modfile).
	flags []string
	// overlay holds sanitised go.mod files of the modules the kept replacements name.
	overlay map[string][]byte
	// notes say what was changed, with tree-relative paths.
	notes []string
}

// prepareModule writes, in scratch, the sanitised copy of data, the go.mod of the module at
// modDir (and its go.sum, which the go command reads beside the copy), and sanitises the go.mod
// files of the local replacements it keeps. A go.mod that does not parse is copied as it is: the
// go command then says what is wrong with it, and it still never writes the tree.
func prepareModule(treeRoot, modDir, scratch, goVersion string, data []byte) (*modCopy, error) {
	rel := relSlash(treeRoot, filepath.Join(modDir, "go.mod"))
	mc := &modCopy{overlay: map[string][]byte{}}
	out, rw, err := gomod.Sanitize(rel, data, treeRoot, modDir, goVersion)
	if err != nil {
		out = data
	} else {
		mc.notes = append(mc.notes, rewriteNotes(rw, rel, goVersion)...)
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
	for _, dir := range rw.Local {
		name := filepath.Join(dir, "go.mod")
		data, err := os.ReadFile(name)
		if err != nil {
			continue // the go command says the module is missing
		}
		drel := relSlash(treeRoot, name)
		// A dependency's replacements do not apply; its go line, toolchain and godebug do.
		out, drw, err := gomod.Sanitize(drel, data, treeRoot, dir, goVersion)
		if err != nil || !drw.Changed() {
			continue
		}
		drw.Outside = nil
		mc.overlay[name] = out
		mc.notes = append(mc.notes, rewriteNotes(drw, drel, goVersion)...)
	}
	return mc, nil
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

// rewriteNotes say what the rewrite r of the file rel changed.
func rewriteNotes(r gomod.Rewrite, rel, goVersion string) []string {
	var out []string
	if r.GoLine != "" {
		out = append(out, fmt.Sprintf("%s asks for go %s, newer than this toolchain (%s): analysed as go %s, without downloading a toolchain", rel, r.GoLine, goVersion, strings.TrimPrefix(goVersion, "go")))
	}
	if r.Toolchain != "" && r.GoLine != "" {
		out = append(out, fmt.Sprintf("%s: the toolchain line (%s) was ignored", rel, r.Toolchain))
	}
	if r.Godebug > 0 {
		out = append(out, fmt.Sprintf("%s: %d godebug setting(s) ignored", rel, r.Godebug))
	}
	for _, o := range r.Outside {
		out = append(out, fmt.Sprintf("%s: replacement %s refused: its path leaves the tree, so the module resolves like any missing dependency", rel, o))
	}
	return out
}
