package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/converse"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/store"
	"github.com/debatebot/debatebot/toulmin"
)

// DismissPermission is what a reply needs to dismiss a finding.
const DismissPermission = "write"

// Reactions on a reply in a finding's thread.
const (
	// DismissedReaction answers a dismissal that was kept.
	DismissedReaction = "+1"
	// AskedReaction answers a question once its asker's answers by comment are spent.
	AskedReaction = "eyes"
)

// threadLimits bound the answers one person's replies in the review threads of the bot's
// findings get on one pull request (store.Answer), apart from the answers to their commands: a
// question may cost a model call, so after MaxQuestionComments answers by comment within the
// hour a reaction says it was seen; a refused dismissal is answered by comment
// MaxRefusalComments times, then by a reaction; after MaxReplyAnswers answers of either kind
// nothing does, and the person's replies on that pull request are ignored for the rest of the
// hour (muted).
var threadLimits = store.AnswerLimits{Budget: store.ThreadBudget, Window: AnswerWindow, Total: MaxReplyAnswers,
	Comments: map[string]int{store.AnswerQuestion: MaxQuestionComments, store.AnswerRefusal: MaxRefusalComments}}

// The bounds of the answers to one user's replies in review threads on one pull request.
const (
	MaxReplyAnswers     = 10
	MaxQuestionComments = 5
)

// thread is a review thread the bot opened on a finding, as a reply's job reads it.
type thread struct {
	root     *github.PullRequestComment
	comments []*github.PullRequestComment // the root first, then its replies, oldest first
	findings []converse.Finding
}

// reply holds a person's reply in the thread of one of the bot's review comments, in stages:
// read the thread (only the bot's comments about findings are answered), answer once, then
// dismiss the finding or answer the question.
func (r *Runner) reply(ctx context.Context, gh *github.Client, job *Job) error {
	th, err := r.readThread(ctx, gh, job)
	if err != nil || th == nil {
		return err
	}
	if th.answered(job.CommentID) {
		zerolog.Ctx(ctx).Info().Int64("reply", job.CommentID).Msg("The reply was answered already.")
		return nil
	}
	if reason, ok := converse.ParseDismissal(job.Body); ok {
		return r.dismissFinding(ctx, gh, job, th, reason)
	}
	return r.answerReply(ctx, gh, job, th)
}

// readThread reads the review thread the reply is in, at a cost in GitHub requests that follows
// the thread, not the pull request: its root first (one request), and only when the root is the
// bot's comment on findings, the comments since the root was made. It is nil, with nothing to
// answer, when the root is gone, is on another pull request, was not made by the bot, or names
// no finding.
func (r *Runner) readThread(ctx context.Context, gh *github.Client, job *Job) (*thread, error) {
	log := zerolog.Ctx(ctx).With().Int64("reply", job.CommentID).Int64("in_reply_to", job.InReplyTo).Logger()
	root, _, err := gh.PullRequests.GetComment(ctx, job.PR.Owner, job.PR.Repo, job.InReplyTo)
	switch {
	case review.NotFound(err):
		log.Info().Msg("Ignored a reply: the comment it answers is gone.")
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("failed to read review comment %d, the thread of reply %d on %s: %w", job.InReplyTo, job.CommentID, job.PR, err)
	case !strings.HasSuffix(root.GetPullRequestURL(), fmt.Sprintf("/pulls/%d", job.PR.Number)):
		// The comment is read by its id in the repository: its findings are another pull
		// request's, and no reply here answers them.
		log.Info().Str("pull_request_url", root.GetPullRequestURL()).Msg("Ignored a reply: the comment it answers is not on this pull request.")
		return nil, nil
	case root.GetUser().GetLogin() != r.Bot:
		log.Debug().Str("author", root.GetUser().GetLogin()).Msg("Ignored a reply in a thread the bot did not open.")
		return nil, nil
	}
	th := &thread{root: root, comments: []*github.PullRequestComment{root}}
	summary := converse.Summary(root.GetBody())
	for _, m := range render.FingerprintMarkers(root.GetBody()) {
		th.findings = append(th.findings, converse.Finding{MarkedFinding: m, Path: root.GetPath(), Line: commentLine(root), Summary: summary})
	}
	if len(th.findings) == 0 {
		log.Info().Msg("Ignored a reply to a comment of the bot that names no finding.")
		return nil, nil
	}
	if err := th.readReplies(ctx, gh, job); err != nil {
		return nil, err
	}
	r.findEvidence(ctx, job, th.findings)
	return th, nil
}

