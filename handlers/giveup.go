package handlers

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
)

// jobCheckKey is the key a job's check run is also kept under in the store: GiveUp knows the job
// that failed, not the debate it was holding.
func jobCheckKey(id int64) string { return fmt.Sprintf("job/%d", id) }

// rememberJobCheck keeps the debate's check run under its job, so that a job that fails for good
// concludes that check run rather than leaving it in progress.
func (r *Runner) rememberJobCheck(ctx context.Context, job *Job, pub *publish.Publisher) {
	if r.Store == nil || job.StoreID == 0 || pub.CheckRunID() == 0 {
		return
	}
	if err := r.Store.SaveCheckRun(ctx, jobCheckKey(job.StoreID), pub.CheckRunID()); err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not remember the job's check run.")
	}
}

// GiveUp reports a job that failed for good where users look: the one comment that says why the
// pull request (or issue) could not be debated (CannotDebateMarker, edited in place, so that
// however often it is said there is one), and the job's check run concluded as failed. It is
// called once per job, by the replica that recorded the failure.
func (r *Runner) GiveUp(ctx context.Context, job *Job, cause error) {
	r.Metrics.gaveUp(job)
	if job.Kind != KindReview && job.Kind != KindDesign {
		return
	}
	log := zerolog.Ctx(ctx)
	gh, err := r.Clients.NewInstallationClient(job.Installation)
	if err != nil {
		log.Error().Err(err).Msg("Could not report the failed debate: no client for the installation.")
		return
	}
	pub := r.publisher(ctx, gh, job)
	what, subject, again := "review", "this pull request", "push a new commit or comment `/debate`"
	if job.Kind == KindDesign {
		what, subject, again = "debate", "this issue", "comment `/debate`"
	}
	why := notReviewedReason(cause, subject)
	msg := fmt.Sprintf("**debatebot could not %s %s**: %s.\n\nIt will not try again on its own: %s to try again.", what, subject, why, again)
	if err := publish.Retry(ctx, 3, func() error { return pub.Upsert(ctx, pull.CannotDebateMarker, msg) }); err != nil {
		log.Error().Err(err).Msg("Could not say that the debate could not be held.")
	}
	if job.Kind != KindReview {
		return
	}
	if r.Store != nil && job.StoreID != 0 {
		if id, err := r.Store.CheckRun(ctx, jobCheckKey(job.StoreID)); err == nil {
			pub.UseCheckRun(id)
		}
	}
	if pub.CheckRunID() == 0 && job.HeadSHA == "" {
		return // no check run was started, and no head to start one on
	}
	if err := publish.Retry(ctx, 3, func() error { return pub.FailCheck(ctx, job.HeadSHA, errors.New(why)) }); err != nil {
		log.Error().Err(err).Msg("Could not report the failed debate on the check run.")
	}
}

// notReviewedReason says, for the pull request's readers, why its job failed for good: never an
// internal error's addresses or paths.
func notReviewedReason(cause error, subject string) string {
	var ab *AbandonedError
	var ge *github.ErrorResponse
	var rl *github.RateLimitError
	switch {
	case errors.As(cause, &ab):
		return fmt.Sprintf("the worker stopped %d times while reviewing %s (the process ended each time, and something in the change may be what ends it), so it is not tried again", ab.Times, subject)
	case errors.Is(cause, context.DeadlineExceeded):
		return "it ran out of time each time it was tried"
	case errors.As(cause, &rl):
		return "GitHub's rate limit stopped it each time it was tried"
	case errors.As(cause, &ge) && ge.Response != nil:
		return fmt.Sprintf("GitHub answered a request with HTTP %d each time it was tried", ge.Response.StatusCode)
	}
	return "it failed each time it was tried: " + publicError(cause)
}

var (
	// urlRe is an address in an error (the model's server, GitHub's API).
	urlRe = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)
	// pathRe is an absolute path on the server, where a word starts.
	pathRe = regexp.MustCompile(`(^|[\s"'(=])/[^\s"'()<>]*`)
)

// publicError is an error's text without the server's addresses and paths, clipped.
func publicError(err error) string {
	s := urlRe.ReplaceAllString(err.Error(), "(an address)")
	s = pathRe.ReplaceAllString(s, "${1}(a path)")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return strings.TrimSpace(s)
}
