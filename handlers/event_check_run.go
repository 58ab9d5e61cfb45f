package handlers

import (
	"context"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
)

// checkRunPayload is what the handler reads of a check_run delivery: the fields it routes on.
type checkRunPayload struct {
	Action       string           `json:"action"`
	Installation slimInstallation `json:"installation"`
	Repository   slimRepo         `json:"repository"`
	CheckRun     struct {
		ID          int64     `json:"id"`
		Name        string    `json:"name"`
		HeadSHA     string    `json:"head_sha"`
		Conclusion  string    `json:"conclusion"`
		CompletedAt time.Time `json:"completed_at"`
		App         struct {
			Slug string `json:"slug"`
		} `json:"app"`
		Output struct {
			Title   string `json:"title"`
			Summary string `json:"summary"`
		} `json:"output"`
		PullRequests []ciPullRequest `json:"pull_requests"`
	} `json:"check_run"`
}

// validate refuses a delivery without the fields the job is routed by.
func (p *checkRunPayload) validate() error {
	return validateCI(p.Repository, p.Installation.ID, p.CheckRun.ID, p.CheckRun.HeadSHA)
}

// CheckRun handles check_run deliveries of other Apps' checks. GitHub Actions' own check runs
// (one per job) are left to workflow_run, which sees the same failure once per workflow, and this
// App's own check run is the debate's, not CI.
type CheckRun struct{ Base }

var _ githubapp.EventHandler = &CheckRun{}

// Handles implements githubapp.EventHandler.
func (h *CheckRun) Handles() []string { return []string{"check_run"} }

// ActionsApp is the slug of GitHub Actions' check runs.
const ActionsApp = "github-actions"

// Handle implements githubapp.EventHandler.
func (h *CheckRun) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e checkRunPayload
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	c := e.CheckRun
	run := &CIRun{Source: "check_run", ID: c.ID, Attempt: 1, Name: c.Name, Conclusion: c.Conclusion, At: c.CompletedAt,
		Title: truncate(c.Output.Title, 1024), Summary: truncate(c.Output.Summary, 4096)}
	if e.Action != "completed" || (!run.Failed() && !run.Passed()) || c.App.Slug == ActionsApp || c.App.Slug == h.Slug {
		return nil
	}
	pr := prOf(e.Repository, c.HeadSHA, c.PullRequests)
	return h.Queue.Deliver(logContext(ctx, e.Installation.ID, pr), &Job{
		DeliveryID: deliveryID, Trigger: "check_run.completed", Kind: KindCI, Installation: e.Installation.ID,
		PR: pr, HeadSHA: c.HeadSHA, CI: run,
	})
}
