package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/render"
)

// Bounds of DirTrees, per tree: what reading a repository too large to fetch may cost in API
// requests and memory.
const (
	maxDirTreeDirs  = 20
	maxDirTreeFiles = 300
	maxDirTreeBytes = 32 << 20
	// dirTreeWorkers read files at once.
	dirTreeWorkers = 8
)

// DirTrees writes, instead of whole trees, the directories of the change's Go packages at base
// and head into baseDir and headDir, read through the contents API: each changed Go file's
// directory (its Go files) and the go.mod nearest above it, so that the type-checked analysis
// can load the changed packages (what they import from elsewhere in the repository is missing,
// and the analysis says those packages are degraded). A directory missing at one side (a package
// added or removed) is no error; any other failure is, and so is passing the bounds
// (maxDirTree*): base and head must be read alike, or the comparison of their findings would call
// old findings new. Go files over DefaultMaxFileBytes are left out at both sides and returned, to
// be said in the transcript.
func DirTrees(ctx context.Context, gh TreeReader, pr PullRequest, c *change.Change, base, head, baseDir, headDir string) ([]string, error) {
	dirs := map[string]bool{}
	for _, f := range c.Files {
		for _, p := range []string{f.Path, f.OldPath} {
			if strings.HasSuffix(p, ".go") {
				dirs[path.Dir(p)] = true
			}
		}
	}
	if len(dirs) > maxDirTreeDirs {
		return nil, fmt.Errorf("the change touches Go files in %d directories, more than the %d read without whole trees", len(dirs), maxDirTreeDirs)
	}
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Strings(list)
	var left []string
	goFiles := 0
	for _, side := range []struct{ ref, dir string }{{base, baseDir}, {head, headDir}} {
		r := &dirReader{gh: gh, pr: pr, ref: side.ref, dest: side.dir, listed: map[string]bool{}}
		n, l, err := r.read(ctx, list)
		if err != nil {
			return nil, err
		}
		goFiles += n
		left = append(left, l...)
	}
	if goFiles == 0 {
		return nil, fmt.Errorf("the changed packages' directories of %s hold no Go file at either commit", pr)
	}
	sort.Strings(left)
	return slices.Compact(left), nil
}

// TreeReader reads the directories and files of a pull request's repository at a commit.
type TreeReader interface {
	FileReader
	// Dir lists the directory at path on ref ("" is the root).
	Dir(ctx context.Context, pr PullRequest, path, ref string) ([]Entry, error)
}

// dirFile is a file to write: its path, and its content when it was read with the listing.
type dirFile struct {
	path    string
	content []byte
	read    bool
}

// dirReader reads directories of one commit into dest.
type dirReader struct {
	gh   TreeReader
	pr   PullRequest
	ref  string
	dest string
	// listed says, for each directory read ("." is the root), whether it holds a go.mod.
	listed map[string]bool
}

// read writes the Go files of dirs and their modules' go.mod, and returns how many Go files it
// wrote and those it left out for their size.
func (r *dirReader) read(ctx context.Context, dirs []string) (int, []string, error) {
	files, left, err := r.listFiles(ctx, dirs)
	if err != nil {
		return 0, nil, err
	}
	if files, err = r.addModules(ctx, dirs, files); err != nil {
		return 0, nil, err
	}
	if len(files) > maxDirTreeFiles {
		return 0, nil, fmt.Errorf("the changed packages' directories hold %d files at %s, more than the %d read without whole trees", len(files), render.ShortSHA(r.ref), maxDirTreeFiles)
	}
	n, err := r.fetch(ctx, files)
	if err != nil {
		return 0, nil, err
	}
	return n, left, nil
}

// listFiles lists the Go files of dirs, and those left out for their size.
func (r *dirReader) listFiles(ctx context.Context, dirs []string) (files []dirFile, left []string, err error) {
	for _, d := range dirs {
		entries, err := r.list(ctx, d)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range entries {
			if e.Size > DefaultMaxFileBytes {
				left = append(left, fmt.Sprintf("%s (larger than %d KiB)", e.Path, DefaultMaxFileBytes>>10))
				continue
			}
			files = append(files, dirFile{path: e.Path})
		}
	}
	return files, left, nil
}

