package agents

import (
	"context"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/toulmin"
)

// WithCode makes the model-backed agents of a panel see code as the code around the change,
// as if BuildContext had found it: the test of where the prompt places it.
func WithCode(panel []toulmin.Agent, code string) {
	for _, a := range panel {
		if la, ok := a.(*LLMAgent); ok {
			la.shared.build = func(ctx context.Context, c *change.Change, ev []toulmin.Evidence, budget int, tok *llm.Tokenizer) (ChangeContext, error) {
				cc, err := BuildContext(ctx, c, ev, budget, tok)
				cc.Code = code
				return cc, err
			}
		}
	}
}
