package evidence

import (
	"context"
	"strings"
	"sync"
)

// incompleteReasons begin the reasons of a degradation that leaves a package without full types
// (an analyzer that did not run leaves its types whole).
var incompleteReasons = []string{reasonTypesIncomplete, reasonNotLoaded, reasonNoModule, reasonCgoLeftOut}

const (
	reasonTypesIncomplete = "type information incomplete"
	reasonNotLoaded       = "not loaded"
	reasonNoModule        = "no go.mod above it in the tree"
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
