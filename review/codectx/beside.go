package codectx

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/rs/zerolog/log"
)

// Limits of reading the files beside the changed ones: how many of one directory, and how many
// bytes in all.
const (
	maxBesideFiles = 200
	maxBesideBytes = 8 << 20
	// maxBesideEntries bounds the entries of one directory listed: a directory of a million
	// files costs its first ones, not a million names in memory.
	maxBesideEntries = 10_000
)

// Reader keeps, while the evidence is gathered and the trees exist, the head-tree files beside
// the changed source files (the same directory and language family, tests left out) in the
// change's Beside, for Build and HeadIndex. It reports no findings. A change without trees (a
// bare diff) keeps none, and the code around it comes from the changed files alone.
type Reader struct{}

// Name implements scan.Analyzer.
func (Reader) Name() string { return "code around the change" }

// Analyze implements scan.Analyzer.
func (Reader) Analyze(s *scan.Scan) {
	c := s.Change
	dirs := changedDirs(c)
	if c.Trees == nil || len(dirs) == 0 {
		return
	}
	_, head, err := s.Trees()
	if err != nil {
		return // the analyzers that need the trees say why they are missing
	}
	root, err := os.OpenRoot(head)
	if err != nil {
		s.Note(fmt.Sprintf("the files beside the changed ones could not be read: %v", err))
		return
	}
	defer func() { _ = root.Close() }()
	if c.Beside == nil {
		c.Beside = map[string][]byte{}
	}
	budget := maxBesideBytes
	var skipped int
	for _, dir := range dirs {
		n, cut := readBeside(root, dir, c, &budget)
		skipped += n
		if cut {
			s.Note(fmt.Sprintf("%s has over %d entries: only %d of them were looked at for the code around the change", dirLabel(dir), maxBesideEntries, maxBesideEntries))
		}
	}
	if skipped > 0 {
		s.Note(fmt.Sprintf("%d file(s) beside the changed ones were not read for the code around the change (over %d per directory, over 1 MiB, or over %d MiB in all)",
			skipped, maxBesideFiles, maxBesideBytes>>20))
	}
}

// ReadBeside keeps the files beside the changed ones in c.Beside outside evidence gathering (a
// resumed debate does not gather again), writing the trees for it; a change without trees, or
// whose files beside are already read, is left as it is.
func ReadBeside(ctx context.Context, c *change.Change) {
	if c.Trees == nil || c.Beside != nil || len(changedDirs(c)) == 0 {
		return
	}
	if _, notes, err := scan.GatherWithNotes(ctx, c, []scan.Analyzer{Reader{}}); err != nil {
		log.Warn().Err(err).Strs("notes", notes).Msg("the files beside the change could not be read")
	}
}

// changedDirs are the directories of the changed source files still in the head, sorted.
func changedDirs(c *change.Change) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range c.Files {
		if f.Status == change.StatusDeleted || !parsable(f.Path) || f.IsGenerated() {
			continue
		}
		if d := dirOf(f.Path); !seen[d] && fs.ValidPath(d) {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// readBeside reads dir's source files of a changed language family into c.Beside, within the
// limits, and returns how many it left out, and whether dir had more entries than were listed. The root keeps every read inside the head tree; a
// link is not followed.
func readBeside(root *os.Root, dir string, c *change.Change, budget *int) (skipped int, cut bool) {
	families := map[string]bool{}
	for _, f := range c.Files {
		if dirOf(f.Path) == dir {
			families[family(f.Path)] = true
		}
	}
	entries, cut, err := listAtMost(root, dir, maxBesideEntries)
	if err != nil {
		return 0, false
	}
	kept := 0
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		if !e.Type().IsRegular() || !parsable(p) || !families[family(p)] || change.IsTestPath(p) || change.IsGeneratedPath(p) || c.File(p) != nil {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() > MaxFileBytes || int(info.Size()) > *budget || kept >= maxBesideFiles {
			skipped++
			continue
		}
		data, err := readAtMost(root, p, MaxFileBytes)
		if err != nil {
			skipped++
			continue
		}
		*budget -= len(data)
		c.Beside[p] = data
		kept++
	}
	return skipped, cut
}

// dirLabel names a tree directory in a note ("." is the tree's root).
func dirLabel(dir string) string {
	if dir == "." || dir == "" {
		return "the tree's root"
	}
	return dir
}

// listAtMost lists at most n entries of dir, sorted by name, and says whether it has more.
// Entries are read in batches, so that a huge directory costs n names, not all of them;
// which n those are is the file system's order, the same for the same tree.
func listAtMost(root *os.Root, dir string, n int) ([]fs.DirEntry, bool, error) {
	f, err := root.Open(dir)
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = f.Close() }()
	var out []fs.DirEntry
	for len(out) < n {
		batch, err := f.ReadDir(min(1024, n-len(out)))
		out = append(out, batch...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
	}
	more := false
	if len(out) == n {
		next, _ := f.ReadDir(1)
		more = len(next) > 0
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, more, nil
}

func readAtMost(root *os.Root, p string, n int64) ([]byte, error) {
	f, err := root.Open(p)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return io.ReadAll(io.LimitReader(f, n))
}