// readReplies adds the thread's replies after its root, oldest first: from the pull request's
// review comments updated since the root was made (no reply is older than its root), 100 a page,
// in the order they were made.
func (th *thread) readReplies(ctx context.Context, gh *github.Client, job *Job) error {
	opts := &github.PullRequestListCommentsOptions{Sort: "created", Direction: "asc", Since: th.root.GetCreatedAt().Time,
		ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := gh.PullRequests.ListComments(ctx, job.PR.Owner, job.PR.Repo, job.PR.Number, opts)
		if err != nil {
			return fmt.Errorf("failed to read the replies to review comment %d on %s: %w", job.InReplyTo, job.PR, err)
		}
		for _, c := range page {
			if c.GetInReplyTo() == th.root.GetID() && c.GetID() != th.root.GetID() {
				th.comments = append(th.comments, c)
			}
		}
		if resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

// answered reports whether the bot answered the reply already (a retried job).
func (th *thread) answered(replyID int64) bool {
	marker := converse.ReplyMarker(replyID)
	for _, c := range th.comments {
		if strings.Contains(c.GetBody(), marker) {
			return true
		}
	}
	return false
}

// findEvidence fills the findings' evidence from the pull request's latest decided debate, when
// the store still has it; without it the answers use the comment and the rule catalog.
func (r *Runner) findEvidence(ctx context.Context, job *Job, fs []converse.Finding) {
	if r.Store == nil {
		return
	}
	latest, err := r.Store.LatestDecided(ctx, job.PR.Repository(), job.PR.Number)
	if err != nil {
		return
	}
	d, err := r.Store.Debate(ctx, latest.ID)
	if err != nil || len(d.Checkpoint) == 0 {
		return
	}
	var t toulmin.Transcript
	if err := json.Unmarshal(d.Checkpoint, &t); err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Str("debate_id", d.ID).Msg("Could not read the stored transcript for a reply.")
		return
	}
	for i := range fs {
		for _, e := range t.Evidence {
			if e.Fingerprint == fs[i].Fingerprint {
				e := e
				fs[i].Evidence = &e
				break
			}
		}
	}
}

// dismissFinding dismisses the thread's findings for a writer: kept in the store by fingerprint,
// a reaction on the reply, and one reply saying so. Anyone else gets a polite refusal.
func (r *Runner) dismissFinding(ctx context.Context, gh *github.Client, job *Job, th *thread, reason string) error {
	log := zerolog.Ctx(ctx).With().Str("requester", job.Requester).Logger()
	have, err := pull.Permission(ctx, review.NewGitHub(gh), job.PR, job.Requester)
	if err != nil {
		return err
	}
	if !config.PermissionAtLeast(have, DismissPermission) {
		r.Metrics.refused("permission")
		log.Info().Str("permission", have).Msg("Refused a dismissal: its author cannot write to the repository.")
		return r.threadAnswer(ctx, gh, job, store.AnswerRefusal, RefusalReaction, func() (string, error) {
			return converse.NotPermitted(job.Requester, have), nil
		})
	}
	if r.Store == nil {
		return fmt.Errorf("dismissing a finding on %s needs the store", job.PR)
	}
	findings, reason := converse.Select(th.findings, reason)
	for _, f := range findings {
		d := &store.Dismissal{Repository: job.PR.Repository(), Fingerprint: f.Fingerprint, Rule: f.Rule, Path: f.Path, Line: f.Line,
			PRNumber: job.PR.Number, By: job.Requester, Reason: reason, Excerpt: f.Excerpt(), At: r.now(),
			CommentURL: fmt.Sprintf("https://github.com/%s/pull/%d#discussion_r%d", job.PR.Repository(), job.PR.Number, job.CommentID)}
		if _, err := r.Store.Dismiss(ctx, d); err != nil {
			return err
		}
	}
	log.Info().Int("findings", len(findings)).Msg("Dismissed the findings of a review comment.")
	if _, _, err := gh.Reactions.CreatePullRequestCommentReaction(ctx, job.PR.Owner, job.PR.Repo, job.CommentID, DismissedReaction); err != nil {
		log.Warn().Err(err).Msg("Could not react to the dismissal.")
	}
	return r.postReply(ctx, gh, job, converse.Dismissed(job.Requester, reason, findings, r.dismissalsURL(job)))
}

// dismissalsURL is the dashboard's page of the repository's dismissals, or "" without one.
func (r *Runner) dismissalsURL(job *Job) string {
	if r.PublicURL == "" {
		return ""
	}
	return strings.TrimSuffix(r.PublicURL, "/") + "/dismissals?repo=" + job.PR.Repository()
}

// answerReply answers a question in the thread, within threadLimits: with the model when one
// is configured and the repository's model budget allows, from the evidence and the rule
// catalog otherwise (and when the model fails).
func (r *Runner) answerReply(ctx context.Context, gh *github.Client, job *Job, th *thread) error {
	return r.threadAnswer(ctx, gh, job, store.AnswerQuestion, AskedReaction, func() (string, error) {
		offline := converse.Offline(job.Requester, th.findings)
		if r.ReplyModel == nil {
			return offline, nil
		}
		repo, err := r.commandConfig(ctx, review.NewGitHub(gh), job)
		if err != nil {
			return "", err
		}
		cl := r.ReplyModel(repo)
		if cl == nil {
			return offline, nil
		}
		if why, err := r.offlineReason(ctx, repo, job.PR.Repository()); err != nil || why != "" {
			return offline, err
		}
		q := converse.Question{Asker: job.Requester, Findings: th.findings, Path: th.root.GetPath()}
		for _, c := range th.comments {
			if c.GetID() <= job.CommentID { // the thread up to the question, not what came after it
				q.Thread = append(q.Thread, converse.Turn{Login: c.GetUser().GetLogin(), Body: c.GetBody()})
			}
		}
		if !th.has(job.CommentID) {
			q.Thread = append(q.Thread, converse.Turn{Login: job.Requester, Body: job.Body})
		}
		q.Start, q.Code = r.codeAround(ctx, gh, job, th.root)
		text, usage, err := converse.Ask(ctx, cl, q)
		r.spend(ctx, job.PR.Repository(), "reply/"+jobKey(job), usage.Prompt, usage.Completion)
		zerolog.Ctx(ctx).Info().Str("model", cl.Model).Int64("prompt_tokens", usage.Prompt).Int64("completion_tokens", usage.Completion).
			Float64("cost_usd", usage.CostUSD).Msg("Asked the model about a finding.")
		if err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("The model could not answer a question; answered from the evidence.")
			return offline, nil
		}
		return fmt.Sprintf("@%s %s\n\n<sub>Answered by %s from this thread and the code around the line; the finding stands unless someone with write access replies `false positive`.</sub>", job.Requester, text, cl.Model), nil
	})
}

