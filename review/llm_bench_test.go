package review

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/toulmin"
)

// BenchmarkLLMDebateWallTime runs a whole debate with six model-backed agents against a fake
// that takes 200 ms per call, and reports wall time over (sequential model stages x 200 ms).
// Run with -benchtime=3x.
func BenchmarkLLMDebateWallTime(b *testing.B) {
	const perCall = 200 * time.Millisecond
	c := readChange(b, filepath.Join("..", "examples", "admin-export.diff"))
	var ratio, stages, calls float64
	for b.Loop() {
		srv := llmtest.New(b, nil)
		srv.SetLatency(perCall)
		start := time.Now()
		llmDebate(b, srv, toulmin.Standard(), c)
		wall := time.Since(start)
		reqs := srv.Requests()
		seen := map[string]bool{}
		for _, r := range reqs {
			phase, _ := llmtest.Phase(r)
			seen[phase] = true
		}
		stages, calls = float64(len(seen)), float64(len(reqs))
		ratio = float64(wall) / (stages * float64(perCall))
	}
	b.ReportMetric(stages, "stages")
	b.ReportMetric(calls, "calls")
	b.ReportMetric(ratio, "wall/ideal")
}

// BenchmarkLLMPromptTokens2000 debates a 2,000-line change and reports the prompt tokens of the
// debate, the share of them that repeat a prefix of an earlier call (what prompt caching serves),
// and both against one single-call review prompt built within the same budget.
func BenchmarkLLMPromptTokens2000(b *testing.B) {
	diff := []byte(largeDiff(2000))
	var total, shared, single, calls float64
	for b.Loop() {
		c, err := ParseDiff(diff, "large.diff")
		if err != nil {
			b.Fatal(err)
		}
		srv := llmtest.New(b, nil)
		tr := llmDebate(b, srv, toulmin.Standard(), c)
		total, shared = 0, 0
		for _, r := range srv.Requests() {
			total += float64(r.Tokens)
			shared += float64(r.SharedPrefix)
		}
		calls = float64(len(srv.Requests()))
		n, err := SingleCallPromptTokens(c, tr.Evidence, DefaultContextTokens)
		if err != nil {
			b.Fatal(err)
		}
		single = float64(n)
	}
	b.ReportMetric(calls, "calls")
	b.ReportMetric(total, "prompt-tokens")
	b.ReportMetric(100*shared/total, "shared-prefix-%")
	b.ReportMetric(single, "single-call-tokens")
	b.ReportMetric(total/single, "total/single")
	b.ReportMetric((total-shared)/single, "unshared/single")
}

func TestSingleCallPromptTokens(t *testing.T) {
	c := readChange(t, filepath.Join("..", "examples", "admin-export.diff"))
	ev, err := Gather(context.Background(), c, DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	n, err := SingleCallPromptTokens(c, ev, DefaultContextTokens)
	if err != nil || n < 1000 || n > DefaultContextTokens+3000 {
		t.Errorf("single-call prompt = %d tokens (%v), want the whole example within the budget", n, err)
	}
}

// longLineDiff is a change that adds a 1 MB single-line file (minified code of one long run of
// letters, the worst shape for byte-pair merging) next to a small Go file.
func longLineDiff(size int) string {
	return "diff --git a/web/data.js b/web/data.js\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/web/data.js\n@@ -0,0 +1,1 @@\n" +
		"+var data=\"" + strings.Repeat("a", size) + "\";\n" +
		"diff --git a/web/app.go b/web/app.go\nnew file mode 100644\nindex 0000000..2222222\n--- /dev/null\n+++ b/web/app.go\n@@ -0,0 +1,3 @@\n" +
		"+package web\n+\n+func Hello() string { return \"hi\" }\n"
}

// BenchmarkLLMDebateLongLine runs a whole model-backed debate (against the llmtest fake) of a
// change with a 1 MB line and reports its wall time in seconds; the target is under 10 s
// (tiktoken alone took minutes to count that line). Run with -benchtime=1x.
func BenchmarkLLMDebateLongLine(b *testing.B) {
	diff := []byte(longLineDiff(1 << 20))
	var secs float64
	for b.Loop() {
		c, err := ParseDiff(diff, "long.diff")
		if err != nil {
			b.Fatal(err)
		}
		srv := llmtest.New(b, nil)
		start := time.Now()
		tr := llmDebate(b, srv, toulmin.Standard(), c)
		secs = time.Since(start).Seconds()
		if len(tr.ArgumentsIn(toulmin.PhaseOpening)) == 0 {
			b.Fatalf("no opening arguments: %v", tr.Timeline[1].Notes)
		}
	}
	b.ReportMetric(secs, "s/debate")
}
