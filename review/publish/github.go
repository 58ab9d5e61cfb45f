package publish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/evidence/rules"
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

// annotationsOf are the annotations of the debate's standing findings that have no review
// comment on their line, so that GitHub shows each finding once in a pull request's files. When
// this publisher posted no review (a retried publication whose review was posted before), the
// pull request's review comments tell which findings have one.
func (p *Publisher) annotationsOf(ctx context.Context, t *toulmin.Transcript) []*github.CheckRunAnnotation {
	if p.inlined == nil && t.Record.HeadSHA != "" && t.Record.Synthesis == nil {
		threads, _, err := p.reviewThreads(ctx)
		if err != nil {
			// Not knowing which findings have a comment is no reason to leave the check run
			// unconcluded: every finding is annotated, as none would be lost.
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not list the review comments; annotating every standing finding.")
		}
		p.inlined = map[string]bool{}
		for key := range threads {
			p.inlined[key] = true
		}
	}
	standing, keys := render.StandingFindings(t), render.FindingKeys(t)
	var left []toulmin.Evidence
	for i, e := range standing {
		if !p.inlined[keys[i]] {
			left = append(left, e)
		}
	}
	return Annotations(left)
}

// Annotations turns findings into check-run annotations, in their order: each on its file and
// line (a finding about a whole file on its first line), failure for high and critical findings,
// warning for medium, notice below, titled with the rule and saying what to do. Findings that
// name no file (the title, the description, commit messages) cannot be annotated; the review's
// body and the debate's page carry them.
func Annotations(findings []toulmin.Evidence) []*github.CheckRunAnnotation {
	var out []*github.CheckRunAnnotation
	for _, e := range findings {
		if e.Path == "" {
			continue
		}
		line := max(e.Line, 1)
		rule := rules.Rules[e.Rule]
		title := e.Rule
		if rule.Title != "" {
			title = rule.Title + " (" + e.Rule + ")"
		}
		msg := e.Message
		if rule.Fix != "" {
			msg += "\n\nFix: " + rule.Fix
		}
		out = append(out, &github.CheckRunAnnotation{
			Path: github.String(e.Path), StartLine: github.Int(line), EndLine: github.Int(line),
			AnnotationLevel: github.String(render.AnnotationLevel(e.Severity)),
			Message:         github.String(scan.Clip(msg, 4000)), Title: github.String(scan.Clip(title, 255)),
		})
	}
	return out
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

// CreateIssue opens an issue in the pull request's repository (a security alert on the default
// branch, debated there) and returns its number.
func (p *Publisher) CreateIssue(ctx context.Context, title, body string) (int, error) {
	is, _, err := p.gh.Issues.Create(ctx, p.pr.Owner, p.pr.Repo, &github.IssueRequest{Title: github.String(title), Body: github.String(render.FitComment(body, render.MaxCommentChars, ""))})
	if err != nil {
		return 0, fmt.Errorf("failed to open an issue in %s: %w", p.pr.Repository(), err)
	}
	return is.GetNumber(), nil
}

// CloseIssue closes the publisher's issue with a state reason ("completed" or "not_planned").
func (p *Publisher) CloseIssue(ctx context.Context, reason string) error {
	_, _, err := p.gh.Issues.Edit(ctx, p.pr.Owner, p.pr.Repo, p.pr.Number, &github.IssueRequest{State: github.String("closed"), StateReason: github.String(reason)})
	if err != nil {
		return fmt.Errorf("failed to close issue %s as %s: %w", p.pr, reason, err)
	}
	return nil
}
