package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// post sends one chat completion request and returns the cached tokens the fake reported.
func post(t *testing.T, s *Server, key string, msgs ...Message) int {
	t.Helper()
	return postModel(t, s, "gpt-4o-mini", key, msgs...)
}

// postModel is post to another model.
func postModel(t *testing.T, s *Server, model, key string, msgs ...Message) int {
	t.Helper()
	body := map[string]any{"model": model, "messages": msgs}
	if key != "" {
		body["prompt_cache_key"] = key
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.BaseURL()+"chat/completions", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Usage struct {
			PromptTokens        int `json:"prompt_tokens"`
			PromptTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	return out.Usage.PromptTokensDetails.CachedTokens
}

// The fake caches like OpenAI: a prefix of an earlier prompt with the same prompt_cache_key,
// from 1024 tokens on, in steps of 128.
func TestPromptCaching(t *testing.T) {
	s := New(t, func(int, *Request) Response { return Response{Content: "{}"} })
	// " word" is one token in o200k_base: the shared message is about 1,500 tokens.
	long := Message{Role: "system", Content: strings.Repeat(" word", 1500)}
	short := Message{Role: "system", Content: strings.Repeat(" word", 900)}
	if got := post(t, s, "a", long, Message{Role: "user", Content: "first"}); got != 0 {
		t.Errorf("first request: %d cached tokens, want 0", got)
	}
	got := post(t, s, "a", long, Message{Role: "user", Content: "second"})
	reqs := s.Requests()
	shared := reqs[1].SharedPrefix
	if shared < 1500 || shared > reqs[1].Tokens {
		t.Fatalf("shared prefix %d of %d tokens, want the system message's", shared, reqs[1].Tokens)
	}
	if got != shared/128*128 || got%128 != 0 || got < 1024 {
		t.Errorf("cached %d for a shared prefix of %d, want it rounded down to 128", got, shared)
	}
	if got := post(t, s, "b", long, Message{Role: "user", Content: "second"}); got != 0 {
		t.Errorf("another prompt_cache_key: %d cached tokens, want 0", got)
	}
	if got := post(t, s, "", long, Message{Role: "user", Content: "second"}); got != 0 {
		t.Errorf("no prompt_cache_key: %d cached tokens from keyed requests, want 0", got)
	}
	post(t, s, "a", short, Message{Role: "user", Content: "x"})
	if got := post(t, s, "a", short, Message{Role: "user", Content: "y"}); got != 0 {
		t.Errorf("a shared prefix under 1024 tokens: %d cached, want 0", got)
	}
	if b := s.Billed(); b.CachedPrompt != int64(shared/128*128) || b.Calls != 6 {
		t.Errorf("billed %+v, want the one cache hit", b)
	}
}

func TestCachedTokens(t *testing.T) {
	for shared, want := range map[int]int{0: 0, 1023: 0, 1024: 1024, 1151: 1024, 1152: 1152, 5000: 4992} {
		if got := CachedTokens(shared); got != want {
			t.Errorf("CachedTokens(%d) = %d, want %d", shared, got, want)
		}
	}
}

// Only prompts answered before a request arrives serve it: a request in flight (OpenAI writes
// the cache when it has processed a prompt) and one the client gave up on serve nothing, and a
// cache is the model's own.
func TestPromptCachingOnlyAnswered(t *testing.T) {
	release := make(chan struct{})
	s := New(t, func(n int, r *Request) Response {
		if r.Last() == "held" {
			<-release
		}
		if r.Last() == "hang" {
			return Hang()
		}
		return Response{Content: "{}"}
	})
	long := Message{Role: "system", Content: strings.Repeat(" word", 1500)}
	held := make(chan int)
	go func() { held <- post(t, s, "k", long, Message{Role: "user", Content: "held"}) }()
	for len(s.Requests()) == 0 {
		time.Sleep(time.Millisecond)
	}
	if got := post(t, s, "k", long, Message{Role: "user", Content: "while the first is in flight"}); got != 0 {
		t.Errorf("a prefix of a request still in flight served %d cached tokens, want 0", got)
	}
	if r := s.Requests()[1]; r.SharedPrefix < 1500 || r.Cached != 0 {
		t.Errorf("in flight: shared prefix %d, cached %d; want the prefix counted and nothing cached", r.SharedPrefix, r.Cached)
	}
	close(release)
	if got := <-held; got != 0 {
		t.Errorf("the first request: %d cached, want 0 (nothing was answered when it arrived)", got)
	}
	if got := post(t, s, "k", long, Message{Role: "user", Content: "after"}); got < 1024 || got%128 != 0 {
		t.Errorf("after an answered request: %d cached, want at least 1024 in steps of 128", got)
	}
	if got := postModel(t, s, "gpt-4.1", "k", long, Message{Role: "user", Content: "after"}); got != 0 {
		t.Errorf("another model with the same key: %d cached, want 0", got)
	}

	other := Message{Role: "system", Content: strings.Repeat(" other", 1500)}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	b, _ := json.Marshal(map[string]any{"model": "gpt-4o-mini", "prompt_cache_key": "k", "messages": []Message{other, {Role: "user", Content: "hang"}}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL()+"chat/completions", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer k")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the hung request was answered")
	}
	if got := post(t, s, "k", other, Message{Role: "user", Content: "next"}); got != 0 {
		t.Errorf("a prefix of a request never answered served %d cached tokens, want 0", got)
	}
}
