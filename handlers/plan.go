package handlers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/store"
)

// MaxProposal bounds the proposal of a planning debate (it is untrusted text in prompts).
const MaxProposal = 4000

// planText is what follows "/debate plan" in a comment, further lines included.
func planText(body string) string {
	_, rest, _ := strings.Cut(strings.TrimSpace(body), "plan")
	return strings.TrimSpace(rest)
}

// PlanMarker marks the answer to one "/debate plan" comment, edited in place when the comment's
// job runs again.
func PlanMarker(commentID int64) string { return fmt.Sprintf("<!-- debatebot:plan-%d -->", commentID) }

// plan holds "/debate plan TEXT" on an issue or pull request: seed 000's planning debate over
// the proposal (advocate, critic, synthesis PROCEED, MODIFY or ESCALATE), with the stakes the
// text states ("stakes=high") or its words imply. It needs command_permission, as every /debate
// command does.
func (r *Runner) plan(ctx context.Context, gh *github.Client, pub *publish.Publisher, job *Job) error {
	repo, err := r.commandConfig(ctx, gh, job)
	if err != nil {
		return err
	}
	if ok, err := r.permitted(ctx, gh, pub, job, repo.CommandPermission, "`/debate plan`", "Nothing was started."); !ok {
		return err
	}
	text := strings.TrimSpace(job.Body)
	if dialectic.StripStakes(text) == "" {
		return r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: `/debate plan` needs a proposal: `/debate plan TEXT` (add `stakes=high` to mark it high-stakes).", job.Requester))
	}
	// A planning debate costs model calls like any other: the same hourly bound per pull request.
	ok, err := r.Store.StartCommand(ctx, job.PR.String(), jobKey(job), *repo.MaxDebatesPerHour, time.Hour)
	if err != nil {
		return err
	}
	if !ok {
		r.Metrics.refused("rate")
		return r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: this issue or pull request already had %d debates started by commands in the last hour (the limit is max_debates_per_hour). Try again later.", job.Requester, *repo.MaxDebatesPerHour))
	}
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
	return retry(ctx, 3, func() error { return pub.Upsert(ctx, PlanMarker(job.CommentID), md) })
}
