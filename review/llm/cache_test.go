package llm_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/openai/openai-go"

	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/voting"
)

// The client sends the cache key, counts the cached tokens the server reports and prices them
// at the cached rate.
func TestCompleteCountsAndPricesCachedTokens(t *testing.T) {
	srv := llmtest.New(t, func(int, *llmtest.Request) llmtest.Response {
		return llmtest.Response{Content: "{}", CompletionTokens: 10}
	})
	o := llm.Options{APIKey: "k", BaseURL: srv.BaseURL(), Model: "gpt-4.1"}.WithDefaults()
	cl := &llm.Client{API: o.API(), Model: o.Model, Prices: o.Prices, MaxRetries: 0}
	rules := openai.SystemMessage(strings.Repeat(" word", 1500))
	first := cl.Complete(context.Background(), []openai.ChatCompletionMessageParamUnion{rules, openai.UserMessage("first")}, 100, "debate-1")
	second := cl.Complete(context.Background(), []openai.ChatCompletionMessageParamUnion{rules, openai.UserMessage("second")}, 100, "debate-1")
	other := cl.Complete(context.Background(), []openai.ChatCompletionMessageParamUnion{rules, openai.UserMessage("second")}, 100, "debate-2")
	for _, c := range []llm.Completion{first, second, other} {
		if c.Err != nil {
			t.Fatal(c.Err)
		}
	}
	reqs := srv.Requests()
	if reqs[0].PromptCacheKey != "debate-1" || reqs[2].PromptCacheKey != "debate-2" {
		t.Errorf("prompt_cache_key %q, %q; want the keys given", reqs[0].PromptCacheKey, reqs[2].PromptCacheKey)
	}
	if first.Usage.CachedPrompt != 0 || other.Usage.CachedPrompt != 0 {
		t.Errorf("cached %d and %d, want none for the first call of each key", first.Usage.CachedPrompt, other.Usage.CachedPrompt)
	}
	u := second.Usage
	if u.CachedPrompt < 1024 || u.CachedPrompt%128 != 0 || u.CachedPrompt != int64(reqs[1].Cached) {
		t.Fatalf("cached %d, want what the server served (%d)", u.CachedPrompt, reqs[1].Cached)
	}
	p, _ := llm.DefaultPrices().Lookup("gpt-4.1")
	want := (float64(u.Prompt-u.CachedPrompt)*p.Input + float64(u.CachedPrompt)*p.CachedInput + float64(u.Completion)*p.Output) / 1e6
	if math.Abs(u.CostUSD-want) > 1e-12 || u.CostUSD >= llm.DefaultPrices().Cost("gpt-4.1", voting.Usage{Prompt: u.Prompt, Completion: u.Completion}) {
		t.Errorf("cost %v, want %v: the cached tokens at the cached rate", u.CostUSD, want)
	}
}
