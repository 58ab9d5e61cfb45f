package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// TrustRate is how far one human decision moves an agent's trust toward its agreement.
const TrustRate = 0.3

// humanDecision records a human's decision. After /human-review, a maintainer's decision is
// final: it concludes the debate's check run (approve: success; request changes: failure), is
// written into the decision comment and record beside the debate's own decision, and removes
// the escalation label; each agent's trust in the repository moves toward its agreement with the
// human. A merge or close of a pull request whose debate was not escalated counts for the
// reversal rate.
func (r *Runner) humanDecision(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job) error {
	if ok, err := r.mayDecide(ctx, gh, pub, job); !ok {
		return err
	}
	human := job.Protocol
	d, err := r.Store.PendingHumanDecision(ctx, job.PR.Repository(), job.PR.Number)
	if errors.Is(err, store.ErrNotFound) {
		return r.noPendingDecision(ctx, gh, pub, job)
	}
	if err != nil {
		return err
	}
	lines, err := r.learnTrust(ctx, job.PR.Repository(), d.Votes, human)
	if err != nil {
		return err
	}
	if err := r.finalise(ctx, pub, d.ID, human, job.Requester); err != nil {
		return err
	}
	if job.Requester == "" {
		return nil
	}
	return pub.Comment(ctx, fmt.Sprintf("Human decision on debate `%s`: **%s**. The agents learn from it:\n\n%s", d.ID, strings.ReplaceAll(human, "_", " "), strings.Join(lines, "\n")))
}

// mayDecide checks that the requester of a decision command is a maintainer (a merge or close,
// with no requester, always may); a refusal is answered and nothing is recorded.
func (r *Runner) mayDecide(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job) (bool, error) {
	if job.Requester == "" {
		return true, nil
	}
	have, err := pull.Permission(ctx, gh, job.PR, job.Requester)
	if err != nil {
		return false, err
	}
	if !config.PermissionAtLeast(have, "maintain") {
		r.Metrics.refused("permission")
		return false, r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: only maintainers decide after /human-review (you have %s). Nothing was recorded.", job.Requester, have))
	}
	return true, nil
}

// noPendingDecision handles a decision no debate waits for: a command is refused; a merge or
// close is recorded on the latest decided debate no human decided, for the reversal rate.
func (r *Runner) noPendingDecision(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job) error {
	if job.Requester != "" {
		return r.refuse(ctx, gh, pub, job, "No debate on this pull request waits for a human decision; comment `/human-review` first.")
	}
	if d, err := r.Store.LatestDecided(ctx, job.PR.Repository(), job.PR.Number); err == nil && d.HumanDecision == "" {
		return r.Store.SetHumanDecision(ctx, d.ID, job.Protocol)
	}
	return nil
}

// learnTrust moves each voter's trust in the repository toward its agreement with the human
// (votes: "agent=vote,..."), and returns one line per agent saying how far.
func (r *Runner) learnTrust(ctx context.Context, repository, votes, human string) ([]string, error) {
	var lines []string
	for _, v := range strings.Split(votes, ",") {
		agent, vote, ok := strings.Cut(v, "=")
		if !ok {
			continue
		}
		before, err := r.Store.Trust(ctx, repository, agent)
		if err != nil {
			return nil, err
		}
		after, err := r.Store.LearnTrust(ctx, repository, agent, store.Agrees(vote, human), TrustRate)
		if err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprintf("- %s voted %s: trust %.2f → %.2f", agent, vote, before, after))
	}
	return lines, nil
}

// finalise makes a human decision the debate's final word where users look: the record and the
// stored transcript carry it, the decision comment shows it, the check run concludes with it and
// the escalation label goes.
func (r *Runner) finalise(ctx context.Context, pub *publish.Publisher, id, human, by string) error {
	full, err := r.Store.Debate(ctx, id)
	if err != nil {
		return err
	}
	var t toulmin.Transcript
	if err := json.Unmarshal(full.Checkpoint, &t); err != nil || t.Record.DebateID == "" {
		// Nothing to show it in; the decision is recorded all the same.
		return r.Store.SetHumanDecision(ctx, id, human)
	}
	t.Record.HumanDecision = human
	rec, err := t.Record.YAML()
	if err != nil {
		return err
	}
	cp, err := json.Marshal(&t)
	if err != nil {
		return fmt.Errorf("failed to encode debate %s: %w", id, err)
	}
	if err := r.Store.RecordHumanDecision(ctx, id, human, rec, cp); err != nil {
		return err
	}
	dc, err := render.DecisionComment(&t)
	if err != nil {
		return err
	}
	if cid, err := r.Store.CheckRun(ctx, id); err == nil {
		pub.UseCheckRun(cid)
	}
	steps := []func() error{
		func() error { return pub.Upsert(ctx, render.DecisionMarker, dc) },
		func() error { return pub.Unlabel(ctx, publish.EscalationLabel) },
	}
	if t.Record.HeadSHA != "" {
		steps = append(steps, func() error { return pub.ConcludeHuman(ctx, t.Record.HeadSHA, human, by, &t) })
	}
	for _, step := range steps {
		if err := publish.Retry(ctx, 3, step); err != nil {
			return fmt.Errorf("failed to publish the human decision on debate %s: %w", id, err)
		}
	}
	return nil
}
