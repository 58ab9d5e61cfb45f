package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/toulmin"
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
func (b *Base) fromBot(u slimUser) bool {
	login := u.Login
	if login == b.Slug+"[bot]" {
		return true
	}
	if u.Type != "Bot" && !strings.HasSuffix(login, "[bot]") {
		return false
	}
	return !slices.Contains(b.AllowedBots, login)
}

// enqueue hands a job to the queue and logs what happened.
func (b *Base) enqueue(ctx context.Context, job *Job) error {
	log := zerolog.Ctx(ctx).With().Str("repository", job.PR.Repository()).Int("pr_number", job.PR.Number).Str("trigger", job.Trigger).Logger()
	accepted, reason, err := b.Queue.Enqueue(ctx, job)
	if err != nil {
		b.Metrics.webhookOutcome(job.Trigger, "store_unavailable")
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
		return badDelivery(fmt.Errorf("failed to parse %s payload: %w", event, err))
	}
	if p, ok := v.(interface{ validate() error }); ok {
		if err := p.validate(); err != nil {
			return badDelivery(fmt.Errorf("%s payload: %w", event, err))
		}
	}
	return nil
}

// The handlers decode only the fields they route on: a pull_request payload is 20-30 KB, and
// decoding all of it into go-github's event type is most of the time a delivery takes to
// acknowledge. The runner reads the rest from the API.
type (
	slimUser struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	}
	slimRepo struct {
		Name  string `json:"name"`
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
	}
	slimInstallation struct {
		ID int64 `json:"id"`
	}
	slimLabel struct {
		Name string `json:"name"`
	}
	slimIssue struct {
		Number      int             `json:"number"`
		Title       string          `json:"title"`
		Body        string          `json:"body"`
		PullRequest json.RawMessage `json:"pull_request"`
	}
	pullRequestPayload struct {
		Action       string           `json:"action"`
		Label        slimLabel        `json:"label"`
		Sender       slimUser         `json:"sender"`
		Installation slimInstallation `json:"installation"`
		Repository   slimRepo         `json:"repository"`
		// Before is the head a synchronize moved from.
		Before      string `json:"before"`
		PullRequest struct {
			Number int  `json:"number"`
			Draft  bool `json:"draft"`
			Merged bool `json:"merged"`
			Head   struct {
				SHA string `json:"sha"`
			} `json:"head"`
		} `json:"pull_request"`
	}
	issueCommentPayload struct {
		Action       string           `json:"action"`
		Sender       slimUser         `json:"sender"`
		Installation slimInstallation `json:"installation"`
		Repository   slimRepo         `json:"repository"`
		Issue        slimIssue        `json:"issue"`
		Comment      struct {
			ID        int64  `json:"id"`
			Body      string `json:"body"`
			UpdatedAt string `json:"updated_at"`
		} `json:"comment"`
		Changes struct {
			Body struct {
				From *string `json:"from"`
			} `json:"body"`
		} `json:"changes"`
	}
	issuesPayload struct {
		Action       string           `json:"action"`
		Label        slimLabel        `json:"label"`
		Sender       slimUser         `json:"sender"`
		Installation slimInstallation `json:"installation"`
		Repository   slimRepo         `json:"repository"`
		Issue        slimIssue        `json:"issue"`
	}
)

func (r slimRepo) pr(number int) review.PullRequest {
	return review.PullRequest{Owner: r.Owner.Login, Repo: r.Name, Number: number}
}

func (i slimIssue) isPullRequest() bool {
	return len(i.PullRequest) > 0 && string(i.PullRequest) != "null"
}

// logContext adds what go-githubapp's PreparePRContext would, from the slim payload.
func logContext(ctx context.Context, installation int64, pr review.PullRequest) context.Context {
	l := zerolog.Ctx(ctx).With().Int64(githubapp.LogKeyInstallationID, installation).
		Str(githubapp.LogKeyRepositoryOwner, pr.Owner).Str(githubapp.LogKeyRepositoryName, pr.Repo).
		Int(githubapp.LogKeyPRNum, pr.Number).Logger()
	return l.WithContext(ctx)
}

// PullRequest handles pull_request events.
type PullRequest struct{ Base }

var _ githubapp.EventHandler = &PullRequest{}

// Handles implements githubapp.EventHandler.
func (h *PullRequest) Handles() []string { return []string{"pull_request"} }

// Handle implements githubapp.EventHandler.
func (h *PullRequest) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e pullRequestPayload
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	switch e.Action {
	case "opened", "synchronize", "reopened", "ready_for_review":
	case "closed":
		// Merging or closing is a human decision: it teaches trust after /human-review and
		// counts for the reversal rate.
		decision := "request_changes"
		if e.PullRequest.Merged {
			decision = "approve"
		}
		pr := e.Repository.pr(e.PullRequest.Number)
		return h.enqueue(logContext(ctx, e.Installation.ID, pr), &Job{
			DeliveryID: deliveryID, Trigger: "pull_request.closed", Kind: KindHumanDecision,
			Installation: e.Installation.ID, PR: pr, Protocol: decision,
		})
	case "labeled":
		if e.Label.Name != "needs-debate" {
			return nil
		}
	default:
		return nil
	}
	if h.fromBot(e.Sender) {
		return nil
	}
	pr := e.Repository.pr(e.PullRequest.Number)
	if e.Action == "synchronize" {
		if err := h.failuresPushed(ctx, deliveryID, e.Installation.ID, pr, e.Before, e.PullRequest.Head.SHA); err != nil {
			return err
		}
	}
	return h.enqueue(logContext(ctx, e.Installation.ID, pr), &Job{
		DeliveryID: deliveryID, Trigger: "pull_request." + e.Action, Kind: KindReview,
		Installation: e.Installation.ID, PR: pr, HeadSHA: e.PullRequest.Head.SHA, Draft: e.PullRequest.Draft,
	})
}

