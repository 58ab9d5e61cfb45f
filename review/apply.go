package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/debatebot/debatebot/review/change"
)

// DefaultMaxTreeBytes bounds the base tree copied for whole-tree analysis of a diff applied to a
// directory; a larger tree is analysed from the diff's hunks only.
const DefaultMaxTreeBytes = 500 << 20

// HunksOnlyNote is what the transcript says about a bare diff: the analyzers saw its hunks only.
const HunksOnlyNote = "the analysis saw only the diff's hunks, not whole trees: no type-checked Go analysis, and bandit, ESLint, ShellCheck and Cppcheck only on files the diff adds whole (pass --dir with a checkout of the base to get them)"

// ReadDiffOnBase reads a unified diff like ReadDiff and takes baseDir as a checkout of its base:
// the head is the diff applied to it (github.com/bluekeyes/go-gitdiff, strictly: every hunk must
// match the base where its header says). Changed files get their whole head content, and the
// change gets both trees for whole-tree analysis (copies of baseDir, the head one with the diff
// applied, in a temporary directory removed after the analysis). A diff that does not apply to
// baseDir is an InputError naming the file and the hunk.
func ReadDiffOnBase(r io.Reader, source string, max int64, baseDir string) (*change.Change, error) {
	st, err := os.Stat(baseDir)
	if err != nil {
		return nil, &InputError{baseDir, "cannot read the base directory: " + unwrapPathError(err).Error()}
	}
	if !st.IsDir() {
		return nil, &InputError{baseDir, "not a directory: --dir wants a checkout of the diff's base"}
	}
	data, err := readDiffData(r, source, max)
	if err != nil {
		return nil, err
	}
	c, err := ParseDiff(data, source)
	if err != nil {
		return nil, err
	}
	files, _, err := gitdiff.Parse(bytes.NewReader(data))
	if err != nil { // ParseDiff parsed the same bytes
		return nil, &InputError{source, "not a valid unified diff: " + err.Error()}
	}
	if stripFirstComponent(baseDir, files) {
		// diff -ruN BASE HEAD names each file with its directory (HEAD/app/x.go): its paths are
		// read relative to the trees' roots, as patch -p1 would.
		for _, gf := range files {
			gf.OldName, gf.NewName = stripFirst(gf.OldName), stripFirst(gf.NewName)
		}
		for _, f := range c.Files {
			f.Path, f.OldPath = stripFirst(f.Path), stripFirst(f.OldPath)
		}
		change.SortFiles(c.Files)
		c.Notes = append(c.Notes, "the diff's paths were read without their first component (the directories diff -r compared)")
	}
	head, err := applyDiff(baseDir, files, source)
	if err != nil {
		return nil, err
	}
	c.Notes = append(c.Notes, head.notes...)
	for _, f := range c.Files {
		if f.Status == change.StatusDeleted {
			continue
		}
		content, ok := head.files[f.Path]
		if !ok {
			continue
		}
		if len(content) > DefaultMaxFileBytes {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: larger than %d KiB, analysed from its diff only", f.Path, DefaultMaxFileBytes>>10))
			continue
		}
		f.Content, f.HasContent = content, true
	}
	c.Trees = head.trees(DefaultMaxTreeBytes)
	return c, nil
}

// stripFirstComponent reports whether the diff's paths carry the name of the directory they were
// compared in (diff -r BASE HEAD): every path has a first component, and every file the diff
// reads from the base is in baseDir without it and not with it.
func stripFirstComponent(baseDir string, files []*gitdiff.File) bool {
	read := 0
	for _, gf := range files {
		for _, p := range []string{gf.OldName, gf.NewName} {
			if p != "" && !strings.Contains(p, "/") {
				return false
			}
		}
		if gf.IsNew || gf.OldName == "" {
			continue
		}
		if isFile(filepath.Join(baseDir, filepath.FromSlash(gf.OldName))) || !isFile(filepath.Join(baseDir, filepath.FromSlash(stripFirst(gf.OldName)))) {
			return false
		}
		read++
	}
	return read > 0
}