// addModules adds to files the go.mod of each directory's module: in the directory, or the
// nearest above it.
func (r *dirReader) addModules(ctx context.Context, dirs []string, files []dirFile) ([]dirFile, error) {
	mods := map[string]bool{}
	hasMod := func(d string) (bool, error) {
		if has, ok := r.listed[d]; ok {
			return has, nil
		}
		if has, ok := mods[d]; ok {
			return has, nil
		}
		mod := path.Join(d, "go.mod")
		content, found, err := r.get(ctx, mod)
		if err != nil {
			return false, err
		}
		if found {
			files = append(files, dirFile{path: mod, content: content, read: true})
		}
		mods[d] = found
		return found, nil
	}
	for _, d := range dirs {
		for anc := d; ; anc = path.Dir(anc) {
			has, err := hasMod(anc)
			if err != nil {
				return nil, err
			}
			if has || anc == "." {
				break
			}
		}
	}
	return files, nil
}

// fetch reads the files' content with dirTreeWorkers at once, within maxDirTreeBytes in all, and
// writes them; it returns how many Go files it wrote.
func (r *dirReader) fetch(ctx context.Context, files []dirFile) (int, error) {
	var (
		mu    sync.Mutex
		total int
		n     int
		errs  []error
		wg    sync.WaitGroup
		work  = make(chan dirFile)
	)
	for range dirTreeWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range work {
				content, err := r.content(ctx, e)
				mu.Lock()
				if err == nil && total+len(content) > maxDirTreeBytes {
					err = fmt.Errorf("the changed packages' directories hold more than %d MiB at %s, more than read without whole trees", maxDirTreeBytes>>20, render.ShortSHA(r.ref))
				}
				total += len(content)
				mu.Unlock()
				if err == nil {
					err = r.write(e.path, content)
				}
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else if strings.HasSuffix(e.path, ".go") {
					n++
				}
				mu.Unlock()
			}
		}()
	}
	for _, e := range files {
		if ctx.Err() != nil {
			break
		}
		work <- e
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("reading the directories of %s at %s stopped: %w", r.pr, render.ShortSHA(r.ref), err)
	}
	if len(errs) > 0 {
		return 0, errs[0]
	}
	return n, nil
}

// list returns the Go files and go.mod of directory d at the reader's commit; a directory the
// commit lacks has none.
func (r *dirReader) list(ctx context.Context, d string) ([]Entry, error) {
	p := d
	if p == "." {
		p = ""
	}
	entries, err := r.gh.Dir(ctx, r.pr, p, r.ref)
	if NotFound(err) {
		r.listed[d] = false
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to list %s of %s at %s: %w", d, r.pr, render.ShortSHA(r.ref), err)
	}
	var out []Entry
	for _, e := range entries {
		if e.Type != "file" || (!strings.HasSuffix(e.Name, ".go") && e.Name != "go.mod") {
			continue
		}
		r.listed[d] = r.listed[d] || e.Name == "go.mod"
		out = append(out, e)
	}
	return out, nil
}

// get reads the file at p; found is false when the commit has none.
func (r *dirReader) get(ctx context.Context, p string) (content []byte, found bool, err error) {
	content, err = r.gh.File(ctx, r.pr, p, r.ref)
	var undecodable *DecodeError
	switch {
	case NotFound(err):
		return nil, false, nil
	case errors.As(err, &undecodable):
		return nil, false, fmt.Errorf("failed to decode %s of %s at %s: %w", p, r.pr, render.ShortSHA(r.ref), err)
	case err != nil:
		return nil, false, fmt.Errorf("failed to read %s of %s at %s: %w", p, r.pr, render.ShortSHA(r.ref), err)
	}
	return content, true, nil
}

// content is the text of a file, read unless it was read with the listing (a go.mod read by get).
func (r *dirReader) content(ctx context.Context, f dirFile) ([]byte, error) {
	if f.read {
		return f.content, nil
	}
	content, found, err := r.get(ctx, f.path)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%s of %s at %s was listed, then not found", f.path, r.pr, render.ShortSHA(r.ref))
	}
	return content, nil
}

// write puts the file at its repository path under dest; a path that would leave dest is refused.
func (r *dirReader) write(p string, content []byte) error {
	name := filepath.FromSlash(p)
	if !filepath.IsLocal(name) {
		return fmt.Errorf("%q is not a path inside the repository", p)
	}
	full := filepath.Join(r.dest, name)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return fmt.Errorf("failed to make %s: %w", filepath.Dir(full), err)
	}
	if err := os.WriteFile(full, content, 0o644); err != nil {
		return fmt.Errorf("failed to write %s: %w", full, err)
	}
	return nil
}
