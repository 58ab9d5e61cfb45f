package handlers

import (
	"context"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"
)

// reviewCommentPayload is what the handler reads of a pull_request_review_comment delivery: the
// fields it routes on.
type reviewCommentPayload struct {
	Action       string           `json:"action"`
	Sender       slimUser         `json:"sender"`
	Installation slimInstallation `json:"installation"`
	Repository   slimRepo         `json:"repository"`
	PullRequest  struct {
		Number int `json:"number"`
	} `json:"pull_request"`
	Comment struct {
		ID          int64    `json:"id"`
		InReplyToID int64    `json:"in_reply_to_id"`
		Body        string   `json:"body"`
		UpdatedAt   string   `json:"updated_at"`
		User        slimUser `json:"user"`
	} `json:"comment"`
}

// ReviewCommentReply handles replies in the threads of review comments: a reply to one of the
// bot's findings dismisses it ("false positive", "/debate dismiss") or asks about it. Whether
// the comment replied to is the bot's is known only from the API, so the job checks it.
type ReviewCommentReply struct{ Base }

var _ githubapp.EventHandler = &ReviewCommentReply{}

// Handles implements githubapp.EventHandler.
func (h *ReviewCommentReply) Handles() []string { return []string{"pull_request_review_comment"} }

// Handle implements githubapp.EventHandler.
func (h *ReviewCommentReply) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e reviewCommentPayload
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	// Only a person's new reply in a thread: a comment that opens a thread is nobody's answer to
	// the bot, and no bot is answered (the App's own replies least of all: no loop), whatever
	// the allowed bots may trigger elsewhere.
	if e.Action != "created" || e.Comment.InReplyToID == 0 || isBot(e.Sender, h.Slug) || isBot(e.Comment.User, h.Slug) {
		return nil
	}
	if strings.TrimSpace(e.Comment.Body) == "" {
		return nil
	}
	job := &Job{
		DeliveryID: deliveryID, Trigger: "pull_request_review_comment." + e.Action, Installation: e.Installation.ID,
		PR: e.Repository.pr(e.PullRequest.Number), Kind: KindReply, Requester: e.Sender.Login,
		CommentID: e.Comment.ID, CommentVersion: e.Comment.UpdatedAt, InReplyTo: e.Comment.InReplyToID,
		Body: truncate(e.Comment.Body, maxReplyBytes),
	}
	return h.Queue.Deliver(logContext(ctx, job.Installation, job.PR), job)
}

// maxReplyBytes bounds the reply text a job keeps: a dismissal's reason or a question.
const maxReplyBytes = 4000

// isBot reports whether u is a bot: the App itself, or any account GitHub marks as one.
func isBot(u slimUser, slug string) bool {
	return u.Login == slug+"[bot]" || u.Type == "Bot" || strings.HasSuffix(u.Login, "[bot]")
}

// validate refuses a delivery without the fields the job is routed by.
func (p *reviewCommentPayload) validate() error {
	return validateRouted(p.Repository, p.Installation.ID, p.PullRequest.Number)
}
