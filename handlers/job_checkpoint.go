package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// ErrPaused is what the App's checkpoint hook returns: the debate is kept paused in the store
// and its job ends without error; an answer on the pull request enqueues the job that resumes it.
// A worker does not wait for a human, who may answer hours later, on another replica.
var ErrPaused = errors.New("the debate is paused at a checkpoint until a human answers")

// pauseAt is the hook the engine asks between rounds when the protocol has checkpoints. The
// engine asks only when no answer is recorded (a resumed debate reuses the recorded one), so
// being asked means pausing: the debate is marked paused after the round (its last checkpoint
// is where it resumes), and the progress comment says how to answer.
func (r *Runner) pauseAt(pub *publish.Publisher, repo *config.Repo, wait time.Duration) toulmin.RoundCheckpoint {
	return func(ctx context.Context, p toulmin.Pause) (toulmin.CheckpointAnswer, error) {
		at := r.now()
		if err := r.Store.PauseDebate(ctx, p.DebateID, p.Round, at, at.Add(wait)); err != nil {
			return toulmin.CheckpointAnswer{}, err
		}
		if err := pub.Upsert(ctx, render.TranscriptMarker, PausedComment(p.Transcript, p.Round, repo.CommandPermission, wait)); err != nil {
			// The pause holds all the same; the answer commands work without the comment.
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not show that the debate is paused.")
		}
		summary := fmt.Sprintf("The debate is paused after round %d for a human checkpoint: comment `/debate continue`, `/debate guide TEXT` or `/debate end` (%s permission or more). Without an answer within %s the rounds end.", p.Round, repo.CommandPermission, wait)
		if err := pub.PausedCheck(ctx, p.Round, summary); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not show the pause on the check run.")
		}
		return toulmin.CheckpointAnswer{}, ErrPaused
	}
}

// PausedComment is the progress comment of a debate paused after a round: the phases so far
// and the commands that resume it.
func PausedComment(t *toulmin.Transcript, round int, permission string, wait time.Duration) string {
	var b strings.Builder
	b.WriteString(render.ProgressComment(t, ""))
	fmt.Fprintf(&b, "\n**The debate is paused after round %d** for a human checkpoint. Comment, with %s permission or more:\n\n", round, permission)
	b.WriteString("- `/debate continue` to run the next round;\n")
	b.WriteString("- `/debate guide TEXT` to run it with your guidance to every agent;\n")
	b.WriteString("- `/debate end` to end the rounds and go on to the synthesis and decision.\n")
	fmt.Fprintf(&b, "\nWithout an answer within %s (checkpoint_timeout) the rounds end.\n", wait)
	return b.String()
}

// answerCheckpoint holds "/debate continue|guide TEXT|end": a commenter with command_permission
// answers the pull request's paused debate. The answer is written into the debate's stored
// checkpoint, where the resumed engine finds it instead of asking again, and the paused job is
// enqueued again to resume.
func (r *Runner) answerCheckpoint(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job) error {
	repo, err := r.commandConfig(ctx, gh, job)
	if err != nil {
		return err
	}
	action := toulmin.CheckpointAction(job.Protocol)
	if ok, err := r.permitted(ctx, gh, pub, job, repo.CommandPermission, fmt.Sprintf("`/debate %s`", action), "Nothing was changed."); !ok {
		return err
	}
	p, err := r.Store.PausedDebate(ctx, job.PR.Repository(), job.PR.Number)
	if errors.Is(err, store.ErrNotFound) {
		return r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: no debate on this pull request is paused at a checkpoint; `/debate %s` changed nothing.", job.Requester, action))
	}
	if err != nil {
		return err
	}
	resume, t, err := r.pausedJob(ctx, p)
	if err != nil {
		return err
	}
	if resume.Kind == KindReview && resume.HeadSHA != "" {
		meta, err := gh.PullRequest(ctx, job.PR)
		if err != nil {
			return fmt.Errorf("failed to get pull request %s: %w", job.PR, err)
		}
		if head := meta.GetHead().GetSHA(); head != resume.HeadSHA {
			// Resuming would debate a head the pull request left; its newer head is debated anew.
			return r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: the paused debate was of commit %s, and the pull request has moved on to %s; it is not resumed.", job.Requester, render.ShortSHA(resume.HeadSHA), render.ShortSHA(head)))
		}
	}
	c := toulmin.Checkpoint{AfterRound: p.AfterRound, Action: action, By: job.Requester, Waited: r.now().Sub(p.At).Round(time.Millisecond)}
	if action == toulmin.CheckpointGuide {
		c.SetGuidance(job.Body)
	}
	return r.resume(ctx, pub, p, resume, t, c, job.DeliveryID)
}

