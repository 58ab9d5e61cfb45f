package publish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// Publisher keeps one transcript comment, one decision comment and one check run per pull
// request, found again by their markers and edited in place.
type Publisher struct {
	gh     *github.Client
	pr     review.PullRequest
	ids    map[string]int64
	bodies map[string]string
	// checkRunID is the check run of this debate, once created.
	checkRunID int64
	// concluded and annotated are how far a FinishCheck that failed got (the check run it
	// concluded, the annotations it sent), so that a retry goes on from there instead of
	// concluding again and repeating annotations, which GitHub appends.
	concluded int64
	annotated int
	// inlined are the keys of the findings that have a review comment on their line (posted by
	// Review, or by an earlier review of the pull request): the check run does not annotate them.
	inlined map[string]bool
	// Link points to the dashboard page of the debate, when there is one.
	Link string
	// Bot is the App's login ("<slug>[bot]"); when set, only its comments are edited.
	Bot string
	// DetailsURL is the pull request's page, which the check run links to.
	DetailsURL string
	// Known and Remember keep comment ids outside GitHub (the store), so that a publisher need
	// not list the comments to find its own.
	Known    func(marker string) (int64, bool)
	Remember func(marker string, id int64)
}

// NewPublisher returns a publisher for the pull request. Everything it writes to GitHub is
// redacted by the secret detector first (see redactingClient).
func NewPublisher(gh *github.Client, pr review.PullRequest) *Publisher {
	return &Publisher{gh: redactingClient(gh), pr: pr}
}

