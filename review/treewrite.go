package review

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/render"
)

// TreeLimits bounds what writing the base and head trees of one change from git may put on disk:
// the trees are the pull request author's input, and a small repository can list one large blob
// under many paths.
type TreeLimits struct {
	// MaxBytes and MaxFiles bound the bytes and the files written, base and head together.
	MaxBytes int64
	MaxFiles int
	// MaxFileBytes is the largest file written; larger ones are left out, as the analyzers read
	// none larger (DefaultMaxFileBytes).
	MaxFileBytes int64
}

// Defaults of TreeLimits (DEBATEBOT_MAX_TREE_MB and DEBATEBOT_MAX_TREE_FILES for serve).
const (
	DefaultMaxTreeMB    = 512
	DefaultMaxTreeFiles = 100_000
)

// DefaultTreeLimits are the limits `debate --git` and the Action write trees with.
func DefaultTreeLimits() TreeLimits {
	return TreeLimits{MaxBytes: DefaultMaxTreeMB << 20, MaxFiles: DefaultMaxTreeFiles, MaxFileBytes: DefaultMaxFileBytes}
}

// GitTrees says which trees WriteGitTrees writes.
type GitTrees struct {
	// Repo is the git repository (a work tree or a bare repository).
	Repo string
	// Base and Head are the commits whose trees are written.
	Base, Head string
	// Changed are the change's paths, old and new (slash-separated, relative to the root): when
	// the whole trees pass the limits, only what the analysis of these needs is written.
	Changed []string
	Limits  TreeLimits
	// Env is git's environment; nil is the process's.
	Env []string
}

// WrittenTrees are the directories WriteGitTrees wrote, what it left out (said in the evidence
// phase), and the cleanup that removes them.
type WrittenTrees struct {
	Base, Head string
	Notes      []string
	Cleanup    func()
}

// WriteGitTrees writes the trees of g.Base and g.Head into a temporary directory. It lists both
// trees first (sizes come before any byte is written), leaves out links, submodules, paths that
// would leave the directory and files over the per-file limit, and when what is left passes the
// limits falls back to the changed files' directories and their module files, then to the
// module files and as many changed files as fit, saying so in Notes; it fails only when the
// module files alone do not fit. Blobs are streamed from one
// git cat-file process straight to their files. The tree's own attributes (export-ignore,
// export-subst, filters) are never applied: the files are written as committed.
func WriteGitTrees(ctx context.Context, g GitTrees) (*WrittenTrees, error) {
	places := placesOf(g.Changed)
	base, err := listTree(ctx, g.Repo, g.Base, g.Env, g.Limits, places)
	if err != nil {
		return nil, err
	}
	head, err := listTree(ctx, g.Repo, g.Head, g.Env, g.Limits, places)
	if err != nil {
		return nil, err
	}
	sel, notes, err := planTrees(base, head, places, g.Limits)
	if err != nil {
		return nil, err
	}
	baseDir, headDir, cleanup, err := TempTrees(func(baseDir, headDir string) error {
		return writeBlobs(ctx, g.Repo, g.Env, []treeDest{{baseDir, sel.base}, {headDir, sel.head}})
	})
	if err != nil {
		return nil, err
	}
	return &WrittenTrees{Base: baseDir, Head: headDir, Notes: notes, Cleanup: cleanup}, nil
}

// treeFile is a regular file of a tree listing.
type treeFile struct {
	path string // slash-separated, relative to the root
	sha  string
	size int64
	exec bool
}

// treeListing is the regular files of a tree up to the per-file limit, and the count and first
// names of those over it. Past the file budget only the files relevant to a fallback are kept (a
// tree of a million empty files is not held in memory): those of the changed directories while
// they are within the budget (past it, dirsTruncated), then only the changed and module files;
// count and bytes are of them all.
type treeListing struct {
	files         []treeFile
	count         int
	bytes         int64
	truncated     bool
	inDirs        int
	dirsTruncated bool
	large         []string
	largeCount    int
}

// maxLargeNames bounds the names kept of the files over the per-file limit (a tree may list one
// large blob under millions of paths); only a few are said.
const maxLargeNames = 100

