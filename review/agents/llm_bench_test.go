package agents_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/pipeline"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// BenchmarkLLMDebateWallTime runs a whole debate with six model-backed agents against a fake
// that takes 200 ms per call, and reports wall time over (sequential model stages x 200 ms).
// Run with -benchtime=3x.
func BenchmarkLLMDebateWallTime(b *testing.B) {
	const perCall = 200 * time.Millisecond
	c := reviewtest.ReadChange(b, filepath.Join("..", "..", "examples", "admin-export.diff"))
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

// debateCost is what one model-backed debate cost, as the llmtest fake saw it.
type debateCost struct {
	calls, stages int
	// prompt sums the prompt tokens; prefix the part of each prompt that an earlier call of
	// the debate started with (what a provider's prompt cache can serve); billedCached what the
	// fake reported as cached (1024 tokens at least, in steps of 128).
	prompt, prefix, billedCached int64
	// billed is what the fake billed (usage summed over every answer).
	billed voting.Usage
	// single is the prompt of one single-call review of the change with its evidence.
	single int64
	// wall is the whole debate (evidence gathering included); modelWall from the start of the
	// first phase that called the model to the end of the last; evidence the evidence gathering.
	wall, modelWall, evidence time.Duration
}

// measureDebate holds one debate of c over the llmtest fake (answering with respond, after
// latency per call) and measures it. The record's cached tokens must be what the fake billed.
// The panel is the six default perspectives, every one seated.
func measureDebate(tb testing.TB, c *change.Change, p toulmin.Protocol, respond llmtest.Responder, latency time.Duration) debateCost {
	tb.Helper()
	return measureWith(tb, c, p, respond, latency, false)
}

// measureDebateEach is measureDebate with one call per agent per phase (llm.calls: agent).
func measureDebateEach(tb testing.TB, c *change.Change, p toulmin.Protocol, respond llmtest.Responder, latency time.Duration) debateCost {
	tb.Helper()
	return measureWith(tb, c, p, respond, latency, true)
}

func measureWith(tb testing.TB, c *change.Change, p toulmin.Protocol, respond llmtest.Responder, latency time.Duration, perAgent bool) debateCost {
	tb.Helper()
	srv := llmtest.New(tb, respond)
	srv.SetLatency(latency)
	panel, err := agents.LLMPanel(agents.DefaultPerspectives(), llm.Options{APIKey: "test-key", BaseURL: srv.BaseURL(), Model: "gpt-4o-mini", PerAgent: perAgent})
	if err != nil {
		tb.Fatal(err)
	}
	return measure(tb, srv, c, &review.Debate{Change: c, Protocol: p, Agents: panel})
}

// measureDefault holds the debate a repository without a debatebot.yml gets (the moderator
// seats the panel from the catalog; the llm section's defaults) over the llmtest fake.
func measureDefault(tb testing.TB, c *change.Change, latency time.Duration) debateCost {
	tb.Helper()
	srv := llmtest.New(tb, nil)
	srv.SetLatency(latency)
	d := defaultDebate(tb, srv)
	d.Change = c
	return measure(tb, srv, c, d)
}

// defaultDebate is the debate a repository without a debatebot.yml gets, over srv.
func defaultDebate(tb testing.TB, srv *llmtest.Server) *review.Debate {
	tb.Helper()
	repo := config.Default()
	env := map[string]string{"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": srv.BaseURL(), "DEBATEBOT_MODEL": "gpt-4o-mini"}
	panel, err := pipeline.Agents(repo, func(k string) string { return env[k] }, false)
	if err != nil {
		tb.Fatal(err)
	}
	return pipeline.NewDebate(repo, toulmin.Standard(), panel, "cli")
}

// measure runs d against srv and measures what it cost.
func measure(tb testing.TB, srv *llmtest.Server, c *change.Change, d *review.Debate) debateCost {
	tb.Helper()
	start := time.Now()
	tr, err := d.Run(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	out := debateCost{wall: time.Since(start)}
	var first, last time.Time
	for _, ph := range tr.Timeline {
		if ph.Phase == toulmin.PhaseEvidence {
			out.evidence = ph.EndedAt.Sub(ph.StartedAt)
		}
		if ph.Usage.Calls == 0 {
			continue
		}
		out.stages++
		if mod := ph.ByAgent[toulmin.ModeratorName].Calls; mod > 0 && ph.Usage.Calls > mod {
			out.stages++ // the moderator's call comes before the openings' own
		}
		if first.IsZero() {
			first = ph.StartedAt
		}
		last = ph.EndedAt
	}
	out.modelWall = last.Sub(first)
	for _, r := range srv.Requests() {
		out.calls++
		out.prompt += int64(r.Tokens)
		out.prefix += int64(r.SharedPrefix)
	}
	billed := srv.Billed()
	out.billedCached = billed.CachedPrompt
	out.billed = voting.Usage{Prompt: billed.Prompt, CachedPrompt: billed.CachedPrompt, Completion: billed.Completion, Calls: billed.Calls}
	if tr.Record.Tokens.Prompt != billed.Prompt || tr.Record.Tokens.CachedPrompt != billed.CachedPrompt {
		tb.Fatalf("record tokens %+v, the fake billed %+v", tr.Record.Tokens, billed)
	}
	n, err := agents.SingleCallPromptTokens(c, tr.Evidence, agents.DefaultContextTokens)
	if err != nil {
		tb.Fatal(err)
	}
	out.single = int64(n)
	return out
}

// PeerPromptTokens is the prompt of a real single-call reviewer on the example change
// (examples/admin-export.diff, the SQL injection in an admin export): code-review-gpt sends one
// request of 1,076 prompt tokens for it (issue 21, "Cost"). A debate's cost is measured in
// multiples of it.
const PeerPromptTokens = 1076

// report reports the tokens of a debate against the peer's single call (PeerPromptTokens) and
// against a single call written for this benchmark (the rules, the change with its evidence,
// one instruction), and what its billed usage costs at the list prices of gpt-4o-mini and
// gpt-4.1 in llm.DefaultPrices.
func (m debateCost) report(b *testing.B) {
	peer := float64(PeerPromptTokens)
	notInPrefix := float64(m.prompt - m.prefix)
	b.ReportMetric(float64(m.calls), "calls")
	b.ReportMetric(float64(m.prompt), "prompt-tokens")
	b.ReportMetric(float64(m.prompt)/peer, "prompt/peer")
	b.ReportMetric(notInPrefix, "not-in-prefix-tokens")
	b.ReportMetric(notInPrefix/peer, "not-in-prefix/peer")
	b.ReportMetric(float64(m.single), "single-call-tokens")
	b.ReportMetric(100*float64(m.prefix)/float64(m.prompt), "prefix-%")
	b.ReportMetric(100*float64(m.billedCached)/float64(m.prompt), "cached-%")
	prices := llm.DefaultPrices()
	b.ReportMetric(1000*prices.Cost("gpt-4o-mini", m.billed), "mUSD-4o-mini")
	b.ReportMetric(1000*prices.Cost("gpt-4.1", m.billed), "mUSD-4.1")
}

// agreeingOpenings answers like llmtest.Valid, but every opening approves with nothing above
// low: the shape of a debate that may end after its openings.
func agreeingOpenings(n int, r *llmtest.Request) llmtest.Response {
	resp := llmtest.Valid(n, r)
	if phase, _ := llmtest.Phase(r); phase != "opening_arguments" {
		return resp
	}
	var reply map[string]any
	if err := json.Unmarshal([]byte(resp.Content), &reply); err != nil {
		panic(err)
	}
	turns := []any{reply}
	if t, ok := reply["turns"].([]any); ok {
		turns = t // one call for the whole panel
	}
	for _, t := range turns {
		turn := t.(map[string]any)
		for _, a := range turn["arguments"].([]any) {
			arg := a.(map[string]any)
			arg["severity"] = "low"
			for _, act := range arg["actions"].([]any) {
				act.(map[string]any)["required"] = false
			}
		}
		turn["position"].(map[string]any)["vote"] = "approve"
	}
	b, _ := json.Marshal(reply)
	return llmtest.Response{Content: string(b)}
}

// BenchmarkLLMDebateCost holds a standard debate of the 128-line example change against the
// llmtest fake answering after a fixed 200 ms, and reports what it cost beside the peer's one
// call (PeerPromptTokens) and a single call written for the benchmark: calls; prompt tokens
// (target: at most 15 times the peer's); the tokens that are not a prefix of an earlier call of
// the debate (what a prompt cache cannot serve; target: at most 3 times the peer's) and the
// share that is (target: at least 85%); the share the fake billed as cached under OpenAI's rules;
// dollars; wall time over the model stages' latency, for the whole debate (evidence gathering
// included) and from the first model phase to the last (target: at most 1.10); and the model
// stages of a debate whose openings all approve with nothing above low (target: at most two,
// once the engine exits fast). The panel is the six default perspectives, all seated; the
// sub-benchmark default is what a repository without a debatebot.yml gets (the moderator seats
// the panel). Run with -benchtime=3x.
func BenchmarkLLMDebateCost(b *testing.B) {
	const perCall = 200 * time.Millisecond
	c := reviewtest.ReadChange(b, filepath.Join("..", "..", "examples", "admin-export.diff"))
	b.Run("six", func(b *testing.B) {
		var m, fast debateCost
		for b.Loop() {
			m = measureDebate(b, c, toulmin.Standard(), nil, perCall)
			fast = measureDebate(b, c, toulmin.Standard(), agreeingOpenings, perCall)
		}
		m.reportWall(b, perCall)
		b.ReportMetric(float64(fast.stages), "agreeing-stages")
	})
	b.Run("six-per-agent", func(b *testing.B) {
		var m debateCost
		for b.Loop() {
			m = measureDebateEach(b, c, toulmin.Standard(), nil, perCall)
		}
		m.reportWall(b, perCall)
	})
	b.Run("default", func(b *testing.B) {
		var m debateCost
		for b.Loop() {
			m = measureDefault(b, c, perCall)
		}
		m.reportWall(b, perCall)
	})
}

// reportWall reports the cost and the wall time over the model stages' latency.
func (m debateCost) reportWall(b *testing.B, perCall time.Duration) {
	ideal := float64(m.stages) * float64(perCall)
	m.report(b)
	b.ReportMetric(float64(m.stages), "stages")
	b.ReportMetric(float64(m.wall)/ideal, "wall/stages")
	b.ReportMetric(float64(m.modelWall)/ideal, "model-wall/stages")
	b.ReportMetric(float64(m.evidence.Milliseconds()), "evidence-ms")
}

// BenchmarkLLMPromptTokens2000 debates a 2,000-line change (the diff fitted to the default
// budget) and reports its prompt tokens as BenchmarkLLMDebateCost does.
func BenchmarkLLMPromptTokens2000(b *testing.B) {
	diff := []byte(changetest.LargeDiff(2000))
	var m debateCost
	for b.Loop() {
		c, err := review.ParseDiff(diff, "large.diff")
		if err != nil {
			b.Fatal(err)
		}
		m = measureDebate(b, c, toulmin.Standard(), nil, 0)
	}
	m.report(b)
}

func TestSingleCallPromptTokens(t *testing.T) {
	c := reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff"))
	ev, _, err := review.GatherEvidence(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	n, err := agents.SingleCallPromptTokens(c, ev, agents.DefaultContextTokens)
	if err != nil || n < 1000 || n > agents.DefaultContextTokens+3000 {
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
		c, err := review.ParseDiff(diff, "long.diff")
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
