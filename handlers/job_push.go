package handlers

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/store"
)

// changedBetween lists the files that changed between two heads of a pull request; known is
// false when GitHub cannot compare them (a force push that dropped the older one).
func changedBetween(ctx context.Context, gh review.Comparer, pr review.PullRequest, from, to string) (changed []string, known bool) {
	if from == to {
		return nil, true
	}
	_, files, err := gh.Compare(ctx, pr, from, to)
	if err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not compare the failing heads.")
		return nil, false
	}
	for _, f := range files {
		changed = append(changed, f.GetFilename())
		if prev := f.GetPreviousFilename(); prev != "" {
			changed = append(changed, prev)
		}
	}
	return changed, true
}

// pushed resets the streaks of a pull request's tasks when the push changed CI's environment
// (workflows, dependency manifests, toolchain pins: dialectic.Environment), seed 000's
// "environment changed", the significant change of context after which earlier failures say
// nothing about the next run. A push to the failing files is not one: it is the next attempt at
// the failure, and the same error after it is the loop a failure debate is for (seed 000 counts
// attempts with their approaches as consecutive). A push GitHub cannot compare (a force push)
// resets nothing: what it touched is unknown.
func (r *Runner) pushed(ctx context.Context, gh review.Comparer, job *Job) error {
	tasks, err := r.Store.FailureTasks(ctx, job.PR.String())
	if err != nil {
		return err
	}
	var open []store.FailureTask
	for _, t := range tasks {
		if t.PushCanReset() {
			open = append(open, t)
		}
	}
	if len(open) == 0 || job.Before == "" {
		return nil
	}
	changed, known := changedBetween(ctx, gh, job.PR, job.Before, job.HeadSHA)
	if !known {
		return nil
	}
	env := dialectic.Environment(changed)
	if len(env) == 0 {
		return nil
	}
	for _, t := range open {
		if _, err := r.Store.ResetTask(ctx, job.PR.String(), t.TaskID); err != nil {
			return err
		}
		zerolog.Ctx(ctx).Info().Str("task", t.Task).Strs("environment", env).Msg("A push changed CI's environment; the failure count is reset.")
	}
	return nil
}