// listTree lists the regular files of rev's tree with their sizes (git ls-tree -r -l -z, read as
// it comes), leaving out links, submodules and paths that are not local to the tree (or pass
// through a .git).
func listTree(ctx context.Context, repo, rev string, env []string, lim TreeLimits, places changedPlaces) (*treeListing, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "ls-tree", "-r", "-l", "-z", "--full-tree", rev+"^{tree}")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("failed to list the tree of %s: %w", render.ShortSHA(rev), err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("failed to list the tree of %s: %w", render.ShortSHA(rev), err)
	}
	l, readErr := readListing(stdout, lim, places)
	if readErr != nil {
		_ = cmd.Process.Kill()
	}
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil && readErr == nil {
		return nil, fmt.Errorf("failed to list the tree of %s: %w: %s", render.ShortSHA(rev), err, clipString(strings.TrimSpace(stderr.String()), maxStderr))
	}
	if readErr != nil {
		return nil, fmt.Errorf("failed to list the tree of %s: %w", render.ShortSHA(rev), readErr)
	}
	return l, nil
}

// readListing reads git ls-tree -r -l -z's records.
func readListing(r io.Reader, lim TreeLimits, places changedPlaces) (*treeListing, error) {
	l := &treeListing{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		f, ok, err := parseTreeRecord(sc.Text())
		if err != nil {
			return nil, err
		}
		switch {
		case !ok:
		case lim.MaxFileBytes > 0 && f.size > lim.MaxFileBytes:
			l.largeCount++
			if len(l.large) < maxLargeNames {
				l.large = append(l.large, f.path)
			}
		default:
			if l.keep(f, lim, places) {
				l.files = append(l.files, f)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("failed to read the listing: %w", err)
	}
	return l, nil
}

// keep counts f and reports whether it is kept.
func (l *treeListing) keep(f treeFile, lim TreeLimits, places changedPlaces) bool {
	l.count++
	l.bytes += f.size
	inDirs := places.inDirs(f.path)
	if inDirs {
		l.inDirs++
	}
	if lim.MaxFiles <= 0 || l.count <= lim.MaxFiles {
		return true
	}
	l.truncated = true
	if inDirs && l.inDirs > lim.MaxFiles {
		l.dirsTruncated = true
		return places.files[f.path] || moduleFile(f.path, places.ancestors)
	}
	return inDirs
}

// parseTreeRecord reads one record of git ls-tree -l: "<mode> <type> <object> <size>\t<path>";
// ok is false for what is not written (anything but a regular file, or a path that is unsafe).
func parseTreeRecord(rec string) (treeFile, bool, error) {
	meta, p, found := strings.Cut(rec, "\t")
	fields := strings.Fields(meta)
	if !found || len(fields) != 4 {
		return treeFile{}, false, fmt.Errorf("unexpected ls-tree record %q", clipString(rec, 120))
	}
	mode, typ := fields[0], fields[1]
	if typ != "blob" || (mode != "100644" && mode != "100755") {
		return treeFile{}, false, nil // links (120000), submodules (160000)
	}
	size, err := strconv.ParseInt(fields[3], 10, 64)
	if err != nil || size < 0 {
		return treeFile{}, false, fmt.Errorf("unexpected size in ls-tree record %q", clipString(rec, 120))
	}
	if !safeTreePath(p) {
		return treeFile{}, false, nil
	}
	return treeFile{path: p, sha: fields[2], size: size, exec: mode == "100755"}, true, nil
}

// Bounds of a written path, those of common file systems (PATH_MAX, NAME_MAX): a longer one
// could not be written, and is left out rather than fail the trees or be held and said.
const (
	maxTreePath = 4096
	maxTreeName = 255
)

// maxStderr bounds what of git's standard error an error says.
const maxStderr = 1000

// safeTreePath reports whether a tree's path stays inside the directory it is written to, is not
// too long to write, and passes through no .git (which would make a directory of the tree a
// repository to tools).
func safeTreePath(p string) bool {
	if p == "" || len(p) > maxTreePath || strings.ContainsRune(p, '\\') || !filepath.IsLocal(filepath.FromSlash(p)) {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || len(part) > maxTreeName || strings.EqualFold(part, ".git") {
			return false
		}
	}
	return true
}

func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// treeDest is the files of one tree and where they are written.
type treeDest struct {
	dir   string
	files []treeFile
}

// writeBlobs writes the files of each tree from one git cat-file --batch, a blob at a time, never
// holding one whole in memory; a blob whose size is not the listed one fails the write.
func writeBlobs(ctx context.Context, repo string, env []string, dests []treeDest) (err error) {
	for _, d := range dests {
		if err := os.MkdirAll(d.dir, 0o755); err != nil {
			return fmt.Errorf("failed to make %s: %w", d.dir, err)
		}
	}
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "cat-file", "--batch")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("failed to start git cat-file: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("failed to start git cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("failed to start git cat-file: %w", err)
	}
	// The object names go in from a goroutine: git answers while it reads, and a full pipe on
	// either side must not stop the other.
	fed := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(stdin)
		var err error
		for _, d := range dests {
			for _, f := range d.files {
				if _, err = w.WriteString(f.sha + "\n"); err != nil {
					break
				}
			}
		}
		err = errors.Join(err, w.Flush(), stdin.Close())
		fed <- err
	}()
	readErr := readBlobs(bufio.NewReaderSize(stdout, 64<<10), dests)
	if readErr != nil {
		_ = cmd.Process.Kill()
	}
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	feedErr := <-fed
	if readErr != nil {
		return readErr
	}
	if err := errors.Join(waitErr, feedErr); err != nil {
		return fmt.Errorf("git cat-file: %w: %s", err, clipString(strings.TrimSpace(stderr.String()), maxStderr))
	}
	return nil
}

