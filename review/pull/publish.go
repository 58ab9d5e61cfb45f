package pull

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"
)

// PublishOptions are what differs between the App's publication and the Action's.
type PublishOptions struct {
	// Memo, when set, remembers the check run, its conclusion and the inline review, so that a
	// retried job does not conclude or review twice; the Action, which publishes once, has none.
	Memo PublishMemo
	// NoCheck leaves the check run out: the Action's token may not create one (a pull request
	// from a fork).
	NoCheck bool
	// Review says what the inline review covers (nil: the whole pull request, the review event
	// COMMENT).
	Review *ReviewScope
}

// Publish writes a finished debate where the App and the Action publish it: the summary comment,
// the decision comment, the inline review, then the check run (annotating the findings the review
// did not comment on) and the escalation label; each write is tried three times with backoff.
// pub.Link, when set, is the debate's page (the dashboard's, or the Action's run), which the
// summary links to for the whole debate.
func Publish(ctx context.Context, pub *publish.Publisher, t *toulmin.Transcript, opts PublishOptions) error {
	how := opts.Review
	if how == nil {
		how = &ReviewScope{}
	}
	md, err := render.SummaryComment(t, render.SummaryOptions{BlobURL: blobURL(pub.DetailsURL, t.Record.HeadSHA), Link: pub.Link})
	if err != nil {
		return err
	}
	dc, err := render.DecisionComment(t)
	if err != nil {
		return err
	}
	steps := []func() error{
		func() error { return pub.Upsert(ctx, render.TranscriptMarker, md) },
		func() error { return pub.Upsert(ctx, render.DecisionMarker, dc) },
	}
	if t.Record.HeadSHA != "" && t.Record.Synthesis == nil {
		// The review comes before the check run, whose annotations are the findings that got no
		// review comment.
		steps = append(steps, func() error { return reviewOnce(ctx, pub, t, how, opts.Memo) })
	}
	steps = append(steps, func() error {
		if opts.NoCheck {
			return nil
		}
		// A retry of the job (a later step failed) publishes the same stored transcript (the
		// same end): it does not conclude the check run again, as GitHub would show its
		// annotations twice.
		concluded := fmt.Sprintf("concluded:%s@%d", t.DebateID, t.EndedAt.UnixNano())
		if opts.Memo == nil {
			return pub.FinishCheck(ctx, t)
		}
		if id, err := opts.Memo.Publication(ctx, pub.PR().String(), concluded); err == nil && id != 0 && (pub.CheckRunID() == 0 || id == pub.CheckRunID()) {
			return nil
		}
		had := pub.CheckRunID()
		if err := pub.FinishCheck(ctx, t); err != nil {
			return err
		}
		if id := pub.CheckRunID(); id != had {
			// Created now, as its creation failed when the debate started.
			if err := opts.Memo.SaveCheckRun(ctx, t.DebateID, id); err != nil {
				zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not remember the check run.")
			}
		}
		if id := pub.CheckRunID(); id != 0 {
			if err := opts.Memo.SavePublication(ctx, pub.PR().String(), concluded, id); err != nil {
				zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not remember that the check run was concluded.")
			}
		}
		return nil
	})
	if t.Record.Decision == voting.Escalate {
		steps = append(steps, func() error { return pub.Label(ctx, publish.EscalationLabel) })
	}
	for _, step := range steps {
		if err := Retry(ctx, 3, step); err != nil {
			return fmt.Errorf("failed to publish debate %s: %w", t.DebateID, err)
		}
	}
	zerolog.Ctx(ctx).Info().Str("decision", string(t.Record.Decision)).Msg("Published the debate.")
	return nil
}

// Retry runs a publishing step up to attempts times while it fails for a reason that may pass: a
// network error or a server error the transport did not repeat (a POST's 5xx). GitHub's refusals
// (4xx: no permission, not found, validation, a rate limit the transport already waited on as
// long as it may) come back the same, so they return at once.
func Retry(ctx context.Context, attempts int, f func() error) error {
	var err error
	delay := 200 * time.Millisecond
	for i := 0; i < attempts; i++ {
		if err = f(); err == nil || refused(err) || i == attempts-1 {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay):
		}
		delay *= 2
	}
	return err
}

// refused reports whether err is GitHub answering with a client error (4xx), which repeating the
// request does not change.
func refused(err error) bool {
	var er *github.ErrorResponse
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	switch {
	case errors.As(err, &er):
		return er.Response != nil && er.Response.StatusCode >= 400 && er.Response.StatusCode < 500
	case errors.As(err, &rl), errors.As(err, &ab):
		return true
	}
	return false
}

// ShowProgress is the debate's observer on the pull request: the transcript comment shows which
// phase runs, edited at most once per phase; failed hears of an edit GitHub refused.
func ShowProgress(ctx context.Context, pub *publish.Publisher, failed func(error)) func(toulmin.Event) {
	return func(e toulmin.Event) {
		if e.Kind != toulmin.EventPhaseStarted || e.Phase.Phase == toulmin.PhaseDecision {
			return
		}
		if err := pub.Upsert(ctx, render.TranscriptMarker, render.ProgressComment(e.Transcript, e.Phase.Phase)); err != nil {
			failed(err)
		}
	}
}

// ReviewScope is what the inline review of a debate covers beside its transcript: the change
// the debate saw and the head that change was compared with (empty for the whole pull request);
// no change for a debate published from the store; and the review event of debatebot.yml.
type ReviewScope struct {
	Change *change.Change
	Since  string
	Event  string
}

// reviewOnce posts the debate's inline review once: a retry of the publication (a later step
// failed) finds it remembered in memo and does not post it again.
func reviewOnce(ctx context.Context, pub *publish.Publisher, t *toulmin.Transcript, how *ReviewScope, memo PublishMemo) error {
	key := fmt.Sprintf("reviewed:%s@%d", t.DebateID, t.EndedAt.UnixNano())
	if memo != nil {
		if id, err := memo.Publication(ctx, pub.PR().String(), key); err == nil && id != 0 {
			return nil
		}
	}
	res, err := pub.Review(ctx, t, publish.ReviewOptions{Event: how.Event, Change: how.Change, Since: how.Since, Link: pub.Link})
	if err != nil {
		return err
	}
	zerolog.Ctx(ctx).Info().Int("posted", res.Posted).Int("repeated", res.Repeated).Int("in_body", res.Body).Int("moved", res.Moved).
		Int("resolved", res.Resolved).Msg("Reviewed the pull request's lines.")
	if memo != nil {
		if err := memo.SavePublication(ctx, pub.PR().String(), key, 1); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not remember that the review was posted.")
		}
	}
	return nil
}

// blobURL is the web address of the files at a commit, from the pull request's page
// ("https://github.com/o/r/pull/5" -> "https://github.com/o/r/blob/<sha>/"), or "".
func blobURL(prURL, sha string) string {
	i := strings.LastIndex(prURL, "/pull/")
	if i < 0 || sha == "" {
		return ""
	}
	return prURL[:i] + "/blob/" + sha + "/"
}

// PublishMemo keeps, outside GitHub, what a publication did (the App's store): the check run it
// created and that it concluded it, and that the inline review was posted.
type PublishMemo interface {
	Publication(ctx context.Context, pr, marker string) (int64, error)
	SavePublication(ctx context.Context, pr, marker string, id int64) error
	SaveCheckRun(ctx context.Context, debateID string, id int64) error
}
