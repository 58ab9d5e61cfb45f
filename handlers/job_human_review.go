package handlers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// humanReview holds /human-review: the commenter must have human_review_permission; then the
// pull request's debates are stopped through the store (the one running on any replica, and any
// still queued), or, when none runs, the last debate waits for a human decision.
func (r *Runner) humanReview(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job) error {
	repo, err := r.commandConfig(ctx, gh, job)
	if err != nil {
		return err
	}
	if ok, err := r.permitted(ctx, gh, pub, job, repo.HumanReviewPermission, "/human-review", "Nothing was changed."); !ok {
		return err
	}
	if err := r.endPausedRounds(ctx, pub, job); err != nil {
		return err
	}
	n, err := r.stopDebates(ctx, job)
	if err != nil {
		return err
	}
	if n > 0 {
		zerolog.Ctx(ctx).Info().Int("debates", n).Msg("Stopping the pull request's debates for human review.")
		return pub.Comment(ctx, fmt.Sprintf("@%s asked for human review: the debate stops, what was said is published, and a human decides (`/human-review approve` or `/human-review request-changes`, by a maintainer).", job.Requester))
	}
	if d, err := r.Store.LatestDecided(ctx, job.PR.Repository(), job.PR.Number); err == nil && d.HumanDecision == "" {
		if err := r.Store.SetHumanDecision(ctx, d.ID, "pending"); err != nil {
			return err
		}
	}
	return pub.Comment(ctx, fmt.Sprintf("No debate is running on this pull request; @%s asked for human review, and a human decides (`/human-review approve` or `/human-review request-changes`, by a maintainer).", job.Requester))
}

// endPausedRounds answers "end" for the requester to a debate of the pull request paused at a
// checkpoint, if there is one. Such a debate has no job running to stop: its job is enqueued
// again with the rounds ended, and flagged by stopDebates like a running one, so that it resumes
// already stopped and publishes what was said for the human to decide.
func (r *Runner) endPausedRounds(ctx context.Context, pub *publish.Publisher, job *Job) error {
	p, err := r.Store.PausedDebate(ctx, job.PR.Repository(), job.PR.Number)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	resume, t, err := r.pausedJob(ctx, p)
	if err != nil {
		return err
	}
	c := toulmin.Checkpoint{AfterRound: p.AfterRound, Action: toulmin.CheckpointEnd, Waited: r.now().Sub(p.At).Round(time.Millisecond),
		Note: "@" + job.Requester + " asked for human review"}
	return r.resume(ctx, pub, p, resume, t, c, job.DeliveryID)
}

// stopDebates asks, through the store, every debate of the pull request (running on any
// replica, or queued) to stop for human review, and stops the one running here at once; n is
// how many there were.
func (r *Runner) stopDebates(ctx context.Context, job *Job) (n int, err error) {
	for _, kind := range []Kind{KindReview, KindDesign} {
		k, err := r.Store.RequestCancel(ctx, job.PR.String(), string(kind), store.CancelHumanReview)
		if err != nil {
			return 0, err
		}
		n += k
	}
	if n > 0 && r.StopLocal != nil {
		r.StopLocal(job.PR, toulmin.ErrHumanReview)
	}
	return n, nil
}