// readBlobs reads git cat-file --batch's answers, in the order asked, into the trees' files.
func readBlobs(r *bufio.Reader, dests []treeDest) error {
	for _, d := range dests {
		for _, f := range d.files {
			header, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("failed to read %s from git cat-file: %w", f.path, err)
			}
			fields := strings.Fields(header)
			if len(fields) != 3 || fields[0] != f.sha || fields[1] != "blob" || fields[2] != strconv.FormatInt(f.size, 10) {
				return fmt.Errorf("failed to read %s: git cat-file answered %q for blob %s of %d bytes", f.path, strings.TrimSpace(header), f.sha, f.size)
			}
			mode := os.FileMode(0o644)
			if f.exec {
				mode = 0o755
			}
			target := filepath.Join(d.dir, filepath.FromSlash(f.path))
			if err := writeFile(target, io.LimitReader(r, f.size), mode); err != nil {
				return err
			}
			if b, err := r.ReadByte(); err != nil || b != '\n' {
				return fmt.Errorf("failed to read %s from git cat-file: the blob is not %d bytes", f.path, f.size)
			}
		}
	}
	return nil
}

// treeSelection is the files of base and head to write, and what they hold.
type treeSelection struct {
	base, head []treeFile
	bytes      int64
	files      int
}

func selectFiles(base, head *treeListing, keep func(string) bool) treeSelection {
	var s treeSelection
	pick := func(files []treeFile) []treeFile {
		var out []treeFile
		for _, f := range files {
			if keep(f.path) {
				out = append(out, f)
				s.bytes += f.size
				s.files++
			}
		}
		return out
	}
	s.base, s.head = pick(base.files), pick(head.files)
	return s
}

func (l TreeLimits) fits(bytes int64, files int) bool {
	return (l.MaxBytes <= 0 || bytes <= l.MaxBytes) && (l.MaxFiles <= 0 || files <= l.MaxFiles)
}

// describe says what bytes in files are against the limits.
func (l TreeLimits) describe(bytes int64, files int) string {
	return fmt.Sprintf("%s in %d files, over the trees' budget of %s and %d files", mib(bytes), files, mib(l.MaxBytes), l.MaxFiles)
}

