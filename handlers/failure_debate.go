package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/dialectic"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
)

// FailureMarker is the marker of a task's failure debate comment: one per task, edited in place.
func FailureMarker(taskID string) string { return "<!-- debatebot:failure-" + taskID + " -->" }

// failureDebate holds seed 000's failure debate over the task's last two attempts and publishes
// it as the task's one comment; an ESCALATE labels the pull request.
func (r *Runner) failureDebate(ctx context.Context, gh review.Comparer, pub *publish.Publisher, repo *config.Repo, pr review.PullRequest, t *store.FailureTask, f *store.Failure, lines []string) error {
	fails, err := r.Store.LastFailures(ctx, pr.String(), t.TaskID, 2)
	if err != nil {
		return err
	}
	req := &dialectic.FailureRequest{Task: t.Task, TaskID: t.TaskID, Log: lines, PreviousPatterns: t.Patterns}
	for i, x := range fails {
		req.Attempts = append(req.Attempts, dialectic.Attempt{N: t.Streak - len(fails) + 1 + i, At: x.At, Fingerprint: x.Fingerprint, Message: x.Message, Head: x.HeadSHA, Files: x.Files})
	}
	if len(fails) == 2 {
		req.Changed, req.ChangeKnown = changedBetween(ctx, gh, pr, fails[0].HeadSHA, fails[1].HeadSHA)
	}
	key := "failure/" + f.RunKey
	agents, offline, ok, err := r.dialecticBudget(ctx, pub, repo, key, "")
	if err != nil || !ok {
		return err
	}
	rec, err := dialectic.DebateFailure(ctx, agents, req)
	if err != nil {
		return fmt.Errorf("failed to hold the failure debate of %q on %s: %w", t.Task, pr, err)
	}
	r.dialecticSpent(rec)
	md := r.dialecticSpentBudget(ctx, pr.Repository(), key, rec, offline)
	if err := r.Store.TaskDebated(ctx, pr.String(), t.TaskID, rec.FCrit.Pattern, rec.Synthesis.Resolution == dialectic.Escalate); err != nil {
		return err
	}
	d := &store.DialecticDebate{ID: key, Type: string(dialectic.Failure), PR: pr.String(), TaskID: t.TaskID, HeadSHA: f.HeadSHA,
		Resolution: string(rec.Synthesis.Resolution), Agents: rec.By, At: r.now(), Record: []byte(md)}
	if err := r.Store.SaveDialecticDebate(ctx, d); err != nil {
		return err
	}
	zerolog.Ctx(ctx).Info().Str("resolution", string(rec.Synthesis.Resolution)).Msg("Held a failure debate.")
	return r.publishFailure(ctx, pub, d)
}

// escalateFailure escalates a task whose one attempt after its failure debate failed again
// with the same error (seed 000: then auto-escalate), without another debate.
func (r *Runner) escalateFailure(ctx context.Context, pub *publish.Publisher, t *store.FailureTask, f *store.Failure) error {
	prior, err := r.latestFailureRecord(ctx, f.PR, t.TaskID)
	if err != nil {
		return err
	}
	note := fmt.Sprintf("\n\n**Escalated to a human** after attempt %d on %s failed again with the same error (`%s`): %d more attempt is allowed after a failure debate, and it was spent. No further debate is held; comment `/debate fresh` to start counting again.",
		t.Streak, render.ShortSHA(f.HeadSHA), strings.ReplaceAll(f.Fingerprint, "`", "'"), dialectic.MaxAttemptsAfterDebate)
	d := &store.DialecticDebate{ID: "escalation/" + f.RunKey, Type: "escalation", PR: f.PR, TaskID: t.TaskID, HeadSHA: f.HeadSHA,
		Resolution: string(dialectic.Escalate), Agents: "rules", At: r.now(), Record: []byte(prior + note)}
	if err := r.Store.SaveDialecticDebate(ctx, d); err != nil {
		return err
	}
	zerolog.Ctx(ctx).Info().Int("attempt", t.Streak).Msg("Escalated a task that failed again after its failure debate.")
	return r.publishFailure(ctx, pub, d)
}

// publishFailure writes a failure debate (or escalation) as the task's comment, and labels the
// pull request when it escalates; each write is tried three times.
func (r *Runner) publishFailure(ctx context.Context, pub *publish.Publisher, d *store.DialecticDebate) error {
	steps := []func() error{func() error { return pub.Upsert(ctx, FailureMarker(d.TaskID), string(d.Record)) }}
	if d.Resolution == string(dialectic.Escalate) {
		steps = append(steps, func() error { return pub.Label(ctx, publish.EscalationLabel) })
	}
	for _, step := range steps {
		if err := publish.Retry(ctx, 3, step); err != nil {
			return fmt.Errorf("failed to publish the failure debate of task %s on %s: %w", d.TaskID, d.PR, err)
		}
	}
	return nil
}

// republishFailure publishes again what was decided for a failure already recorded, and
// reports whether there was anything.
func (r *Runner) republishFailure(ctx context.Context, pub *publish.Publisher, runKey string) (bool, error) {
	for _, prefix := range []string{"escalation/", "failure/"} {
		d, err := r.Store.DialecticDebateByID(ctx, prefix+runKey)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		return true, r.publishFailure(ctx, pub, d)
	}
	return false, nil
}

// latestFailureRecord is the comment body of the task's latest failure debate or escalation.
func (r *Runner) latestFailureRecord(ctx context.Context, pr, taskID string) (string, error) {
	d, err := r.Store.LatestDialecticDebate(ctx, pr, taskID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return string(d.Record), nil
}

// noteOnDebate appends a note to the task's debate comment, when it has one.
func (r *Runner) noteOnDebate(ctx context.Context, pub *publish.Publisher, pr review.PullRequest, taskID, note string) error {
	prior, err := r.latestFailureRecord(ctx, pr.String(), taskID)
	if err != nil || prior == "" {
		return err
	}
	return publish.Retry(ctx, 3, func() error { return pub.Upsert(ctx, FailureMarker(taskID), prior+"\n\n"+note) })
}
