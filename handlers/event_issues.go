package handlers

import (
	"context"

	"github.com/palantir/go-githubapp/githubapp"
)

// issuesPayload is what the handler reads of an issues delivery: the fields it routes on.
type issuesPayload struct {
	Action       string           `json:"action"`
	Label        slimLabel        `json:"label"`
	Sender       slimUser         `json:"sender"`
	Installation slimInstallation `json:"installation"`
	Repository   slimRepo         `json:"repository"`
	Issue        slimIssue        `json:"issue"`
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
	return h.Queue.Deliver(logContext(ctx, job.Installation, job.PR), job)
}

// validate refuses a delivery without the fields the job is routed by.
func (p *issuesPayload) validate() error {
	return validateRouted(p.Repository, p.Installation.ID, p.Issue.Number)
}
