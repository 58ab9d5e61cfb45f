package evidence

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// incompleteReasons begin the reasons of a degradation that leaves a package without full types
// (an analyzer that did not run leaves its types whole).
var incompleteReasons = []string{reasonTypesIncomplete, reasonNotLoaded, reasonCgoLeftOut}

const (
	reasonTypesIncomplete = "type information incomplete"
	reasonNotLoaded       = "not loaded"
	reasonCgoLeftOut      = "file(s) importing \"C\" left out"
)

func typesIncomplete(reason string) bool {
	for _, p := range incompleteReasons {
		if strings.HasPrefix(reason, p) || strings.Contains(reason, " "+p) {
			return true
		}
	}
	return false
}

// TypeCoverage says how many of a change's Go packages (the directories of its changed Go files
// that exist in head) were fully type-checked in head: loaded, and with no package of the
// directory degraded for missing types.
func (r *TreeReport) TypeCoverage() (full, changed int) {
	incomplete := map[string]bool{}
	for _, d := range r.Degraded {
		if typesIncomplete(d.Reason) {
			incomplete[d.Package] = true
		}
	}
	for _, dir := range r.changed {
		loaded, whole := false, true
		for p, d := range r.dirs {
			if d != dir {
				continue
			}
			loaded = true
			whole = whole && !incomplete[p]
		}
		changed++
		if loaded && whole {
			full++
		}
	}
	return full, changed
}

// Coverage adds up TypeCoverage over the analyses run under a context (see WithCoverage).
type Coverage struct {
	mu            sync.Mutex
	Full, Changed int
}

type coverageKey struct{}

// WithCoverage returns a context under which each type-checked Go analysis adds its head tree's
// TypeCoverage to c.
func WithCoverage(ctx context.Context, c *Coverage) context.Context {
	return context.WithValue(ctx, coverageKey{}, c)
}

func addCoverage(ctx context.Context, head *TreeReport) {
	c, ok := ctx.Value(coverageKey{}).(*Coverage)
	if !ok || head == nil {
		return
	}
	full, changed := head.TypeCoverage()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Full += full
	c.Changed += changed
}

// addUncovered counts, under ctx, the changed Go packages of the head tree at headDir (the
// directories of files there) as not type-checked: the analysis did not finish.
func addUncovered(ctx context.Context, headDir string, files []string) {
	c, ok := ctx.Value(coverageKey{}).(*Coverage)
	if !ok {
		return
	}
	dirs := map[string]bool{}
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") || !filepath.IsLocal(filepath.FromSlash(f)) {
			continue
		}
		if st, err := os.Stat(filepath.Join(headDir, filepath.FromSlash(path.Dir(f)))); err == nil && st.IsDir() {
			dirs[path.Dir(f)] = true
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Changed += len(dirs)
}
