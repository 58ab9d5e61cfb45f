package handlers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
)

// pullMeta reads a pull request's metadata (review.GitHub implements it).
type pullMeta interface {
	// PullRequest is the pull request's metadata; GitHub's 404 for an issue.
	PullRequest(ctx context.Context, pr review.PullRequest) (*github.PullRequest, error)
}

// commandGitHub is what answering a command needs of GitHub (review.GitHub implements it): the
// pull request (a 404 means the command was made on an issue), the commenter's permission, the
// repository's configuration, and a reaction on the command's comment.
type commandGitHub interface {
	pullMeta
	pull.Permissions
	pull.ConfigReader
	// ReactToComment adds a reaction ("+1", "confused", ...) to an issue comment.
	ReactToComment(ctx context.Context, pr review.PullRequest, commentID int64, content string) error
}

// permitted checks a command's requester against the permission the command needs; a refusal is
// answered with one comment naming what was needed, what the requester has and outcome ("Nothing
// was changed."), and the command does nothing else.
func (r *Runner) permitted(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job, need, command, outcome string) (bool, error) {
	have, err := pull.Permission(ctx, gh, job.PR, job.Requester)
	if err != nil {
		return false, err
	}
	if config.PermissionAtLeast(have, need) {
		return true, nil
	}
	r.Metrics.refused("permission")
	return false, r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: %s needs %s permission on this repository; you have %s. %s", job.Requester, command, need, have, outcome))
}

// authorise checks a command's requester against command_permission and the per-PR hourly
// bound (kept in the store, so that replicas and restarts share it); a refusal is answered with a
// short comment and nothing is spent.
func (r *Runner) authorise(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job, repo *config.Repo) (bool, error) {
	have, err := pull.Permission(ctx, gh, job.PR, job.Requester)
	if err != nil {
		return false, err
	}
	if !config.PermissionAtLeast(have, repo.CommandPermission) {
		r.Metrics.refused("permission")
		return false, r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: debatebot commands need %s permission on this repository; you have %s. Nothing was started.", job.Requester, repo.CommandPermission, have))
	}
	if job.Kind == KindReview {
		ok, err := r.Store.StartCommand(ctx, job.PR.String(), jobKey(job), *repo.MaxDebatesPerHour, time.Hour)
		if err != nil {
			return false, err
		}
		if !ok {
			r.Metrics.refused("rate")
			return false, r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: this pull request already had %d debates started by commands in the last hour (the limit is max_debates_per_hour). Try again later.", job.Requester, *repo.MaxDebatesPerHour))
		}
	}
	return true, nil
}

// commandConfig reads the repository configuration a command is judged by, from the pull
// request's base branch (the default branch for an issue); a broken file means the defaults,
// so that a broken file cannot open commands to everyone.
func (r *Runner) commandConfig(ctx context.Context, gh commandGitHub, job *Job) (*config.Repo, error) {
	ref, _, err := commandBase(ctx, gh, job)
	if err != nil {
		return nil, err
	}
	repo, err := pull.LoadRepoConfig(ctx, gh, job.PR, ref)
	var ce *config.Error
	if errors.As(err, &ce) {
		return config.Default(), nil
	}
	return repo, err
}

// commandBase is the branch a command's configuration is read from: the pull request's base
// branch, or "" (the default branch) when the command was made on an issue (isPR false).
func commandBase(ctx context.Context, gh pullMeta, job *Job) (ref string, isPR bool, err error) {
	meta, err := gh.PullRequest(ctx, job.PR)
	switch {
	case err == nil:
		return meta.GetBase().GetRef(), true, nil
	case review.NotFound(err):
		return "", false, nil
	}
	return "", false, fmt.Errorf("failed to get pull request %s: %w", job.PR, err)
}
