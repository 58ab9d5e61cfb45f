package llm_test

import (
	"context"
	"testing"
	"time"

	"github.com/openai/openai-go"

	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/llmtest"
)

// A call that failed the way retries are for, until they ran out, is transient; a refusal is
// not, nor a timeout of a call for the panel, which is not asked again (one that Complete
// retried until the retries ran out is transient).
func TestCompletionSaysWhetherAFailureIsTransient(t *testing.T) {
	for name, tc := range map[string]struct {
		resp      llmtest.Response
		panel     bool
		requests  int
		transient bool
	}{
		"5xx until the retries run out":     {llmtest.ServerError(1), false, 2, true},
		"429 until the retries run out":     {llmtest.RateLimited(1), true, 2, true},
		"a refusal":                         {llmtest.Response{Status: 400, ErrorCode: "invalid_request_error", ErrorMessage: "bad"}, false, 1, false},
		"a timeout, retried":                {llmtest.Hang(), false, 2, true},
		"a timeout of a call for the panel": {llmtest.Hang(), true, 1, false},
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(t, func(int, *llmtest.Request) llmtest.Response { return tc.resp })
			o := llm.Options{APIKey: "k", BaseURL: srv.BaseURL(), Model: "gpt-4o-mini"}.WithDefaults()
			cl := &llm.Client{API: o.API(), Model: o.Model, Prices: o.Prices, MaxRetries: 1, RequestTimeout: 200 * time.Millisecond}
			msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello")}
			var res llm.Completion
			if tc.panel {
				res = cl.CompletePanel(context.Background(), msgs, 100, "d")
			} else {
				res = cl.Complete(context.Background(), msgs, 100, "d")
			}
			if res.Err == nil || res.Transient != tc.transient || len(srv.Requests()) != tc.requests {
				t.Errorf("err %v, transient %v after %d requests; want an error, transient %v, after %d", res.Err, res.Transient, len(srv.Requests()), tc.transient, tc.requests)
			}
		})
	}
}
