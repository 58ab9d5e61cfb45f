package change

import (
	"context"
	"path"
	"slices"
	"sort"
	"strings"
)

// LineKind says on which side of the change a line is.
type LineKind byte

// Line kinds of a unified diff.
const (
	Context LineKind = ' '
	Added   LineKind = '+'
	Deleted LineKind = '-'
)

// Line is one line of a hunk with its numbers in the old and new file (0 when absent).
type Line struct {
	Kind LineKind
	Old  int
	New  int
	Text string
}

// Hunk is one fragment of a file's diff.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	// Section is the text after the @@ header (often the enclosing function).
	Section string
	Lines   []Line
}

// FileStatus says what happened to a file.
type FileStatus string

// File statuses.
const (
	StatusAdded    FileStatus = "added"
	StatusModified FileStatus = "modified"
	StatusDeleted  FileStatus = "deleted"
	StatusRenamed  FileStatus = "renamed"
)

// File is one file of a change.
type File struct {
	// Path is the new path (the old path for a deleted file).
	Path    string
	OldPath string
	Status  FileStatus
	Binary  bool
	Hunks   []Hunk
	Added   int
	Deleted int
	// Content is the whole file at the head of the change, when known (a new file, a git range,
	// a pull request); analyzers that need a whole file (Go's AST) use it.
	Content    []byte
	HasContent bool

	// Indexes built on first use: new-side lines added, new-side lines shown (added or
	// context) and old-side lines removed.
	added, shown, removed map[int]bool
}

// Language is the file's language by extension ("go", "python", ...), or "" when unknown.
func (f *File) Language() string { return LanguageOf(f.Path) }

// IsTest reports whether the file is test code.
func (f *File) IsTest() bool { return IsTestPath(f.Path) }

// AddedLines returns the added lines of the file in order.
func (f *File) AddedLines() []Line { return f.lines(Added) }

// DeletedLines returns the removed lines of the file in order.
func (f *File) DeletedLines() []Line { return f.lines(Deleted) }

func (f *File) lines(kind LineKind) []Line {
	var out []Line
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Kind == kind {
				out = append(out, l)
			}
		}
	}
	return out
}

// IsAdded reports whether the new-side line n was added by the change.
func (f *File) IsAdded(n int) bool {
	f.index()
	return f.added[n]
}

// IsRemoved reports whether the old-side line n was removed (or changed) by the change.
func (f *File) IsRemoved(n int) bool {
	f.index()
	return f.removed[n]
}

// Line returns the new-side text of line n when the diff or the content shows it.
func (f *File) Line(n int) (string, bool) {
	for _, h := range f.Hunks {
		if n < h.NewStart || n >= h.NewStart+h.NewLines {
			continue
		}
		for _, l := range h.Lines {
			if l.New == n {
				return l.Text, true
			}
		}
	}
	if f.HasContent {
		lines := strings.Split(string(f.Content), "\n")
		if n >= 1 && n <= len(lines) {
			return lines[n-1], true
		}
	}
	return "", false
}

// Shows reports whether the diff shows line n of the new side (an added or context line): a
// line GitHub accepts a review comment on.
func (f *File) Shows(n int) bool {
	f.index()
	return f.shown[n]
}

// Reindex drops the line indexes built on first use, for a caller that changed the file's hunks
// after its lines were read.
func (f *File) Reindex() { f.added, f.shown, f.removed = nil, nil, nil }

func (f *File) index() {
	if f.added != nil {
		return
	}
	f.added, f.shown, f.removed = map[int]bool{}, map[int]bool{}, map[int]bool{}
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case Added:
				f.added[l.New] = true
				f.shown[l.New] = true
			case Context:
				f.shown[l.New] = true
			case Deleted:
				f.removed[l.Old] = true
			}
		}
	}
}

// Change is what is under review: a local diff, a git range or a pull request.
type Change struct {
	// Source says where the change came from ("examples/x.diff", "git main..HEAD", "owner/repo#12").
	Source  string
	Title   string
	Body    string
	BaseRef string
	HeadRef string
	HeadSHA string
	Files   []*File
	// Commits are the messages of the pull request's commits, when read (a git range keeps its
	// messages in Body). They are scanned for text addressed to the reviewer.
	Commits []string
	// Notes say what was left out of the change and why (binary files, ignored paths).
	Notes []string
	// Trees, when set, materialises the base and head trees of the change in directories for
	// whole-tree analysis; cleanup removes them. A git range sets it; a bare diff cannot.
	Trees func(ctx context.Context) (base, head string, cleanup func(), err error)
	// NoTrees, when Trees is nil, says in the transcript why the analysis saw only the diff's
	// hunks and how to give it whole trees (e.g. HunksOnlyNote for a bare diff).
	NoTrees string
	// TreesNotes are what Trees said, when it ran, about the trees it wrote (why whole trees could
	// not be had and what was read instead); the transcript says them beside the analysis's note.
	TreesNotes []string
	// Beside holds head-tree files beside the changed source files (same directory, same
	// language), read while the trees existed (review/codectx), for the model's view of the code
	// around the change and for the citations into it. Keyed by path.
	Beside map[string][]byte
	// reached holds lines outside the diff that whole-tree analysis found new defects on (a
	// guard removed elsewhere made them reachable): citing them stays within the change.
	reached map[string]map[int]bool
}