// has reports whether the thread read holds the comment (the reply may be newer than the list).
func (th *thread) has(id int64) bool {
	for _, c := range th.comments {
		if c.GetID() == id {
			return true
		}
	}
	return false
}

// commentLine is the line a review comment is on: its line at the head, or, once a push made
// it outdated (GitHub then reports no line), the line it was made on.
func commentLine(c *github.PullRequestComment) int {
	if n := c.GetLine(); n > 0 {
		return n
	}
	return c.GetOriginalLine()
}

// codeLines is how many lines either side of a finding's line the model sees.
const codeLines = 12

// codeAround reads the lines around the thread's line from the head file at the comment's
// commit: the number of the first and the lines, or nothing when the file cannot be read.
func (r *Runner) codeAround(ctx context.Context, gh *github.Client, job *Job, root *github.PullRequestComment) (int, []string) {
	line := commentLine(root)
	if root.GetPath() == "" || line <= 0 {
		return 0, nil
	}
	ref := root.GetCommitID()
	if root.GetLine() == 0 {
		ref = root.GetOriginalCommitID() // an outdated comment's line is the original commit's
	}
	content, err := review.NewGitHub(gh).File(ctx, job.PR, root.GetPath(), ref)
	if err != nil {
		zerolog.Ctx(ctx).Info().Err(err).Str("path", root.GetPath()).Msg("Could not read the code around a finding; the model answers from the thread.")
		return 0, nil
	}
	lines := strings.Split(string(content), "\n")
	start, end := max(1, line-codeLines), min(len(lines), line+codeLines)
	if start > end {
		return 0, nil
	}
	return start, lines[start-1 : end]
}