func mib(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// planTrees chooses what to write of both trees, alike for base and head (or comparing their
// findings would call old findings new): every file up to the per-file limit; when that passes
// the budget, the changed files' directories and their module files; then the module files and
// as many changed files as fit; past that, nothing.
func planTrees(base, head *treeListing, places changedPlaces, lim TreeLimits) (treeSelection, []string, error) {
	var notes []string
	if large := unique(append(append([]string(nil), base.large...), head.large...)); len(large) > 0 {
		// Past the names kept, the paths at both sides are not known: the larger side's count.
		n := max(len(large), base.largeCount, head.largeCount)
		notes = append(notes, fmt.Sprintf("%d file(s) larger than %d KiB left out of the trees, as the analyzers read none larger: %s",
			n, lim.MaxFileBytes>>10, limitPaths(large, n, 5)))
	}
	bytes, count := base.bytes+head.bytes, base.count+head.count
	if lim.fits(bytes, count) && !base.truncated && !head.truncated {
		return selectFiles(base, head, func(string) bool { return true }), notes, nil
	}
	over := "the trees hold " + lim.describe(bytes, count)
	pkgs := selectFiles(base, head, places.inDirs)
	if lim.fits(pkgs.bytes, pkgs.files) && !base.dirsTruncated && !head.dirsTruncated {
		notes = append(notes, over+": only the changed files' directories and their module files were written, and the analysis lacks the rest of the repository")
		return pkgs, notes, nil
	}
	only, left, err := fitChanged(base, head, places, lim)
	if err != nil {
		return treeSelection{}, nil, fmt.Errorf("%s, and %w", over, err)
	}
	what := "only the changed files and their module files were written"
	if left > 0 {
		what = fmt.Sprintf("only the module files and the changed files that fit, source code and the smallest first, were written (%d changed file(s) left out)", left)
	}
	notes = append(notes, over+", and so do the changed files' directories: "+what+", and the analysis lacks the rest of the repository")
	return only, notes, nil
}

// fitChanged selects the module files of the changed directories, then as many changed files as
// fit, source code in a language the analyzers read first and the smallest first (a path at both
// sides or at neither), and says how many it left out.
func fitChanged(base, head *treeListing, places changedPlaces, lim TreeLimits) (treeSelection, int, error) {
	type cost struct {
		bytes int64
		files int
	}
	costs := map[string]*cost{}
	var mods cost
	for _, f := range append(append([]treeFile(nil), base.files...), head.files...) {
		switch {
		case moduleFile(f.path, places.ancestors):
			mods.bytes += f.size
			mods.files++
		case places.files[f.path]:
			if costs[f.path] == nil {
				costs[f.path] = &cost{}
			}
			costs[f.path].bytes += f.size
			costs[f.path].files++
		}
	}
	if !lim.fits(mods.bytes, mods.files) {
		return treeSelection{}, 0, fmt.Errorf("the module files alone hold %s", lim.describe(mods.bytes, mods.files))
	}
	paths := make([]string, 0, len(costs))
	for p := range costs {
		paths = append(paths, p)
	}
	// Source the analyzers read first, then the rest; the smallest first within each.
	code := func(p string) bool { return change.LanguageOf(p) != "" }
	sort.Slice(paths, func(i, j int) bool {
		if ci, cj := code(paths[i]), code(paths[j]); ci != cj {
			return ci
		}
		a, b := costs[paths[i]], costs[paths[j]]
		return a.bytes < b.bytes || (a.bytes == b.bytes && paths[i] < paths[j])
	})
	keep := map[string]bool{}
	total := mods
	for _, p := range paths {
		c := costs[p]
		if !lim.fits(total.bytes+c.bytes, total.files+c.files) {
			break
		}
		total.bytes += c.bytes
		total.files += c.files
		keep[p] = true
	}
	sel := selectFiles(base, head, func(p string) bool { return keep[p] || moduleFile(p, places.ancestors) })
	return sel, len(paths) - len(keep), nil
}

// unique returns the strings in their first order, each once.
func unique(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// changedPlaces says where the change is: the directories of the changed paths, those with
// all their ancestors (the root is "."), and the changed paths.
type changedPlaces struct {
	dirs, ancestors, files map[string]bool
}

func placesOf(changed []string) changedPlaces {
	c := changedPlaces{dirs: map[string]bool{}, ancestors: map[string]bool{".": true}, files: map[string]bool{}}
	for _, p := range changed {
		if p == "" {
			continue
		}
		c.files[p] = true
		c.dirs[path.Dir(p)] = true
		for d := path.Dir(p); !c.ancestors[d]; d = path.Dir(d) {
			c.ancestors[d] = true
		}
	}
	return c
}

// inDirs reports whether p is in a changed directory or is a module file for one.
func (c changedPlaces) inDirs(p string) bool {
	return c.dirs[path.Dir(p)] || moduleFile(p, c.ancestors)
}

// moduleFiles are the files that say how the code of their directory and those below it is
// built: what loads a package (the go command) or resolves an import reads them.
var moduleFiles = map[string]bool{
	"go.mod": true, "go.sum": true, "go.work": true, "go.work.sum": true,
	"package.json": true, "tsconfig.json": true, "jsconfig.json": true,
	"pyproject.toml": true, "setup.py": true, "setup.cfg": true,
}

// moduleFile reports whether p is a module file in one of dirs (the changed directories' and
// their ancestors), or the vendor/modules.txt beside one.
func moduleFile(p string, dirs map[string]bool) bool {
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	if moduleFiles[name] {
		return dirs[dir]
	}
	if name == "modules.txt" && path.Base(dir) == "vendor" {
		return dirs[path.Dir(dir)]
	}
	return false
}

// limitPaths joins the first n paths of total, saying how many more there are.
func limitPaths(paths []string, total, n int) string {
	if total <= n || len(paths) <= n {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:n], ", "), total-n)
}
