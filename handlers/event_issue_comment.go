package handlers

import (
	"context"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/toulmin"
)

// issueCommentPayload is what the handler reads of an issue_comment delivery: the fields it routes
// on.
type issueCommentPayload struct {
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
	return h.Queue.Deliver(logContext(ctx, job.Installation, job.PR), job)
}

// guidance is what follows "/debate guide" in a comment, further lines included.
func guidance(body string) string {
	_, rest, _ := strings.Cut(strings.TrimSpace(body), "guide")
	return strings.TrimSpace(rest)
}

// validate refuses a delivery without the fields the job is routed by.
func (p *issueCommentPayload) validate() error {
	return validateRouted(p.Repository, p.Installation.ID, p.Issue.Number)
}

// planText is what follows "/debate plan" in a comment, further lines included.
func planText(body string) string {
	_, rest, _ := strings.Cut(strings.TrimSpace(body), "plan")
	return strings.TrimSpace(rest)
}
