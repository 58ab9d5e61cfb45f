// Package gomod rewrites the go.mod of a tree that an untrusted author wrote into one the go
// command can read without leaving the tree, downloading a toolchain or refusing the module.
package gomod

import (
	"cmp"
	"errors"
	"fmt"
	"go/version"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// Rewrite is what Sanitize changed, for the notes.
type Rewrite struct {
	// GoLine is the go version the file asked for when it was lowered to the toolchain's.
	GoLine string
	// Toolchain is the toolchain line taken out ("go1.99.1"), if any.
	Toolchain string
	// Godebug counts the godebug settings taken out.
	Godebug int
	// Outside are the replacements taken out because their local path leaves the tree
	// ("example.com/x => ../../etc").
	Outside []string
	// Local are the directories (absolute) of the replacements kept, which the go command reads
	// as modules of the tree.
	Local []string
}

// Changed reports whether the rewrite changed anything the notes tell.
func (r Rewrite) Changed() bool {
	return r.GoLine != "" || r.Toolchain != "" || r.Godebug > 0 || len(r.Outside) > 0
}

// Sanitize rewrites the go.mod text data of the module at modDir, in the tree at treeRoot
// (both absolute and clean), for a go command of version goVersion ("go1.26.8"): a go line
// newer than that is lowered to it, the toolchain line and godebug settings are taken out, and
// so are replacements whose local path resolves outside treeRoot (lexically or through a
// symbolic link). name is the file's name in errors. A file that does not parse is an error, and
// the go command reports it as it would.
func Sanitize(name string, data []byte, treeRoot, modDir, goVersion string) ([]byte, Rewrite, error) {
	var rw Rewrite
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, rw, fmt.Errorf("failed to parse %s: %w", name, err)
	}
	if f.Go != nil && version.IsValid(goVersion) && version.Compare("go"+f.Go.Version, goVersion) > 0 {
		rw.GoLine = f.Go.Version
		if err := f.AddGoStmt(strings.TrimPrefix(goVersion, "go")); err != nil {
			return nil, rw, fmt.Errorf("failed to lower the go line of %s: %w", name, err)
		}
	}
	if f.Toolchain != nil {
		rw.Toolchain = f.Toolchain.Name
		f.DropToolchainStmt()
	}
	// DropGodebug zeroes what it drops, key included, and a second call for a key it already
	// dropped (or for the empty key, which the zeroed entries then have) dereferences nil: each
	// key is dropped once, the empty one first.
	rw.Godebug = len(f.Godebug)
	var keys []string
	for _, g := range f.Godebug {
		if !slices.Contains(keys, g.Key) {
			keys = append(keys, g.Key)
		}
	}
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(min(len(a), 1), min(len(b), 1)) })
	for _, k := range keys {
		if err := f.DropGodebug(k); err != nil {
			return nil, rw, fmt.Errorf("failed to drop godebug %s in %s: %w", k, name, err)
		}
	}
	for _, r := range f.Replace {
		if !modfile.IsDirectoryPath(r.New.Path) {
			continue
		}
		dir, ok := InsideTree(treeRoot, modDir, r.New.Path)
		if ok {
			rw.Local = append(rw.Local, dir)
			continue
		}
		rw.Outside = append(rw.Outside, r.Old.Path+" => "+r.New.Path)
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

// InsideTree resolves the local replacement path p of the module at modDir and reports whether
// it stays inside treeRoot, after cleaning and through any symbolic link on the way.
func InsideTree(treeRoot, modDir, p string) (string, bool) {
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
