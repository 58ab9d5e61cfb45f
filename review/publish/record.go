package publish

import (
	"context"
	"strings"

	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/voting"
)

// PreviousRecord returns the decision record the bot last posted on the pull request, or nil.
func (p *Publisher) PreviousRecord(ctx context.Context) (*voting.Record, error) {
	if err := p.find(ctx); err != nil {
		return nil, err
	}
	body, ok := p.bodies[render.DecisionMarker]
	if !ok {
		return nil, nil
	}
	start := strings.Index(body, "```yaml\n")
	end := strings.LastIndex(body, "```")
	if start < 0 || end <= start+8 {
		return nil, nil
	}
	rec, err := voting.ParseRecord([]byte(body[start+8 : end]))
	if err != nil {
		return nil, nil // an unreadable old record is no reason to fail: debate the whole change
	}
	return rec, nil
}