// IssueComment handles /debate and /human-review comments.
type IssueComment struct{ Base }

var _ githubapp.EventHandler = &IssueComment{}

// Handles implements githubapp.EventHandler.
func (h *IssueComment) Handles() []string { return []string{"issue_comment"} }

// Handle implements githubapp.EventHandler.
func (h *IssueComment) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e issueCommentPayload
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	if (e.Action != "created" && e.Action != "edited") || h.fromBot(e.Sender) {
		return nil
	}
	cmd, arg, ok := pull.ParseCommand(e.Comment.Body)
	if !ok {
		return nil
	}
	if e.Action == "edited" {
		// An edit runs the command only when it changed the command itself: fixing a typo
		// below "/debate" starts nothing.
		if e.Changes.Body.From == nil {
			return nil
		}
		if pc, pa, pok := pull.ParseCommand(*e.Changes.Body.From); pok && pc == cmd && pa == arg {
			return nil
		}
	}
	job := &Job{
		DeliveryID: deliveryID, Trigger: "issue_comment." + e.Action, Installation: e.Installation.ID,
		PR: e.Repository.pr(e.Issue.Number), Requester: e.Sender.Login, CommentID: e.Comment.ID,
		CommentVersion: e.Comment.UpdatedAt, Kind: KindReview, Protocol: arg,
	}
	switch {
	case cmd == "/help" || cmd == "/debate" && arg == "help":
		job.Kind, job.Protocol = KindHelp, ""
	case cmd == "/debate" && arg == "plan":
		job.Kind, job.Protocol, job.Title, job.Body = KindPlan, "", e.Issue.Title, planText(e.Comment.Body)
	case cmd == "/debate" && arg == "fresh":
		job.Kind, job.Protocol = KindFresh, ""
	case cmd == "/debate" && toulmin.CheckpointAction(arg).Valid():
		job.Kind, job.Body = KindCheckpoint, guidance(e.Comment.Body)
	case cmd == "/human-review" && (arg == "approve" || arg == "request-changes"):
		job.Kind, job.Protocol = KindHumanDecision, strings.ReplaceAll(arg, "-", "_")
	case cmd == "/human-review":
		job.Kind, job.Protocol = KindHumanReview, ""
	case !e.Issue.isPullRequest():
		job.Kind, job.Title, job.Body = KindDesign, e.Issue.Title, e.Issue.Body
	}
	return h.enqueue(logContext(ctx, job.Installation, job.PR), job)
}

// guidance is what follows "/debate guide" in a comment, further lines included.
func guidance(body string) string {
	_, rest, _ := strings.Cut(strings.TrimSpace(body), "guide")
	return strings.TrimSpace(rest)
}

// Issues handles issues labeled needs-debate: a design debate over the issue's title and body.
type Issues struct{ Base }

var _ githubapp.EventHandler = &Issues{}

// Handles implements githubapp.EventHandler.
func (h *Issues) Handles() []string { return []string{"issues"} }

// Handle implements githubapp.EventHandler.
func (h *Issues) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e issuesPayload
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	if e.Action != "labeled" || e.Label.Name != "needs-debate" || h.fromBot(e.Sender) {
		return nil
	}
	job := &Job{
		DeliveryID: deliveryID, Trigger: "issues.labeled", Kind: KindDesign, Installation: e.Installation.ID,
		PR: e.Repository.pr(e.Issue.Number), Title: e.Issue.Title, Body: e.Issue.Body,
	}
	if e.Issue.isPullRequest() {
		job.Kind = KindReview
	}
	return h.enqueue(logContext(ctx, job.Installation, job.PR), job)
}

// failuresPushed enqueues, for a push to a pull request some of whose CI tasks are counting
// failures, the job that resets them if the push changed CI's environment. Most pushes have no
// such task: one read of the store, and no job.
func (b *Base) failuresPushed(ctx context.Context, deliveryID string, installation int64, pr review.PullRequest, before, head string) error {
	if before == "" || b.Queue == nil || b.Queue.store == nil {
		return nil
	}
	tasks, err := b.Queue.store.FailureTasks(ctx, pr.String())
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	for _, t := range tasks {
		if t.PushCanReset() {
			return b.enqueue(logContext(ctx, installation, pr), &Job{DeliveryID: "push/" + deliveryID, Trigger: "pull_request.synchronize", Kind: KindPush,
				Installation: installation, PR: pr, HeadSHA: head, Before: before})
		}
	}
	return nil
}
