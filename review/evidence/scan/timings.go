package scan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Timings add up the wall time of the stages of the evidence gathering run under a context (see
// WithTimings): the go command's loads of each tree, each Go analyzer, gosec, each external tool,
// each analyzer of the change. Stages of base and head that run side by side add up, so the sum
// of the stages can exceed the wall time of the whole.
type Timings struct {
	mu     sync.Mutex
	stages map[string]*Stage
}

type timingsKey struct{}

// WithTimings returns a context under which the evidence gathering adds its stages' times to t.
func WithTimings(ctx context.Context, t *Timings) context.Context {
	return context.WithValue(ctx, timingsKey{}, t)
}

// TimingsOf is the Timings of ctx, nil when it has none (nil Timings record nothing).
func TimingsOf(ctx context.Context) *Timings {
	t, _ := ctx.Value(timingsKey{}).(*Timings)
	return t
}

// Add adds wall to the stage's wall time and cpu to its processor time.
func (t *Timings) Add(stage string, wall, cpu time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stages == nil {
		t.stages = map[string]*Stage{}
	}
	s := t.stages[stage]
	if s == nil {
		s = &Stage{Name: stage}
		t.stages[stage] = s
	}
	s.Time += wall
	s.CPU += cpu
}

// Since adds the time since start to the stage's wall time.
func (t *Timings) Since(stage string, start time.Time) { t.Add(stage, time.Since(start), 0) }

// ChildrenSince adds the time since start to the stage's wall time, and the processor time the
// process's children that ended since cpu0 (childCPU's earlier answer) used to its processor time.
func (t *Timings) ChildrenSince(stage string, start time.Time, cpu0 time.Duration) {
	if t != nil {
		t.Add(stage, time.Since(start), ChildCPU()-cpu0)
	}
}

// Stages are the stages timed, the longest first.
func (t *Timings) Stages() []Stage {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Stage, 0, len(t.stages))
	for _, s := range t.stages {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Stage) int {
		if a.Time != b.Time {
			return int(b.Time - a.Time)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// String lists the stages of at least 10 ms, the longest first ("go load 1.20s (cpu 2.10s),
// go buildssa 0.40s, ...").
func (t *Timings) String() string {
	var parts []string
	for _, s := range t.Stages() {
		if s.Time < 10*time.Millisecond {
			continue
		}
		p := fmt.Sprintf("%s %.2fs", s.Name, s.Time.Seconds())
		if s.CPU > 0 {
			p += fmt.Sprintf(" (cpu %.2fs)", s.CPU.Seconds())
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// Stage is one timed stage: its wall time and, for a stage run by other programs (the go command,
// an external tool), the processor time they used.
type Stage struct {
	Name      string
	Time, CPU time.Duration
}
