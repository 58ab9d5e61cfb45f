package pull

import (
	"context"

	"github.com/google/go-github/v62/github"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/voting"
)

// LastDebated is the record of the head the bot last debated on the pull request (its decision
// comment's), when a push follows it: users should not pay for, nor read again, a debate of code
// that was already debated. nil: no earlier debate, or one of this head.
func LastDebated(ctx context.Context, pub *publish.Publisher, head string) (*voting.Record, error) {
	prev, err := pub.PreviousRecord(ctx)
	if err != nil || prev == nil || prev.HeadSHA == "" || prev.HeadSHA == head {
		return nil, err
	}
	return prev, nil
}

// SinceReader is what reading a pull request's change since an earlier head needs of GitHub: the
// comparison of the heads, the commit messages and the head content of files.
type SinceReader interface {
	review.Comparer
	review.CommitReader
	review.FileReader
}

// ReadSince reads through GitHub's comparison what the pull request's head changed since an
// earlier head, without the ignored paths, with the pull request's title, body, refs, commit
// messages and the contents of what is left. nil: nothing to debate since (a force push, nothing
// left after the ignored paths), so debate the whole change.
func ReadSince(ctx context.Context, gh SinceReader, pr review.PullRequest, meta *github.PullRequest, since, head string, ignore []string) (*change.Change, error) {
	c, ok, err := review.ReadSince(ctx, gh, pr, since, head)
	if err != nil || !ok {
		return nil, err
	}
	if err := review.DropIgnored(c, ignore); err != nil || len(c.Files) == 0 {
		return nil, err
	}
	Describe(c, meta)
	review.ReadCommitMessages(ctx, gh, pr, c)
	review.FillContents(ctx, gh, pr, c)
	return c, nil
}

// Describe gives a change the pull request's title, body and refs.
func Describe(c *change.Change, meta *github.PullRequest) {
	c.Title, c.Body, c.BaseRef, c.HeadRef = meta.GetTitle(), meta.GetBody(), meta.GetBase().GetRef(), meta.GetHead().GetRef()
}
