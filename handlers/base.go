package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
)

// Base is what every event handler shares.
type Base struct {
	Queue *Queue
	// Slug is the App's slug, read once at start: its own comments come from "<slug>[bot]".
	Slug    string
	Metrics *Metrics
	// AllowedBots may trigger debates although they are bots.
	AllowedBots []string
}

// fromBot reports whether the sender is a bot whose events are ignored: this App always (it
// cannot loop on its own comments), other bots unless allowed.
func (b *Base) fromBot(u *github.User) bool {
	login := u.GetLogin()
	if login == b.Slug+"[bot]" {
		return true
	}
	if u.GetType() != "Bot" && !strings.HasSuffix(login, "[bot]") {
		return false
	}
	return !slices.Contains(b.AllowedBots, login)
}

// enqueue hands a job to the queue and logs what happened.
func (b *Base) enqueue(ctx context.Context, job *Job) error {
	log := zerolog.Ctx(ctx).With().Str("repository", job.PR.Repository()).Int("pr_number", job.PR.Number).Str("trigger", job.Trigger).Logger()
	accepted, reason, err := b.Queue.Enqueue(job)
	if err != nil {
		b.Metrics.webhookOutcome(job.Trigger, "queue_full")
		return fmt.Errorf("failed to enqueue a debate for %s: %w", job.PR, err)
	}
	outcome := "enqueued"
	if !accepted {
		outcome = "deduplicated"
	}
	b.Metrics.webhookOutcome(job.Trigger, outcome)
	log.Info().Bool("accepted", accepted).Str("reason", reason).Msg("Handled a debate trigger.")
	return nil
}

func decode(payload []byte, v any, event string) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("failed to parse %s payload: %w", event, err)
	}
	return nil
}

func prOf(repo *github.Repository, number int) review.PullRequest {
	return review.PullRequest{Owner: repo.GetOwner().GetLogin(), Repo: repo.GetName(), Number: number}
}

// PullRequest handles pull_request events.
type PullRequest struct{ Base }

var _ githubapp.EventHandler = &PullRequest{}

// Handles implements githubapp.EventHandler.
func (h *PullRequest) Handles() []string { return []string{"pull_request"} }

// Handle implements githubapp.EventHandler.
func (h *PullRequest) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e github.PullRequestEvent
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	switch e.GetAction() {
	case "opened", "synchronize", "reopened", "ready_for_review":
	case "labeled":
		if e.GetLabel().GetName() != "needs-debate" {
			return nil
		}
	default:
		return nil
	}
	if h.fromBot(e.GetSender()) {
		return nil
	}
	pr := e.GetPullRequest()
	ctx, _ = githubapp.PreparePRContext(ctx, e.GetInstallation().GetID(), e.GetRepo(), pr.GetNumber())
	return h.enqueue(ctx, &Job{
		DeliveryID: deliveryID, Trigger: "pull_request." + e.GetAction(), Kind: KindReview,
		Installation: e.GetInstallation().GetID(), PR: prOf(e.GetRepo(), pr.GetNumber()),
		HeadSHA: pr.GetHead().GetSHA(), Draft: pr.GetDraft(),
	})
}

// IssueComment handles /debate and /human-review comments.
type IssueComment struct{ Base }

var _ githubapp.EventHandler = &IssueComment{}

// Handles implements githubapp.EventHandler.
func (h *IssueComment) Handles() []string { return []string{"issue_comment"} }

// ParseCommand reads "/debate [protocol]" or "/human-review" from the first line of a comment.
func ParseCommand(body string) (cmd, arg string, ok bool) {
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(body), "\n", 2)[0])
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return "", "", false
	}
	switch fields[0] {
	case "/debate", "/human-review":
		if len(fields) > 1 {
			arg = fields[1]
		}
		return fields[0], arg, true
	}
	return "", "", false
}

// Handle implements githubapp.EventHandler.
func (h *IssueComment) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e github.IssueCommentEvent
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	if e.GetAction() != "created" || h.fromBot(e.GetSender()) {
		return nil
	}
	cmd, arg, ok := ParseCommand(e.GetComment().GetBody())
	if !ok {
		return nil
	}
	issue := e.GetIssue()
	job := &Job{
		DeliveryID: deliveryID, Trigger: "issue_comment.created", Installation: e.GetInstallation().GetID(),
		PR: prOf(e.GetRepo(), issue.GetNumber()), Requester: e.GetSender().GetLogin(), CommentID: e.GetComment().GetID(),
		Kind: KindReview, Protocol: arg,
	}
	switch {
	case cmd == "/human-review":
		job.Kind, job.Protocol = KindHumanReview, ""
	case !issue.IsPullRequest():
		job.Kind, job.Title, job.Body = KindDesign, issue.GetTitle(), issue.GetBody()
	}
	ctx, _ = githubapp.PreparePRContext(ctx, job.Installation, e.GetRepo(), issue.GetNumber())
	return h.enqueue(ctx, job)
}

// Issues handles issues labeled needs-debate: a design debate over the issue's title and body.
type Issues struct{ Base }

var _ githubapp.EventHandler = &Issues{}

// Handles implements githubapp.EventHandler.
func (h *Issues) Handles() []string { return []string{"issues"} }

// Handle implements githubapp.EventHandler.
func (h *Issues) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e github.IssuesEvent
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	if e.GetAction() != "labeled" || e.GetLabel().GetName() != "needs-debate" || h.fromBot(e.GetSender()) {
		return nil
	}
	issue := e.GetIssue()
	job := &Job{
		DeliveryID: deliveryID, Trigger: "issues.labeled", Kind: KindDesign, Installation: e.GetInstallation().GetID(),
		PR: prOf(e.GetRepo(), issue.GetNumber()), Title: issue.GetTitle(), Body: issue.GetBody(),
	}
	if issue.IsPullRequest() {
		job.Kind = KindReview
	}
	ctx, _ = githubapp.PreparePRContext(ctx, job.Installation, e.GetRepo(), issue.GetNumber())
	return h.enqueue(ctx, job)
}
