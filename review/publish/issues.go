package publish

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review/render"
)

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
