package evidence

import (
	"context"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/evidence/scan"
)

// The stages of a type-checked analysis are timed under WithTimings: the go command's load with
// the processor time of its children, the Go analyzers and gosec; nothing is timed without it.
func TestTimingsNameTheStages(t *testing.T) {
	var tm scan.Timings
	ctx := scan.WithTimings(context.Background(), &tm)
	if _, err := Run(ctx, Options{BaseDir: "testdata/basic/base", HeadDir: "testdata/basic/head", Files: basicFiles}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := map[string]scan.Stage{}
	for _, s := range tm.Stages() {
		got[s.Name] = s
	}
	for _, name := range []string{"go load", "go buildssa", "go nilness", "gosec (without SSA)"} {
		if s, ok := got[name]; !ok || s.Time <= 0 {
			t.Errorf("stage %q not timed: %+v", name, got[name])
		}
	}
	if s := tm.Stages(); len(s) > 1 && s[0].Time < s[len(s)-1].Time {
		t.Errorf("stages not longest first: %v", s)
	}
	if !strings.Contains(tm.String(), "go load ") {
		t.Errorf("String() = %q, want the go command's load named", tm.String())
	}
	var none *scan.Timings
	none.Add("x", 1, 1)
	if scan.TimingsOf(context.Background()) != nil || none.Stages() != nil {
		t.Error("a context without timings times something")
	}
}
