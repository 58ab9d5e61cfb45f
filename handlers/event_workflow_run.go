package handlers

import (
	"context"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
)

// workflowRunPayload is what the handler reads of a workflow_run delivery: the fields it routes on.
type workflowRunPayload struct {
	Action       string           `json:"action"`
	Installation slimInstallation `json:"installation"`
	Repository   slimRepo         `json:"repository"`
	WorkflowRun  struct {
		ID           int64           `json:"id"`
		Name         string          `json:"name"`
		HeadSHA      string          `json:"head_sha"`
		Conclusion   string          `json:"conclusion"`
		RunAttempt   int             `json:"run_attempt"`
		UpdatedAt    time.Time       `json:"updated_at"`
		PullRequests []ciPullRequest `json:"pull_requests"`
	} `json:"workflow_run"`
}

// validate refuses a delivery without the fields the job is routed by.
func (p *workflowRunPayload) validate() error {
	return validateCI(p.Repository, p.Installation.ID, p.WorkflowRun.ID, p.WorkflowRun.HeadSHA)
}

// WorkflowRun handles workflow_run deliveries: a completed run that failed or succeeded on a pull
// request's head is a KindCI job.
type WorkflowRun struct{ Base }

var _ githubapp.EventHandler = &WorkflowRun{}

// Handles implements githubapp.EventHandler.
func (h *WorkflowRun) Handles() []string { return []string{"workflow_run"} }

// Handle implements githubapp.EventHandler.
func (h *WorkflowRun) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e workflowRunPayload
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	run := &CIRun{Source: "workflow_run", ID: e.WorkflowRun.ID, Attempt: max(e.WorkflowRun.RunAttempt, 1), Name: e.WorkflowRun.Name,
		Conclusion: e.WorkflowRun.Conclusion, At: e.WorkflowRun.UpdatedAt}
	if e.Action != "completed" || (!run.Failed() && !run.Passed()) {
		return nil
	}
	pr := prOf(e.Repository, e.WorkflowRun.HeadSHA, e.WorkflowRun.PullRequests)
	return h.Queue.Deliver(logContext(ctx, e.Installation.ID, pr), &Job{
		DeliveryID: deliveryID, Trigger: "workflow_run.completed", Kind: KindCI, Installation: e.Installation.ID,
		PR: pr, HeadSHA: e.WorkflowRun.HeadSHA, CI: run,
	})
}
