package handlers

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/store"
)

// Anyone may comment, so what the App answers to commands that start nothing (/help, /debate
// help, and every refusal of a command) is bounded per user and pull request, in the store so
// that replicas and restarts share the count: within AnswerWindow, MaxHelpComments answers to
// help and MaxRefusalComments refusal by comment; after them a reaction on the command's
// comment; after MaxAnswers answers of either kind, nothing at all, not even the permission
// lookup. The answers in review threads have a budget of their own (threadLimits, job_reply.go):
// neither budget mutes the other's family.
var answerLimits = store.AnswerLimits{Budget: store.CommandBudget, Window: AnswerWindow, Total: MaxAnswers,
	Comments: map[string]int{store.AnswerHelp: MaxHelpComments, store.AnswerRefusal: MaxRefusalComments}}

// The bounds of the answers to one user's commands that start nothing on one pull request.
const (
	AnswerWindow       = time.Hour
	MaxAnswers         = 10
	MaxHelpComments    = 2
	MaxRefusalComments = 1
)

// Reactions that stand for an answer already given by comment.
const (
	// HelpReaction answers /help again: the commands are in the comment above.
	HelpReaction = "confused"
	// RefusalReaction answers a command (or a dismissal in a thread) refused again.
	RefusalReaction = "-1"
)

// answerBudget is the budget a job's answers count against, and so the one that mutes it: a
// reply in a finding's thread is the thread budget's, every other job with a requester (a
// command) the command budget's.
func answerBudget(job *Job) (budget string, total int) {
	if job.Kind == KindReply {
		return store.ThreadBudget, MaxReplyAnswers
	}
	return store.CommandBudget, MaxAnswers
}

// muted reports whether a job's requester has used up the answers of its family on its pull
// request: then the job is dropped before anything is asked of GitHub. A command that starts
// something (a writer's /debate, a writer's dismissal) is never counted, so only those who were
// answered the budget's total within the window are muted, and only for that family: ten
// questions in threads do not mute a /debate, nor ten refused commands a question.
func (r *Runner) muted(ctx context.Context, job *Job) (bool, error) {
	if r.Store == nil || job.Requester == "" || job.Resume != "" {
		return false, nil
	}
	budget, total := answerBudget(job)
	n, err := r.Store.Answers(ctx, job.PR.String(), job.Requester, budget, r.now(), AnswerWindow)
	if err != nil || n < total {
		return false, err
	}
	r.Metrics.refused("muted")
	zerolog.Ctx(ctx).Info().Str("requester", job.Requester).Str("budget", budget).Int("answers", n).
		Msg("Ignored a command or reply: its author's answers of this kind on this pull request are used up for the hour.")
	return true, nil
}

// answer answers a command that starts nothing, as answerLimits allow: with the comment text
// returns (asked for only then), with a reaction on the command's comment, or not at all.
func (r *Runner) answer(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job, kind string, text func() (string, error)) error {
	how := store.AnsweredComment
	if r.Store != nil && job.Requester != "" {
		var err error
		if how, err = r.Store.Answer(ctx, jobKey(job), job.PR.String(), job.Requester, kind, r.now(), answerLimits); err != nil {
			return err
		}
	}
	log := zerolog.Ctx(ctx).With().Str("requester", job.Requester).Str("answer", kind).Str("how", how).Logger()
	switch how {
	case store.AnsweredComment:
		body, err := text()
		if err != nil {
			return err
		}
		return pub.Comment(ctx, body)
	case store.AnsweredReaction:
		if job.CommentID == 0 {
			return nil
		}
		content := RefusalReaction
		if kind == store.AnswerHelp {
			content = HelpReaction
		}
		if err := gh.ReactToComment(ctx, job.PR, job.CommentID, content); err != nil {
			log.Warn().Err(err).Msg("Could not react to the command.")
		}
		return nil
	}
	log.Info().Msg("Answered nothing: the command's author was answered enough on this pull request for the hour.")
	return nil
}

// refuse answers a refused command (no permission, an unknown protocol, over a limit, nothing to
// act on) with text, within answerLimits.
func (r *Runner) refuse(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job, text string) error {
	return r.answer(ctx, gh, pub, job, store.AnswerRefusal, func() (string, error) { return text, nil })
}
