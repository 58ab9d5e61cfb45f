package agents_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/reviewtest"
	"github.com/debatebot/debatebot/toulmin"
)

// The code around the change sits in the part every call of the debate shares: each call, in
// every phase, starts with the same system message and the same change message, and that change
// message carries the diff and then the code, so that a provider's prompt cache serves them.
func TestLLMCodeContextIsInTheSharedPrefix(t *testing.T) {
	const code = "internal/export/export.go\n  80| func (h *Handler) Users(w http.ResponseWriter, r *http.Request) {\n  81| \tcountry := r.URL.Query().Get(\"country\")\n"
	srv := llmtest.New(t, nil)
	panel, err := agents.LLMPanel(agents.DefaultPerspectives(), llm.Options{APIKey: "test-key", BaseURL: srv.BaseURL(), Model: "gpt-4o-mini", PerAgent: true})
	if err != nil {
		t.Fatal(err)
	}
	agents.WithCode(panel, code)
	c := reviewtest.ReadChange(t, filepath.Join("..", "..", "examples", "admin-export.diff"))
	if _, err := (&review.Debate{Change: c, Protocol: toulmin.Standard(), Agents: panel}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) < 10 {
		t.Fatalf("%d calls, want a whole debate", len(reqs))
	}
	first := reqs[0]
	change := first.Messages[1].Content
	diff, at := strings.Index(change, "<<<UNTRUSTED DIFF"), strings.Index(change, "<<<UNTRUSTED CODE\n"+code+"UNTRUSTED CODE>>>")
	if diff < 0 || at < diff {
		t.Fatalf("the change message does not carry the diff and then the code:\n%s", change)
	}
	prefix := first.Messages[0].Content + "\x00" + change
	phases := map[string]bool{}
	for i, r := range reqs {
		phase, _ := llmtest.Phase(r)
		phases[phase] = true
		if got := r.Messages[0].Content + "\x00" + r.Messages[1].Content; got != prefix {
			t.Errorf("call %d (%s) does not start with the shared system and change messages", i, phase)
		}
		for _, m := range r.Messages[2:] {
			if strings.Contains(m.Content, "UNTRUSTED CODE") {
				t.Errorf("call %d (%s) repeats the code after the shared part", i, phase)
			}
		}
		if i > 0 && r.SharedPrefix < reqs[0].SharedPrefix+len(prefix)/8 {
			// a token is at most a few bytes: the shared part is well over an eighth of its bytes
			t.Errorf("call %d (%s) shares only %d tokens with earlier calls", i, phase, r.SharedPrefix)
		}
	}
	for _, want := range []string{"opening_arguments", "rebuttal", "clarification", "response", "final_arguments", "synthesis"} {
		if !phases[want] {
			t.Errorf("no call in %s: %v", want, phases)
		}
	}
}
