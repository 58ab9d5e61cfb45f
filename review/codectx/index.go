package codectx

import (
	"bytes"
	"sync"

	"github.com/debatebot/debatebot/review/change"
)

// HeadIndex answers the debate's citation check (toulmin.ChangeIndex) from the head tree: a
// claim may cite a line the diff shows, or any line that exists in the head version of a changed
// file or of a file beside one (the code the model was shown around the change). A line past a
// file's end, or a path the change does not reach, is refused.
type HeadIndex struct {
	Change *change.Change

	once  sync.Once
	count map[string]int // lines of each head file
}

// NewHeadIndex is the citation check of c.
func NewHeadIndex(c *change.Change) *HeadIndex { return &HeadIndex{Change: c} }

// HasPath reports whether p is a file of the change, or a head file beside one.
func (x *HeadIndex) HasPath(p string) bool {
	if x.Change.HasPath(p) {
		return true
	}
	_, ok := x.Change.Beside[p]
	return ok
}

// HasLine reports whether p:n is shown by the change or exists in the head tree.
func (x *HeadIndex) HasLine(p string, n int) bool {
	if x.Change.HasLine(p, n) {
		return true
	}
	x.once.Do(x.countLines)
	return n >= 1 && n <= x.count[p]
}

// Empty reports whether the change has no files (a design question).
func (x *HeadIndex) Empty() bool { return x.Change.Empty() }

func (x *HeadIndex) countLines() {
	x.count = map[string]int{}
	lines := func(b []byte) int {
		n := bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
		return n
	}
	for p, b := range x.Change.Beside {
		x.count[p] = lines(b)
	}
	for _, f := range x.Change.Files {
		if f.HasContent && f.Status != change.StatusDeleted {
			x.count[f.Path] = lines(f.Content)
		}
	}
}