// threadAnswer answers a reply in its thread as threadLimits allow for kind (counted against the
// thread budget, never the commands'): with the text (asked for only then), with a reaction on
// the reply, or not at all.
func (r *Runner) threadAnswer(ctx context.Context, gh *github.Client, job *Job, kind, reaction string, text func() (string, error)) error {
	how := store.AnsweredComment
	if r.Store != nil {
		var err error
		if how, err = r.Store.Answer(ctx, jobKey(job), job.PR.String(), job.Requester, kind, r.now(), threadLimits); err != nil {
			return err
		}
	}
	switch how {
	case store.AnsweredComment:
		body, err := text()
		if err != nil {
			return err
		}
		return r.postReply(ctx, gh, job, body)
	case store.AnsweredReaction:
		if _, _, err := gh.Reactions.CreatePullRequestCommentReaction(ctx, job.PR.Owner, job.PR.Repo, job.CommentID, reaction); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not react to the reply.")
		}
		return nil
	}
	zerolog.Ctx(ctx).Info().Str("requester", job.Requester).Str("answer", kind).
		Msg("Answered nothing: the reply's author was answered enough in this pull request's threads for the hour.")
	return nil
}

// postReply answers the reply in its thread (GitHub's replies endpoint for review comments),
// marked so that a retried job does not answer twice. A thread deleted meanwhile is not answered.
func (r *Runner) postReply(ctx context.Context, gh *github.Client, job *Job, body string) error {
	body = redact.Redact(strings.TrimSpace(body)) + "\n\n" + converse.ReplyMarker(job.CommentID)
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", url.PathEscape(job.PR.Owner), url.PathEscape(job.PR.Repo), job.PR.Number, job.InReplyTo)
	return publish.Retry(ctx, 3, func() error {
		req, err := gh.NewRequest(http.MethodPost, u, map[string]string{"body": body})
		if err != nil {
			return fmt.Errorf("failed to reply in the thread of review comment %d on %s: %w", job.InReplyTo, job.PR, err)
		}
		if _, err := gh.Do(ctx, req, nil); err != nil {
			if review.NotFound(err) {
				zerolog.Ctx(ctx).Info().Int64("in_reply_to", job.InReplyTo).Msg("The thread was deleted before the bot could answer in it.")
				return nil
			}
			return fmt.Errorf("failed to reply in the thread of review comment %d on %s: %w", job.InReplyTo, job.PR, err)
		}
		return nil
	})
}

// dismissed is the filter of a repository's debates: the fingerprints its maintainers dismissed,
// read once before the evidence is gathered (review.Debate drops them there).
func (r *Runner) dismissed(ctx context.Context, repository string) (func(string) bool, error) {
	if r.Store == nil {
		return nil, nil
	}
	set, err := r.Store.DismissedFingerprints(ctx, repository)
	if err != nil || len(set) == 0 {
		return nil, err
	}
	return func(fp string) bool { return set[fp] }, nil
}

// dropDismissedCarried leaves out of an earlier debate's required changes those on the line of a
// finding dismissed on this pull request, so that a push does not carry a dismissed finding
// forward as still open (the debate of what changed since never gathers it again).
func (r *Runner) dropDismissedCarried(ctx context.Context, job *Job, carried []toulmin.Carried) ([]toulmin.Carried, error) {
	if r.Store == nil || len(carried) == 0 {
		return carried, nil
	}
	all, err := r.Store.Dismissals(ctx, []string{job.PR.Repository()})
	if err != nil {
		return nil, err
	}
	at := map[string]bool{}
	for _, d := range all {
		if d.PRNumber == job.PR.Number {
			at[toulmin.Cite(d.Path, d.Line)] = true
		}
	}
	kept := carried[:0:0]
	for _, c := range carried {
		if m := render.Citation.FindStringSubmatch(c.Text); m != nil && c.Status == toulmin.StillOpen && at[m[1]+":"+m[2]] {
			continue
		}
		kept = append(kept, c)
	}
	if n := len(carried) - len(kept); n > 0 {
		zerolog.Ctx(ctx).Info().Int("dismissed", n).Msg("Left dismissed findings out of the required changes carried forward.")
	}
	return kept, nil
}