// find lists the comments once, page by page, and remembers the bot's by marker.
func (p *Publisher) find(ctx context.Context) error {
	if p.ids != nil {
		return nil
	}
	ids, bodies := map[string]int64{}, map[string]string{}
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := p.gh.Issues.ListComments(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, opts)
		if err != nil {
			return fmt.Errorf("failed to list comments of %s: %w", p.pr, err)
		}
		for _, c := range comments {
			// Only the bot's own comments count: anyone can write a marker into a comment.
			login := c.GetUser().GetLogin()
			if !strings.HasSuffix(login, "[bot]") || (p.Bot != "" && login != p.Bot) {
				continue
			}
			if m := markerRe.FindString(c.GetBody()); m != "" {
				if _, seen := ids[m]; !seen {
					ids[m], bodies[m] = c.GetID(), c.GetBody()
				}
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	p.ids, p.bodies = ids, bodies
	return nil
}

// markerRe finds the hidden marker a bot comment starts with.
var markerRe = regexp.MustCompile(`^<!-- debatebot:[a-z0-9-]+ -->`)

// Upsert writes the comment that starts with marker: edited when it exists, created otherwise.
func (p *Publisher) Upsert(ctx context.Context, marker, body string) error {
	if !strings.HasPrefix(body, marker) {
		body = marker + "\n" + body
	}
	body = render.FitComment(body, render.MaxCommentChars, p.Link)
	if p.ids == nil && p.Known != nil {
		if id, ok := p.Known(marker); ok {
			_, _, err := p.gh.Issues.EditComment(ctx, p.pr.Owner, p.pr.Repo, id, &github.IssueComment{Body: github.String(body)})
			if err == nil {
				return nil
			}
			// Deleted by someone, or not the bot's: fall back to finding it by its marker.
			var er *github.ErrorResponse
			if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusNotFound {
				return fmt.Errorf("failed to edit comment %d on %s: %w", id, p.pr, err)
			}
		}
	}
	if err := p.find(ctx); err != nil {
		return err
	}
	if id, ok := p.ids[marker]; ok {
		if _, _, err := p.gh.Issues.EditComment(ctx, p.pr.Owner, p.pr.Repo, id, &github.IssueComment{Body: github.String(body)}); err != nil {
			return fmt.Errorf("failed to edit comment %d on %s: %w", id, p.pr, err)
		}
		if p.Remember != nil {
			p.Remember(marker, id)
		}
		return nil
	}
	c, _, err := p.gh.Issues.CreateComment(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		// A 5xx may still have created the comment: list again before the next try, so that a
		// retry edits it rather than posting a second one.
		p.ids = nil
		return fmt.Errorf("failed to comment on %s: %w", p.pr, err)
	}
	p.ids[marker] = c.GetID()
	if p.Remember != nil {
		p.Remember(marker, c.GetID())
	}
	return nil
}

// PR is the pull request the publisher writes on.
func (p *Publisher) PR() review.PullRequest { return p.pr }

// CheckRunName is the name of the bot's check run.
const CheckRunName = "debatebot"

// CheckRunID is the check run this publisher concludes (0 before StartCheck).
func (p *Publisher) CheckRunID() int64 { return p.checkRunID }

// UseCheckRun makes the publisher conclude an existing check run (a resumed debate's).
func (p *Publisher) UseCheckRun(id int64) { p.checkRunID = id }

// FailCheck reports on the head commit that the debate could not be held.
func (p *Publisher) FailCheck(ctx context.Context, headSHA string, cause error) error {
	opts := github.CreateCheckRunOptions{
		Name: CheckRunName, HeadSHA: headSHA, Status: github.String("completed"), Conclusion: github.String("failure"),
		Output: &github.CheckRunOutput{Title: github.String("The debate could not be held"), Summary: github.String(scan.Clip(cause.Error(), 1000) + "\n\nComment `/debate` to try again.")},
	}
	if p.checkRunID != 0 {
		if _, _, err := p.gh.Checks.UpdateCheckRun(ctx, p.pr.Owner, p.pr.Repo, p.checkRunID, github.UpdateCheckRunOptions{
			Name: CheckRunName, Status: opts.Status, Conclusion: opts.Conclusion, Output: opts.Output}); err != nil {
			return fmt.Errorf("failed to report the failure on %s: %w", p.pr, err)
		}
		return nil
	}
	if _, _, err := p.gh.Checks.CreateCheckRun(ctx, p.pr.Owner, p.pr.Repo, opts); err != nil {
		return fmt.Errorf("failed to report the failure on %s: %w", p.pr, err)
	}
	return nil
}

// StartCheck creates the in-progress check run on the head commit.
func (p *Publisher) StartCheck(ctx context.Context, headSHA string) error {
	run, _, err := p.gh.Checks.CreateCheckRun(ctx, p.pr.Owner, p.pr.Repo, github.CreateCheckRunOptions{
		Name: CheckRunName, HeadSHA: headSHA, Status: github.String("in_progress"),
		Output: &github.CheckRunOutput{Title: github.String("Debate in progress"), Summary: github.String("The stakeholders are debating this change.")},
	})
	if err != nil {
		return fmt.Errorf("failed to create the check run on %s: %w", p.pr, err)
	}
	p.checkRunID = run.GetID()
	return nil
}

// PausedCheck shows on the debate's check run, still in progress, that the debate waits for a
// human at a checkpoint: the pull request's checks say why nothing concludes.
func (p *Publisher) PausedCheck(ctx context.Context, round int, summary string) error {
	if p.checkRunID == 0 {
		return nil
	}
	if _, _, err := p.gh.Checks.UpdateCheckRun(ctx, p.pr.Owner, p.pr.Repo, p.checkRunID, github.UpdateCheckRunOptions{
		Name: CheckRunName, Status: github.String("in_progress"),
		Output: &github.CheckRunOutput{Title: github.String(fmt.Sprintf("Paused after round %d: waiting for a human", round)), Summary: github.String(scan.Clip(redact.Redact(summary), 60000))},
	}); err != nil {
		return fmt.Errorf("failed to show the pause on the check run of %s: %w", p.pr, err)
	}
	return nil
}

// Conclusion maps a decision to a check-run conclusion.
func Conclusion(d voting.Option) string {
	switch d {
	case voting.Approve:
		return "success"
	case voting.ApproveWithChanges:
		return "neutral"
	}
	return "action_required"
}

// MaxAnnotationsPerRequest is how many annotations GitHub takes in one check-run request.
const MaxAnnotationsPerRequest = 50

// FinishCheck concludes the check run with the decision and a summary, and attaches the
// standing findings as annotations: the first 50 with the conclusion, the rest in further
// updates of 50 each (GitHub appends them). A retry after a failure goes on where it stopped.
func (p *Publisher) FinishCheck(ctx context.Context, t *toulmin.Transcript) error {
	if p.checkRunID == 0 {
		if t.Record.HeadSHA == "" {
			return nil // a design debate: no commit to report on
		}
		// Its creation failed when the debate started: create it now.
		if err := p.StartCheck(ctx, t.Record.HeadSHA); err != nil {
			return err
		}
	}
	summary := render.Summary(t)
	text := ""
	if len(t.Record.RequiredChanges) > 0 {
		var items []string
		for _, r := range t.Record.RequiredChanges {
			items = append(items, render.Inline(r)) // Markdown: untrusted text may not link or embed
		}
		text = "Required changes:\n- " + strings.Join(items, "\n- ")
	}
	output := func(annotations []*github.CheckRunAnnotation) *github.CheckRunOutput {
		return &github.CheckRunOutput{Title: github.String(render.DecisionTitle(t.Record.Decision)), Summary: github.String(summary),
			Text: github.String(render.FitComment(text, render.MaxCommentChars, "")), Annotations: annotations}
	}
	annotations := p.annotationsOf(ctx, t)
	if p.concluded != p.checkRunID {
		first := annotations[:min(MaxAnnotationsPerRequest, len(annotations))]
		opts := github.UpdateCheckRunOptions{
			Name: CheckRunName, Status: github.String("completed"), Conclusion: github.String(Conclusion(t.Record.Decision)),
			Output: output(first),
		}
		if Conclusion(t.Record.Decision) == "action_required" {
			// GitHub requires a details URL (or actions) for action_required.
			opts.DetailsURL = github.String(p.detailsURL())
		}
		if _, _, err := p.gh.Checks.UpdateCheckRun(ctx, p.pr.Owner, p.pr.Repo, p.checkRunID, opts); err != nil {
			return fmt.Errorf("failed to conclude the check run on %s: %w", p.pr, err)
		}
		p.concluded, p.annotated = p.checkRunID, len(first)
	}
	for p.annotated < len(annotations) {
		batch := annotations[p.annotated:min(p.annotated+MaxAnnotationsPerRequest, len(annotations))]
		if _, _, err := p.gh.Checks.UpdateCheckRun(ctx, p.pr.Owner, p.pr.Repo, p.checkRunID, github.UpdateCheckRunOptions{
			Name: CheckRunName, Output: output(batch)}); err != nil {
			return fmt.Errorf("failed to annotate the check run on %s (%d of %d annotations sent): %w", p.pr, p.annotated, len(annotations), err)
		}
		p.annotated += len(batch)
	}
	p.concluded, p.annotated = 0, 0
	return nil
}

func (p *Publisher) detailsURL() string {
	switch {
	case p.Link != "":
		return p.Link
	case p.DetailsURL != "":
		return p.DetailsURL
	}
	return fmt.Sprintf("https://github.com/%s/%s/pull/%d", p.pr.Owner, p.pr.Repo, p.pr.Number)
}

// EscalationLabel is put on a pull request whose debate escalated.
const EscalationLabel = "debate-escalated"

// Label adds a label to the pull request.
func (p *Publisher) Label(ctx context.Context, label string) error {
	if _, _, err := p.gh.Issues.AddLabelsToIssue(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, []string{label}); err != nil {
		return fmt.Errorf("failed to label %s: %w", p.pr, err)
	}
	return nil
}

// Comment posts a plain comment (answers to commands, configuration problems).
func (p *Publisher) Comment(ctx context.Context, body string) error {
	if _, _, err := p.gh.Issues.CreateComment(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, &github.IssueComment{Body: github.String(render.FitComment(body, render.MaxCommentChars, ""))}); err != nil {
		return fmt.Errorf("failed to comment on %s: %w", p.pr, err)
	}
	return nil
}

// NeutralCheck concludes the check run on the head commit as neutral, with a title and summary
// (a change that cannot be debated); it is created when there is none yet.
func (p *Publisher) NeutralCheck(ctx context.Context, headSHA, title, summary string) error {
	return p.concludeCheck(ctx, headSHA, "neutral", title, summary)
}

// ConcludeHuman concludes the check run with a maintainer's decision after /human-review:
// approve is success, request_changes failure. The human decision is final.
func (p *Publisher) ConcludeHuman(ctx context.Context, headSHA, decision, by string, t *toulmin.Transcript) error {
	conclusion := "failure"
	if decision == string(voting.Approve) {
		conclusion = "success"
	}
	who := "a maintainer"
	if by != "" {
		who = "@" + by
	}
	summary := fmt.Sprintf("%s decided **%s** after human review; the debate had decided %s.", who, strings.ReplaceAll(decision, "_", " "), strings.ReplaceAll(string(t.Record.Decision), "_", " "))
	return p.concludeCheck(ctx, headSHA, conclusion, "Human decision: "+strings.ReplaceAll(decision, "_", " "), summary)
}

func (p *Publisher) concludeCheck(ctx context.Context, headSHA, conclusion, title, summary string) error {
	out := &github.CheckRunOutput{Title: github.String(title), Summary: github.String(scan.Clip(summary, 60000))}
	if p.checkRunID != 0 {
		if _, _, err := p.gh.Checks.UpdateCheckRun(ctx, p.pr.Owner, p.pr.Repo, p.checkRunID, github.UpdateCheckRunOptions{
			Name: CheckRunName, Status: github.String("completed"), Conclusion: github.String(conclusion), Output: out}); err != nil {
			return fmt.Errorf("failed to conclude the check run on %s: %w", p.pr, err)
		}
		return nil
	}
	run, _, err := p.gh.Checks.CreateCheckRun(ctx, p.pr.Owner, p.pr.Repo, github.CreateCheckRunOptions{
		Name: CheckRunName, HeadSHA: headSHA, Status: github.String("completed"), Conclusion: github.String(conclusion), Output: out})
	if err != nil {
		return fmt.Errorf("failed to create the check run on %s: %w", p.pr, err)
	}
	p.checkRunID = run.GetID()
	return nil
}

// Unlabel removes a label from the pull request; a label that is not there is no error.
func (p *Publisher) Unlabel(ctx context.Context, label string) error {
	_, err := p.gh.Issues.RemoveLabelForIssue(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, label)
	var er *github.ErrorResponse
	if err != nil && !(errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound) {
		return fmt.Errorf("failed to remove the label %s from %s: %w", label, p.pr, err)
	}
	return nil
}

// DebateOptions are what differs between the App's publication of a debate and the Action's.
type DebateOptions struct {
	// Memo, when set, remembers the check run, its conclusion and the inline review, so that a
	// retried job does not conclude or review twice; the Action, which publishes once, has none.
	Memo Memo
	// NoCheck leaves the check run out: the Action's token may not create one (a pull request
	// from a fork).
	NoCheck bool
	// Review says what the inline review covers (nil: the whole pull request, the review event
	// COMMENT).
	Review *ReviewScope
}

// PublishDebate writes a decided debate where the App and the Action publish it: the summary
// comment, the decision comment, the inline review, then the check run (annotating the findings
// the review did not comment on) and the escalation label; each write is tried three times with
// backoff. p.Link, when set, is the debate's page (the dashboard's, or the Action's run), which
// the summary links to for the whole debate.
func (p *Publisher) PublishDebate(ctx context.Context, t *toulmin.Transcript, opts DebateOptions) error {
	how := opts.Review
	if how == nil {
		how = &ReviewScope{}
	}
	md, err := render.SummaryComment(t, render.SummaryOptions{BlobURL: blobURL(p.DetailsURL, t.Record.HeadSHA), Link: p.Link})
	if err != nil {
		return fmt.Errorf("failed to render the summary of debate %s: %w", t.DebateID, err)
	}
	dc, err := render.DecisionComment(t)
	if err != nil {
		return fmt.Errorf("failed to render the decision of debate %s: %w", t.DebateID, err)
	}
	steps := []func() error{
		func() error { return p.Upsert(ctx, render.TranscriptMarker, md) },
		func() error { return p.Upsert(ctx, render.DecisionMarker, dc) },
	}
	if t.Record.HeadSHA != "" && t.Record.Synthesis == nil {
		// The review comes before the check run, whose annotations are the findings that got no
		// review comment.
		steps = append(steps, func() error { return p.reviewOnce(ctx, t, how, opts.Memo) })
	}
	if !opts.NoCheck {
		steps = append(steps, func() error { return p.concludeOnce(ctx, t, opts.Memo) })
	}
	if t.Record.Decision == voting.Escalate {
		steps = append(steps, func() error { return p.Label(ctx, EscalationLabel) })
	}
	for _, step := range steps {
		if err := Retry(ctx, 3, step); err != nil {
			return fmt.Errorf("failed to publish debate %s: %w", t.DebateID, err)
		}
	}
	zerolog.Ctx(ctx).Info().Str("decision", string(t.Record.Decision)).Msg("Published the debate.")
	return nil
}

// concludeOnce concludes the debate's check run. A retry of the job (a later step failed)
// publishes the same stored transcript (the same end): it does not conclude the check run again,
// as GitHub would show its annotations twice.
func (p *Publisher) concludeOnce(ctx context.Context, t *toulmin.Transcript, memo Memo) error {
	concluded := fmt.Sprintf("concluded:%s@%d", t.DebateID, t.EndedAt.UnixNano())
	if memo == nil {
		return p.FinishCheck(ctx, t)
	}
	if id, err := memo.Publication(ctx, p.PR().String(), concluded); err == nil && id != 0 && (p.CheckRunID() == 0 || id == p.CheckRunID()) {
		return nil
	}
	had := p.CheckRunID()
	if err := p.FinishCheck(ctx, t); err != nil {
		return err
	}
	if id := p.CheckRunID(); id != had {
		// Created now, as its creation failed when the debate started.
		if err := memo.SaveCheckRun(ctx, t.DebateID, id); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not remember the check run.")
		}
	}
	if id := p.CheckRunID(); id != 0 {
		if err := memo.SavePublication(ctx, p.PR().String(), concluded, id); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not remember that the check run was concluded.")
		}
	}
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
func (p *Publisher) ShowProgress(ctx context.Context, failed func(error)) func(toulmin.Event) {
	return func(e toulmin.Event) {
		if e.Kind != toulmin.EventPhaseStarted || e.Phase.Phase == toulmin.PhaseDecision {
			return
		}
		if err := p.Upsert(ctx, render.TranscriptMarker, render.ProgressComment(e.Transcript, e.Phase.Phase)); err != nil {
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
func (p *Publisher) reviewOnce(ctx context.Context, t *toulmin.Transcript, how *ReviewScope, memo Memo) error {
	key := fmt.Sprintf("reviewed:%s@%d", t.DebateID, t.EndedAt.UnixNano())
	if memo != nil {
		if id, err := memo.Publication(ctx, p.PR().String(), key); err == nil && id != 0 {
			return nil
		}
	}
	res, err := p.Review(ctx, t, ReviewOptions{Event: how.Event, Change: how.Change, Since: how.Since, Link: p.Link})
	if err != nil {
		return err
	}
	zerolog.Ctx(ctx).Info().Int("posted", res.Posted).Int("repeated", res.Repeated).Int("in_body", res.Body).Int("moved", res.Moved).
		Int("resolved", res.Resolved).Msg("Reviewed the pull request's lines.")
	if memo != nil {
		if err := memo.SavePublication(ctx, p.PR().String(), key, 1); err != nil {
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

// Memo keeps, outside GitHub, what a publication did (the App's store): the check run it
// created and that it concluded it, and that the inline review was posted.
type Memo interface {
	Publication(ctx context.Context, pr, marker string) (int64, error)
	SavePublication(ctx context.Context, pr, marker string, id int64) error
	SaveCheckRun(ctx context.Context, debateID string, id int64) error
}

// Review posts the debate's inline review: one pull request review whose comments are the
// findings of substance on their lines, never one already on a line of the pull request (found
// by its marker), and whose body lists the findings without a line. A thread of the bot whose
// finding the debated change resolved is answered "resolved in `sha7`", once. A comment GitHub
// refuses (a line outside the diff) moves to the body; the review is never lost for it.
func (p *Publisher) Review(ctx context.Context, t *toulmin.Transcript, opts ReviewOptions) (ReviewResult, error) {
	var res ReviewResult
	if t.Record.HeadSHA == "" || t.Record.Synthesis != nil {
		return res, nil // a design debate: no lines to comment on
	}
	if t.Record.Decision != voting.RequestChanges {
		// A request for changes of an earlier debate would keep blocking the merge after a
		// debate that no longer asks for them.
		if err := p.dismissBlocking(ctx, t); err != nil {
			return res, err
		}
	}
	onLines, noLine := render.InlineFindings(t)
	threads, answered, err := p.reviewThreads(ctx)
	if err != nil {
		return res, err
	}
	p.inlined = map[string]bool{}
	for key := range threads {
		p.inlined[key] = true
	}
	fresh, current := newFindings(onLines, noLine, threads, &res)
	if opts.Change != nil {
		n, err := p.answerResolved(ctx, t, opts, threads, answered, current)
		res.Resolved = n
		if err != nil {
			return res, err
		}
	}
	reviewed := len(threads) > 0
	if len(fresh) == 0 && (reviewed || len(noLine) == 0) {
		return res, nil // nothing new to say on the lines; the summary comment has the rest
	}
	if opts.Change != nil && opts.Since == "" {
		// The debated change is the pull request's diff: a line outside its hunks would make
		// GitHub refuse the whole review (422), so such findings go to the body at once.
		fresh, noLine = byHunks(opts.Change, fresh, noLine)
		if len(fresh) == 0 && (reviewed || len(noLine) == 0) {
			return res, nil
		}
	}
	event := ReviewEventComment
	if opts.Event == ReviewEventRequestChanges && t.Record.Decision == voting.RequestChanges {
		event = ReviewEventRequestChanges
	}
	return p.postReview(ctx, t, event, fresh, noLine, opts.Link, res)
}

// postReview posts the review: fresh on their lines, noLine in its body. When GitHub refuses it
// (422) for a line outside the diff, the findings off the diff's lines move to the body and it
// is posted again.
func (p *Publisher) postReview(ctx context.Context, t *toulmin.Transcript, event string, fresh, noLine []render.InlineFinding, link string, res ReviewResult) (ReviewResult, error) {
	for attempt := 0; ; attempt++ {
		req := &github.PullRequestReviewRequest{CommitID: github.String(t.Record.HeadSHA), Event: github.String(event),
			Body: github.String(render.ReviewBody(t, fresh, noLine, link))}
		// The findings on one line are one comment.
		for _, c := range render.ByLine(fresh) {
			dc := &github.DraftReviewComment{Path: github.String(c.Path), Line: github.Int(c.Line),
				Side: github.String("RIGHT"), Body: github.String(c.Body())}
			if from, to, ok := c.SuggestedLines(); ok {
				dc.Line = github.Int(to) // the suggestion replaces from..to, which covers the findings' line
				if from < to {
					dc.StartLine, dc.StartSide = github.Int(from), github.String("RIGHT") // a multi-line suggestion
				}
			}
			req.Comments = append(req.Comments, dc)
		}
		_, _, err := p.gh.PullRequests.CreateReview(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, req)
		if err == nil {
			res.Posted, res.Body = len(fresh), len(noLine)
			for _, f := range fresh {
				p.inlined[f.Key] = true
			}
			return res, nil
		}
		var er *github.ErrorResponse
		if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusUnprocessableEntity || len(fresh) == 0 || attempt == 2 {
			return res, fmt.Errorf("failed to post the review of %s: %w", p.pr, err)
		}
		// GitHub refuses the whole review for one comment outside the diff and does not say
		// which: the lines of the diff tell; when they cannot be read, or GitHub refuses again,
		// every comment goes to the body.
		zerolog.Ctx(ctx).Warn().Err(err).Msg("GitHub refused a review comment on a line; moving what is outside the diff to the review's body.")
		keep := fresh[:0:0]
		if diff, lerr := review.ReadFiles(ctx, review.NewGitHub(p.gh), p.pr, ""); lerr == nil && attempt == 0 {
			keep, noLine = byHunks(diff, fresh, noLine)
		} else {
			noLine = append(noLine, fresh...)
		}
		res.Moved += len(fresh) - len(keep)
		fresh = keep
	}
}

// reviewThreads lists the review comments of the pull request, page by page: the bot's threads by
// the key of their finding, and the threads it already answered as resolved or as dismissed.
func (p *Publisher) reviewThreads(ctx context.Context) (map[string]thread, map[int64]bool, error) {
	threads, answered := map[string]thread{}, map[int64]bool{}
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := p.gh.PullRequests.ListComments(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("failed to list the review comments of %s: %w", p.pr, err)
		}
		for _, c := range comments {
			login := c.GetUser().GetLogin()
			if !strings.HasSuffix(login, "[bot]") || (p.Bot != "" && login != p.Bot) {
				continue // anyone can write a marker into a comment
			}
			if c.GetInReplyTo() != 0 {
				if resolvedRe.MatchString(c.GetBody()) || strings.Contains(c.GetBody(), render.DismissedMarker) {
					answered[c.GetInReplyTo()] = true
				}
				continue
			}
			// A comment carries the marker of each finding on its line.
			for _, m := range findingMarkerRe.FindAllStringSubmatch(c.GetBody(), -1) {
				if _, dup := threads[m[1]]; !dup {
					line := c.GetOriginalLine()
					if line == 0 {
						line = c.GetLine()
					}
					threads[m[1]] = thread{id: c.GetID(), path: c.GetPath(), line: line, commitID: c.GetOriginalCommitID()}
				}
			}
		}
		if resp.NextPage == 0 {
			return threads, answered, nil
		}
		opts.Page = resp.NextPage
	}
}

// answerResolved answers the bot's threads whose finding the debated change resolved. A debate of
// the whole pull request resolved every finding it no longer finds; a debate of what changed since
// an earlier head resolved those it no longer finds on lines it changed or removed (the others it
// did not look at again).
func (p *Publisher) answerResolved(ctx context.Context, t *toulmin.Transcript, opts ReviewOptions, threads map[string]thread, answered map[int64]bool, current map[string]bool) (int, error) {
	n := 0
	for key, th := range threads {
		if current[key] || answered[th.id] {
			continue
		}
		if opts.Since != "" {
			f := opts.Change.File(th.path)
			if f == nil || th.commitID != opts.Since || !(f.Status == change.StatusDeleted || f.IsRemoved(th.line)) {
				continue
			}
		}
		body := fmt.Sprintf("Resolved in `%s`: the finding is no longer there.\n\n<!-- debatebot:resolved %s -->", render.ShortSHA(t.Record.HeadSHA), key)
		u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", url.PathEscape(p.pr.Owner), url.PathEscape(p.pr.Repo), p.pr.Number, th.id)
		req, err := p.gh.NewRequest(http.MethodPost, u, map[string]string{"body": redact.Redact(body)})
		if err != nil {
			return n, fmt.Errorf("failed to answer review comment %d on %s: %w", th.id, p.pr, err)
		}
		if _, err := p.gh.Do(ctx, req, nil); err != nil {
			var er *github.ErrorResponse
			if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
				continue // deleted since it was listed
			}
			return n, fmt.Errorf("failed to answer review comment %d on %s: %w", th.id, p.pr, err)
		}
		answered[th.id] = true
		n++
	}
	return n, nil
}

// dismissBlocking dismisses the bot's reviews that request changes, once a debate of the pull
// request no longer does: a maintainer should not have to clear a block the bot itself lifted.
func (p *Publisher) dismissBlocking(ctx context.Context, t *toulmin.Transcript) error {
	opts := &github.ListOptions{PerPage: 100}
	var blocking []*github.PullRequestReview
	for {
		reviews, resp, err := p.gh.PullRequests.ListReviews(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, opts)
		if err != nil {
			return fmt.Errorf("failed to list the reviews of %s: %w", p.pr, err)
		}
		for _, r := range reviews {
			login := r.GetUser().GetLogin()
			if r.GetState() == "CHANGES_REQUESTED" && strings.HasSuffix(login, "[bot]") && (p.Bot == "" || login == p.Bot) {
				blocking = append(blocking, r)
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	for _, r := range blocking {
		msg := fmt.Sprintf("The debate of `%s` decided: %s; this request for changes no longer stands.", render.ShortSHA(t.Record.HeadSHA), render.DecisionTitle(t.Record.Decision))
		if _, _, err := p.gh.PullRequests.DismissReview(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, r.GetID(), &github.PullRequestReviewDismissalRequest{Message: github.String(msg)}); err != nil {
			return fmt.Errorf("failed to dismiss review %d of %s: %w", r.GetID(), p.pr, err)
		}
		zerolog.Ctx(ctx).Info().Int64("review_id", r.GetID()).Msg("Dismissed an earlier request for changes the debate no longer makes.")
	}
	return nil
}
