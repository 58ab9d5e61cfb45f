package pipeline

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// DecidedRow is the store's row of a decided debate: its record, its whole transcript (the last
// checkpoint), usage and the decision's outcome. human is the human decision it waits for, if any.
func DecidedRow(t *toulmin.Transcript, jobID int64, repository string, pr int, trigger, human string) (*store.Debate, error) {
	rec, err := t.Record.YAML()
	if err != nil {
		return nil, err
	}
	cp, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("failed to encode debate %s: %w", t.DebateID, err)
	}
	var reasons, votes []string
	for _, e := range t.Escalations {
		reasons = append(reasons, string(e.Reason))
	}
	for _, v := range t.Record.Votes {
		votes = append(votes, v.Agent+"="+string(v.Vote))
	}
	return &store.Debate{ID: t.DebateID, JobID: jobID, Repository: repository, PRNumber: pr, HeadSHA: t.Record.HeadSHA,
		Trigger: trigger, Protocol: t.Protocol, Decision: string(t.Record.Decision), Phases: len(t.Timeline), Checkpoint: cp, Record: rec,
		Prompt: t.Usage.Prompt, Completion: t.Usage.Completion, CostUSD: t.Usage.CostUSD, StartedAt: t.StartedAt, EndedAt: t.EndedAt,
		ConsensusLevel: string(t.Record.ConsensusLevel), Escalations: strings.Join(reasons, ","), Votes: strings.Join(votes, ","), HumanDecision: human}, nil
}