func stripFirst(p string) string {
	_, rest, ok := strings.Cut(p, "/")
	if !ok {
		return p
	}
	return rest
}

func isFile(name string) bool {
	st, err := os.Lstat(name)
	return err == nil && st.Mode().IsRegular()
}

// appliedTree is the head of a diff applied to a base directory: the files the diff wrote (by
// slash-separated path) and those it removed; every other file is the base's.
type appliedTree struct {
	base  string
	files map[string][]byte
	modes map[string]os.FileMode
	gone  map[string]bool
	notes []string
}

// applyDiff applies every file of the diff to the files of baseDir, in memory.
func applyDiff(baseDir string, files []*gitdiff.File, source string) (*appliedTree, error) {
	t := &appliedTree{base: baseDir, files: map[string][]byte{}, modes: map[string]os.FileMode{}, gone: map[string]bool{}}
	for _, gf := range files {
		if err := t.apply(gf, source); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *appliedTree) apply(gf *gitdiff.File, source string) error {
	name := gf.NewName
	if gf.IsDelete || name == "" {
		name = gf.OldName
	}
	for _, p := range []string{gf.OldName, gf.NewName} {
		if p != "" && !filepath.IsLocal(filepath.FromSlash(p)) {
			return &InputError{source, fmt.Sprintf("%s: a path outside the tree cannot be applied to --dir", p)}
		}
	}
	if isLinkMode(gf.OldMode) || isLinkMode(gf.NewMode) {
		// Trees for analysis hold regular files only (a link could point outside the tree).
		t.notes = append(t.notes, fmt.Sprintf("%s: symbolic link or submodule left out of the applied tree", name))
		return nil
	}
	var src []byte
	if gf.IsNew {
		if _, exists, err := t.read(name, source); err != nil {
			return err
		} else if exists {
			return &InputError{source, fmt.Sprintf("%s: the diff adds it, but the base directory %s already has it (is it a checkout of the diff's base?)", name, t.base)}
		}
	} else {
		content, exists, err := t.read(gf.OldName, source)
		if err != nil {
			return err
		}
		if !exists {
			return &InputError{source, fmt.Sprintf("%s: not in the base directory %s (is it a checkout of the diff's base?)", gf.OldName, t.base)}
		}
		src = content
	}
	if gf.IsBinary && gf.BinaryFragment == nil && !gf.IsDelete {
		t.notes = append(t.notes, fmt.Sprintf("%s: binary change without its content in the diff; the applied tree keeps the base's", name))
		return nil
	}
	var out bytes.Buffer
	if gf.IsBinary {
		if gf.BinaryFragment != nil {
			if err := gitdiff.Apply(&out, bytes.NewReader(src), gf); err != nil {
				return &InputError{source, fmt.Sprintf("%s: binary patch does not apply: %v", name, err)}
			}
		}
	} else if err := applyText(&out, src, gf, name); err != nil {
		return &InputError{source, err.Error()}
	}
	switch {
	case gf.IsDelete:
		t.remove(gf.OldName)
		return nil
	case !gf.IsNew && !gf.IsCopy && gf.OldName != "" && gf.OldName != gf.NewName:
		t.remove(gf.OldName)
	}
	t.files[name] = out.Bytes()
	delete(t.gone, name)
	if gf.NewMode != 0 {
		t.modes[name] = gf.NewMode.Perm()
	}
	return nil
}

// applyText applies the hunks of a text file in the order of their base lines; a hunk that does
// not match the base is named by its number in the diff and its header.
func applyText(dst io.Writer, src []byte, gf *gitdiff.File, name string) error {
	type hunk struct {
		n    int
		frag *gitdiff.TextFragment
	}
	hunks := make([]hunk, len(gf.TextFragments))
	for i, f := range gf.TextFragments {
		hunks[i] = hunk{i + 1, f}
	}
	sort.SliceStable(hunks, func(i, j int) bool { return hunks[i].frag.OldPosition < hunks[j].frag.OldPosition })
	a := gitdiff.NewTextApplier(dst, bytes.NewReader(src))
	for _, h := range hunks {
		if err := a.ApplyFragment(h.frag); err != nil {
			f := h.frag
			where := ""
			var ae *gitdiff.ApplyError
			if errors.As(err, &ae) && ae.Line > 0 {
				where = fmt.Sprintf(" at base line %d", ae.Line)
			}
			return fmt.Errorf("%s: hunk %d (@@ -%d,%d +%d,%d @@) does not apply to the base%s: %v",
				name, h.n, f.OldPosition, f.OldLines, f.NewPosition, f.NewLines, where, err)
		}
	}
	if err := a.Close(); err != nil {
		return fmt.Errorf("%s: the diff does not apply to the base: %v", name, err)
	}
	return nil
}

// read returns the content of path in the tree as applied so far.
func (t *appliedTree) read(path, source string) ([]byte, bool, error) {
	if t.gone[path] {
		return nil, false, nil
	}
	if b, ok := t.files[path]; ok {
		return b, true, nil
	}
	full := filepath.Join(t.base, filepath.FromSlash(path))
	st, err := os.Lstat(full)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("failed to read %s: %w", full, err)
	}
	if !st.Mode().IsRegular() {
		return nil, false, &InputError{source, fmt.Sprintf("%s: not a regular file in the base directory %s", path, t.base)}
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return nil, false, fmt.Errorf("failed to read %s: %w", full, err)
	}
	return b, true, nil
}

