package handlers

import (
	"context"
	"fmt"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/debatebot/debatebot/review"
)

// pullRequestPayload is what the handler reads of a pull_request delivery: the fields it routes on.
type pullRequestPayload struct {
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
		return h.Queue.Deliver(logContext(ctx, e.Installation.ID, pr), &Job{
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
	return h.Queue.Deliver(logContext(ctx, e.Installation.ID, pr), &Job{
		DeliveryID: deliveryID, Trigger: "pull_request." + e.Action, Kind: KindReview,
		Installation: e.Installation.ID, PR: pr, HeadSHA: e.PullRequest.Head.SHA, Draft: e.PullRequest.Draft,
	})
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
			return b.Queue.Deliver(logContext(ctx, installation, pr), &Job{DeliveryID: "push/" + deliveryID, Trigger: "pull_request.synchronize", Kind: KindPush,
				Installation: installation, PR: pr, HeadSHA: head, Before: before})
		}
	}
	return nil
}

// validate refuses a delivery without the fields the job is routed by.
func (p *pullRequestPayload) validate() error {
	return validateRouted(p.Repository, p.Installation.ID, p.PullRequest.Number)
}