// pausedJob reads the job a paused debate ran in, to be enqueued again, and the debate's
// checkpoint.
func (r *Runner) pausedJob(ctx context.Context, p *store.Paused) (*Job, *toulmin.Transcript, error) {
	sj, err := r.Store.Job(ctx, p.JobID)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read the job of paused debate %s: %w", p.ID, err)
	}
	var resume Job
	if err := json.Unmarshal(sj.Payload, &resume); err != nil {
		return nil, nil, fmt.Errorf("failed to read the job of paused debate %s: %w", p.ID, err)
	}
	d, err := r.Store.Debate(ctx, p.ID)
	if err != nil {
		return nil, nil, err
	}
	var t toulmin.Transcript
	if err := json.Unmarshal(d.Checkpoint, &t); err != nil {
		return nil, nil, fmt.Errorf("failed to read the checkpoint of paused debate %s: %w", p.ID, err)
	}
	return &resume, &t, nil
}

// resume records the checkpoint's answer in the paused debate and enqueues its job again. Only
// the first answer counts: a later one finds the debate no longer paused after that round.
func (r *Runner) resume(ctx context.Context, pub *publish.Publisher, p *store.Paused, job *Job, t *toulmin.Transcript, c toulmin.Checkpoint, delivery string) error {
	t.RecordCheckpoint(c)
	cp, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("failed to encode the checkpoint of paused debate %s: %w", p.ID, err)
	}
	ok, err := r.Store.Unpause(ctx, p.ID, p.AfterRound, cp)
	if err != nil {
		return err
	}
	if !ok {
		if c.By == "" {
			return nil
		}
		return pub.Comment(ctx, fmt.Sprintf("@%s: the checkpoint after round %d was answered already; `/debate %s` changed nothing.", c.By, c.AfterRound, c.Action))
	}
	job.Resume = fmt.Sprintf("%s/%d", p.ID, p.AfterRound)
	job.DeliveryID = "resume/" + job.Resume + "/" + delivery
	job.Requester, job.CommentID, job.CommentVersion = "", 0, ""
	if _, _, err := r.Enqueue(ctx, job); err != nil {
		return fmt.Errorf("failed to enqueue the resumption of debate %s after round %d: %w", p.ID, p.AfterRound, err)
	}
	if c.By == "" {
		return nil
	}
	what := map[toulmin.CheckpointAction]string{
		toulmin.CheckpointContinue: "the next round runs",
		toulmin.CheckpointGuide:    "the next round runs with the guidance",
		toulmin.CheckpointEnd:      "the rounds end, and the debate goes on to its synthesis and decision",
	}[c.Action]
	return pub.Comment(ctx, fmt.Sprintf("@%s answered the checkpoint after round %d: **%s**; %s.", c.By, c.AfterRound, c.Action, what))
}

// SweepPaused ends the rounds of every paused debate whose checkpoint_timeout is over, as the
// engine does when no answer comes in time: the answer "end" is recorded with a note and the
// debate's job is enqueued again, to go on to its synthesis and decision. The queue calls it
// periodically; answers and sweeps on several replicas record one answer (Store.Unpause).
func (r *Runner) SweepPaused(ctx context.Context) error {
	now := r.now()
	due, err := r.Store.PausedUntil(ctx, now)
	if err != nil {
		return err
	}
	var errs []error
	for i := range due {
		p := &due[i]
		job, t, err := r.pausedJob(ctx, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if stale, err := r.Store.NewerHead(ctx, job.PR.String(), job.HeadSHA, p.JobID); err != nil || (stale && job.HeadSHA != "") {
			if err == nil {
				// A newer push is debated on its own; the stale debate is left unfinished.
				_, err = r.Store.Unpause(ctx, p.ID, p.AfterRound, nil)
			}
			if err != nil {
				errs = append(errs, err)
			}
			continue
		}
		c := toulmin.Checkpoint{AfterRound: p.AfterRound, Action: toulmin.CheckpointEnd, Waited: now.Sub(p.At).Round(time.Millisecond),
			Note: fmt.Sprintf("no answer within the checkpoint timeout (%s): the rounds end", p.Until.Sub(p.At))}
		if err := r.resume(ctx, nil, p, job, t, c, "timeout"); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
