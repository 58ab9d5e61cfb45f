package handlers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/debatebot/debatebot/review/publish"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/store"
)

// MaxProposal bounds the proposal of a planning debate (it is untrusted text in prompts).
const MaxProposal = 4000

// PlanMarker marks the answer to one "/debate plan" comment, edited in place when the comment's
// job runs again.
func PlanMarker(commentID int64) string { return fmt.Sprintf("<!-- debatebot:plan-%d -->", commentID) }

// plan holds "/debate plan TEXT" on an issue or pull request: seed 000's planning debate over
// the proposal (advocate, critic, synthesis PROCEED, MODIFY or ESCALATE), with the stakes the
// text states ("stakes=high") or its words imply. It needs command_permission, as every /debate
// command does.
func (r *Runner) plan(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job) error {
	repo, ok, err := r.planAllowed(ctx, gh, pub, job)
	if err != nil || !ok {
		return err
	}
	text := strings.TrimSpace(job.Body)
	req := &dialectic.PlanRequest{Proposal: truncateUTF8(dialectic.StripStakes(text), MaxProposal), Stakes: dialectic.StakesOf(text), Rounds: 1, Context: job.Title}
	agents, offline, ok, err := r.dialecticBudget(ctx, pub, repo, jobKey(job), "")
	if err != nil || !ok {
		return err
	}
	rec, err := dialectic.DebatePlan(ctx, agents, req)
	if err != nil {
		return fmt.Errorf("failed to hold the planning debate on %s: %w", job.PR, err)
	}
	r.dialecticSpent(rec)
	md := r.dialecticSpentBudget(ctx, job.PR.Repository(), jobKey(job), rec, offline) + fmt.Sprintf("\nAsked by @%s.\n", job.Requester)
	d := &store.DialecticDebate{ID: fmt.Sprintf("plan/%s/%d/%s", job.PR, job.CommentID, job.CommentVersion), Type: string(dialectic.Planning), PR: job.PR.String(),
		Resolution: string(rec.Synthesis.Resolution), Agents: rec.By, At: r.now(), Record: []byte(md)}
	if err := r.Store.SaveDialecticDebate(ctx, d); err != nil {
		return err
	}
	zerolog.Ctx(ctx).Info().Str("resolution", string(rec.Synthesis.Resolution)).Str("stakes", string(req.Stakes)).Msg("Held a planning debate.")
	return publish.Retry(ctx, 3, func() error { return pub.Upsert(ctx, PlanMarker(job.CommentID), md) })
}

// planAllowed checks a "/debate plan" command before anything is spent: the requester's
// command_permission, a proposal to debate, and the hourly bound of debates started by commands
// on the pull request (a planning debate costs model calls like any other). A refusal is
// answered, and ok is false.
func (r *Runner) planAllowed(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job) (repo *config.Repo, ok bool, err error) {
	repo, err = r.commandConfig(ctx, gh, job)
	if err != nil {
		return nil, false, err
	}
	if ok, err := r.permitted(ctx, gh, pub, job, repo.CommandPermission, "`/debate plan`", "Nothing was started."); !ok {
		return nil, false, err
	}
	if dialectic.StripStakes(strings.TrimSpace(job.Body)) == "" {
		return nil, false, r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: `/debate plan` needs a proposal: `/debate plan TEXT` (add `stakes=high` to mark it high-stakes).", job.Requester))
	}
	ok, err = r.Store.StartCommand(ctx, job.PR.String(), jobKey(job), *repo.MaxDebatesPerHour, time.Hour)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		r.Metrics.refused("rate")
		return nil, false, r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: this issue or pull request already had %d debates started by commands in the last hour (the limit is max_debates_per_hour). Try again later.", job.Requester, *repo.MaxDebatesPerHour))
	}
	return repo, true, nil
}