// Reach brings path:line into the change's scope.
func (c *Change) Reach(path string, line int) {
	if c.reached == nil {
		c.reached = map[string]map[int]bool{}
	}
	if c.reached[path] == nil {
		c.reached[path] = map[int]bool{}
	}
	c.reached[path][line] = true
}

// File returns the file at path.
func (c *Change) File(p string) *File {
	for _, f := range c.Files {
		if f.Path == p || (f.Status == StatusDeleted && f.OldPath == p) {
			return f
		}
	}
	return nil
}

// HasPath implements toulmin.ChangeIndex.
func (c *Change) HasPath(p string) bool { return c.File(p) != nil || c.reached[p] != nil }

// HasLine implements toulmin.ChangeIndex: a line is in the change when the diff shows it, as an
// added or context line on the new side, or as a removed line of a deleted file.
func (c *Change) HasLine(p string, n int) bool {
	if c.reached[p][n] {
		return true
	}
	f := c.File(p)
	if f == nil || n < 1 {
		return false
	}
	f.index()
	if f.Status == StatusDeleted {
		return f.removed[n]
	}
	return f.shown[n]
}

// Empty implements toulmin.ChangeIndex.
func (c *Change) Empty() bool { return len(c.Files) == 0 }

// Stats sums added and deleted lines.
func (c *Change) Stats() (files, added, deleted int) {
	for _, f := range c.Files {
		added += f.Added
		deleted += f.Deleted
	}
	return len(c.Files), added, deleted
}

var languages = map[string]string{
	".go": "go", ".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript", ".java": "java", ".kt": "kotlin", ".rb": "ruby", ".php": "php",
	".rs": "rust", ".cs": "csharp", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".sh": "shell",
}

// LanguageOf returns the language of a path by its extension.
func LanguageOf(p string) string { return languages[strings.ToLower(path.Ext(p))] }

// IsLanguage reports whether name is a language LanguageOf can return.
func IsLanguage(name string) bool {
	for _, l := range languages {
		if l == name {
			return true
		}
	}
	return false
}

// Languages returns the languages LanguageOf can return, sorted.
func Languages() []string {
	var out []string
	for _, l := range languages {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// IsTestPath reports whether a path is test code by the conventions of the common languages.
func IsTestPath(p string) bool {
	base := path.Base(p)
	lower := strings.ToLower(p)
	switch {
	case strings.HasSuffix(base, "_test.go"),
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"),
		strings.HasSuffix(base, "_test.py"),
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec."),
		strings.HasSuffix(base, "Test.java") || strings.HasSuffix(base, "Tests.java"),
		strings.HasPrefix(lower, "test/") || strings.HasPrefix(lower, "tests/") || strings.HasPrefix(lower, "testdata/"),
		strings.Contains(lower, "/test/") || strings.Contains(lower, "/tests/") || strings.Contains(lower, "/__tests__/") || strings.Contains(lower, "/testdata/"):
		return true
	}
	return false
}

// IsGeneratedPath reports vendored, generated and lock files, whose findings belong to their
// generator or upstream rather than to the change.
func IsGeneratedPath(p string) bool {
	base := path.Base(p)
	switch base {
	case "go.sum", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "poetry.lock", "Gemfile.lock", "composer.lock", "uv.lock":
		return true
	}
	return strings.HasPrefix(p, "vendor/") || strings.Contains(p, "/vendor/") || strings.Contains(p, "node_modules/") ||
		strings.HasSuffix(base, ".pb.go") || strings.HasSuffix(base, "_gen.go") || strings.HasSuffix(base, ".gen.go") ||
		strings.HasSuffix(base, ".min.js") || strings.HasSuffix(base, "_generated.go")
}

// IsGenerated also looks for Go's "Code generated ... DO NOT EDIT." header in the content.
func (f *File) IsGenerated() bool {
	if IsGeneratedPath(f.Path) {
		return true
	}
	head := f.Content
	if !f.HasContent {
		var b strings.Builder
		for i, l := range f.AddedLines() {
			if i > 5 {
				break
			}
			b.WriteString(l.Text + "\n")
		}
		head = []byte(b.String())
	}
	if len(head) > 2048 {
		head = head[:2048]
	}
	s := string(head)
	return strings.Contains(s, "Code generated") && strings.Contains(s, "DO NOT EDIT")
}

// SortFiles orders files by path so that every consumer sees the same order.
func SortFiles(fs []*File) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
}
