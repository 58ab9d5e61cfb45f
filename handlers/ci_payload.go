package handlers

import (
	"fmt"
	"regexp"

	"github.com/debatebot/debatebot/review"
)

// ciPullRequest is an entry of a workflow run's or check run's pull_requests: GitHub lists the
// pull requests of the repository whose head is the run's head (none for a fork's).
type ciPullRequest struct {
	Number int `json:"number"`
	Head   struct {
		SHA string `json:"sha"`
	} `json:"head"`
}

// shaPattern is what a commit id looks like, abbreviated or whole (SHA-1 or SHA-256).
var shaPattern = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// validateCI checks what a CI delivery is routed by: its repository, installation, run and head.
func validateCI(repo slimRepo, installation, id int64, head string) error {
	if err := validateInstalled(repo, installation); err != nil {
		return err
	}
	if id <= 0 {
		return fmt.Errorf("no run id (%d)", id)
	}
	if !shaPattern.MatchString(head) {
		return fmt.Errorf("head_sha %q is not a commit", truncate(head, 64))
	}
	return nil
}

// prOf is the pull request a run names for its head, or number 0 when it names none (a fork's
// pull request, or several): the runner asks GitHub for the pull requests of the commit.
func prOf(repo slimRepo, head string, prs []ciPullRequest) review.PullRequest {
	var found []int
	for _, p := range prs {
		if p.Head.SHA == head && p.Number > 0 {
			found = append(found, p.Number)
		}
	}
	n := 0
	if len(found) == 1 {
		n = found[0]
	}
	return repo.pr(n)
}
