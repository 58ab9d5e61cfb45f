package workflow

import (
	"cmp"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/publish"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/voting"
	"github.com/google/go-github/v62/github"
)

// change reads the pull request's change from the checkout in GITHUB_WORKSPACE, the diff from the
// merge base of its base and head as GitHub shows it, with whole trees for the analysis; when the
// checkout lacks either commit (a shallow checkout), it reads the change through the API as the
// App does, and the trees of the changed packages' directories through the contents API, which
// the transcript says.
func (a *Action) change(ctx context.Context, meta *github.PullRequest, head string, ignore []string) (*change.Change, error) {
	base := meta.GetBase().GetSHA()
	missing := ""
	for _, sha := range []string{base, head} {
		if sha == "" || exec.CommandContext(ctx, "git", "-C", a.env.workspace, "cat-file", "-e", sha+"^{commit}").Run() != nil {
			missing = cmp.Or(sha, "(unknown)")
			break
		}
	}
	if missing == "" {
		c, err := review.FromGit(ctx, a.env.workspace, base+"..."+head)
		if err != nil {
			return nil, err
		}
		c.Source = a.pr.String()
		pull.Describe(c, meta)
		c.Commits = commitMessages(ctx, a.env.workspace, base+".."+head)
		if err := review.DropIgnored(c, ignore); err != nil {
			return nil, err
		}
		return c, nil
	}
	c, err := review.ReadPullRequest(ctx, review.NewGitHub(a.gh), a.pr, meta, ignore, review.DefaultMaxDiffBytes)
	if err != nil {
		return nil, err
	}
	why := fmt.Sprintf("commit %s is not in the checkout at GITHUB_WORKSPACE (check out with fetch-depth: 0)", missing)
	a.notice("notice", "Whole trees unavailable: %s; the change is read through the API.", why)
	c.Trees = func(ctx context.Context) (string, string, func(), error) {
		from := pull.MergeBase(ctx, review.NewGitHub(a.gh), a.pr, base, head)
		var left []string
		baseDir, headDir, cleanup, err := review.TempTrees(func(baseDir, headDir string) error {
			var err error
			left, err = review.DirTrees(ctx, review.NewGitHub(a.gh), a.pr, c, from, head, baseDir, headDir)
			return err
		})
		if err != nil {
			return "", "", nil, fmt.Errorf("whole trees unavailable (%s), and the changed packages' directories could not be read: %w", why, err)
		}
		note := fmt.Sprintf("whole trees unavailable (%s): the type-checked Go analysis saw only the changed packages' directories, read through the contents API", why)
		if len(left) > 0 {
			note += fmt.Sprintf("; left out: %s", strings.Join(left, "; "))
		}
		c.TreesNotes = append(c.TreesNotes, note)
		return baseDir, headDir, cleanup, nil
	}
	return c, nil
}

// since is what a push changed since the head the bot last debated on the pull request (its
// decision comment's record), as the App debates a push: users do not pay for, nor read again, a
// debate of code that was debated. The checkout gives it, with the earlier head's and the new
// head's whole trees; without the earlier head in the checkout, GitHub's comparison does. nil:
// debate the whole change (not a push, no earlier debate, a force push, nothing left after the
// ignored paths).
func (a *Action) since(ctx context.Context, pub *publish.Publisher, meta *github.PullRequest, head string, ignore []string) (*voting.Record, *change.Change, error) {
	if a.ev.trigger != "pull_request.synchronize" && a.ev.trigger != "pull_request_target.synchronize" {
		return nil, nil, nil
	}
	prev, err := pull.LastDebated(ctx, pub, head)
	if err != nil || prev == nil {
		return nil, nil, err
	}
	inCheckout := exec.CommandContext(ctx, "git", "-C", a.env.workspace, "cat-file", "-e", head+"^{commit}").Run() == nil &&
		exec.CommandContext(ctx, "git", "-C", a.env.workspace, "cat-file", "-e", prev.HeadSHA+"^{commit}").Run() == nil
	var c *change.Change
	switch {
	case inCheckout && exec.CommandContext(ctx, "git", "-C", a.env.workspace, "merge-base", "--is-ancestor", prev.HeadSHA, head).Run() != nil:
		// A force push: the earlier head is not in the new history.
		return nil, nil, nil
	case inCheckout:
		c, err = a.sinceInCheckout(ctx, meta, prev.HeadSHA, head, ignore)
	default:
		// As the App: what is left after the ignored paths is read, not more.
		c, err = pull.ReadSince(ctx, review.NewGitHub(a.gh), a.pr, meta, prev.HeadSHA, head, ignore)
	}
	if err != nil || c == nil {
		return nil, nil, err
	}
	return prev, c, nil
}

// sinceInCheckout reads from the checkout what the head changed since an earlier head, without
// the ignored paths; nil when nothing is left.
func (a *Action) sinceInCheckout(ctx context.Context, meta *github.PullRequest, since, head string, ignore []string) (*change.Change, error) {
	c, err := review.FromGit(ctx, a.env.workspace, since+".."+head)
	if err != nil {
		return nil, err
	}
	c.Source = fmt.Sprintf("%s %s...%s", a.pr, render.ShortSHA(since), render.ShortSHA(head))
	c.Commits = commitMessages(ctx, a.env.workspace, since+".."+head)
	if err := review.DropIgnored(c, ignore); err != nil || len(c.Files) == 0 {
		return nil, err
	}
	pull.Describe(c, meta)
	return c, nil
}

// commitMessages are the messages of the range's commits, oldest first, as the App reads them
// from the pull request; none when git cannot list them.
func commitMessages(ctx context.Context, dir, spec string) []string {
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "log", "--reverse", "--format=%B%x00", spec).Output()
	if err != nil {
		return nil
	}
	var msgs []string
	for _, m := range strings.Split(string(out), "\x00") {
		if m = strings.TrimSpace(m); m != "" {
			msgs = append(msgs, m)
		}
	}
	return msgs
}