func (t *appliedTree) remove(path string) {
	delete(t.files, path)
	delete(t.modes, path)
	t.gone[path] = true
}

func isLinkMode(m os.FileMode) bool {
	// git's modes as go-gitdiff parses them: 120000 (link) and 160000 (submodule).
	return m&0o170000 == 0o120000 || m&0o170000 == 0o160000
}

// trees returns a Change.Trees that copies the base directory twice into a temporary directory
// and writes the applied files into the second copy.
func (t *appliedTree) trees(maxBytes int64) func(ctx context.Context) (string, string, func(), error) {
	return func(ctx context.Context) (string, string, func(), error) {
		return TempTrees(func(baseDir, headDir string) error {
			if err := copyTree(ctx, t.base, baseDir, maxBytes); err != nil {
				return err
			}
			if err := copyTree(ctx, baseDir, headDir, maxBytes); err != nil {
				return err
			}
			return t.write(headDir)
		})
	}
}

// write turns a copy of the base into the head.
func (t *appliedTree) write(dir string) error {
	gone := make([]string, 0, len(t.gone))
	for p := range t.gone {
		gone = append(gone, p)
	}
	sort.Strings(gone)
	for _, p := range gone {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("failed to remove %s from the head tree: %w", p, err)
		}
	}
	written := make([]string, 0, len(t.files))
	for p := range t.files {
		written = append(written, p)
	}
	sort.Strings(written)
	for _, p := range written {
		target := filepath.Join(dir, filepath.FromSlash(p))
		mode := os.FileMode(0o644)
		if st, err := os.Stat(target); err == nil {
			mode = st.Mode().Perm()
		}
		if m, ok := t.modes[p]; ok {
			mode = m | 0o600
		}
		if err := writeFile(target, bytes.NewReader(t.files[p]), mode); err != nil {
			return fmt.Errorf("failed to write the head tree: %w", err)
		}
	}
	return nil
}

// copyTree copies the regular files below from into to, leaving out .git and links (a link could
// point outside the tree); a tree over maxBytes is refused.
func copyTree(ctx context.Context, from, to string, maxBytes int64) error {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return fmt.Errorf("failed to make %s: %w", to, err)
	}
	var total int64
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" && p != from {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // a worktree's .git file
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if total += info.Size(); total > maxBytes {
			return fmt.Errorf("the tree is larger than %s; analysed from the diff only", humanBytes(maxBytes))
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		return writeFile(filepath.Join(to, rel), in, info.Mode().Perm()|0o600)
	})
	if err != nil {
		return fmt.Errorf("failed to copy %s: %w", from, err)
	}
	return nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
