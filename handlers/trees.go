package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/review/repocache"
)

// Trees gives review jobs the whole base and head trees of their pull request for the
// type-checked analysis: fetched with git into the repository cache (a warm cache fetches
// nothing), or, for a repository over the size limit or when the fetch fails, the changed
// packages' directories read through the contents API, which the transcript then says. A job
// never fails for want of trees: without either, the analysis sees the diff's hunks, with a note.
type Trees struct {
	Cache *repocache.Cache
	// WebURL is where git serves the repositories (GITHUB_WEB_URL: https://github.com, or a GitHub
	// Enterprise Server's https://<host>).
	WebURL string
	// MaxRepoMB is the largest repository fetched whole; 0 never fetches (DEBATEBOT_MAX_REPO_MB).
	MaxRepoMB int
	// Limits bound the trees written for one debate (DEBATEBOT_MAX_TREE_MB and
	// DEBATEBOT_MAX_TREE_FILES).
	Limits review.TreeLimits
	// Token mints the token git authenticates with, for the one repository.
	Token func(ctx context.Context, installation int64, pr review.PullRequest) (string, error)
}

// AppToken mints, with the App's own client, an installation token limited to the repository
// and to reading its contents: it is handed to a git process, and a token that can do nothing
// else is harmless should it leak from there. (The installation client's token can write pull
// requests, issues and checks on every repository of the installation.) GitHub refuses it (422)
// when the App lacks contents:read, and the job then reads directories instead, saying why.
func AppToken(app func() (*github.Client, error)) func(context.Context, int64, review.PullRequest) (string, error) {
	return func(ctx context.Context, installation int64, pr review.PullRequest) (string, error) {
		gh, err := app()
		if err != nil {
			return "", fmt.Errorf("failed to create the App client: %w", err)
		}
		tok, _, err := gh.Apps.CreateInstallationToken(ctx, installation, &github.InstallationTokenOptions{
			Repositories: []string{pr.Repo}, Permissions: &github.InstallationPermissions{Contents: github.String("read")},
		})
		if err != nil {
			return "", fmt.Errorf("failed to get a token to read %s: %w", pr.Repository(), err)
		}
		return tok.GetToken(), nil
	}
}

// tooLargeError is a repository over DEBATEBOT_MAX_REPO_MB.
type tooLargeError struct {
	repo      string
	kb, maxMB int
}

func (e *tooLargeError) Error() string {
	if e.maxMB == 0 {
		return "DEBATEBOT_MAX_REPO_MB is 0: whole trees are never fetched"
	}
	return fmt.Sprintf("%s is %d MB, over DEBATEBOT_MAX_REPO_MB (%d)", e.repo, (e.kb+1023)/1024, e.maxMB)
}

// treeGitHub is what giving a debate its trees needs of GitHub (review.GitHub implements it): the
// merge base, the repository's size, and its directories and files when the whole trees cannot
// be fetched.
type treeGitHub interface {
	review.TreeReader
	pull.MergeBaser
	// Repository is the repository (its size).
	Repository(ctx context.Context, pr review.PullRequest) (*github.Repository, error)
}

// attach sets c.Trees, for the job's change of the pull request from base to head; an empty base
// is the pull request's merge base (its diff's base), found when the trees are first asked for.
// done removes whatever trees are left once the debate is over.
func (t *Trees) attach(ctx context.Context, gh treeGitHub, job *Job, c *change.Change, meta *github.PullRequest, base string) (done func()) {
	var (
		mu       sync.Mutex
		cleanups []func()
	)
	keep := func(cleanup func()) func() {
		once := sync.OnceFunc(cleanup)
		mu.Lock()
		cleanups = append(cleanups, once)
		mu.Unlock()
		return once
	}
	head := c.HeadSHA
	c.Trees = func(ctx context.Context) (string, string, func(), error) {
		from := base
		if from == "" {
			from = pull.MergeBase(ctx, gh, job.PR, meta.GetBase().GetSHA(), head)
		}
		w, why := t.whole(ctx, gh, job, c, from, head)
		if why == nil {
			c.TreesNotes = append(c.TreesNotes, w.Notes...)
			return w.Base, w.Head, keep(w.Cleanup), nil
		}
		var tl *tooLargeError
		if errors.As(why, &tl) {
			why = tl // the limit, without the fetch it prevented
		}
		log := zerolog.Ctx(ctx)
		log.Warn().Str("reason", why.Error()).Msg("Whole trees unavailable; reading the changed packages' directories instead.")
		var left []string
		baseDir, headDir, cleanup, err := review.TempTrees(func(baseDir, headDir string) error {
			var err error
			left, err = review.DirTrees(ctx, gh, job.PR, c, from, head, baseDir, headDir)
			return err
		})
		if err != nil {
			return "", "", nil, fmt.Errorf("whole trees unavailable (%v), and the changed packages' directories could not be read: %w", why, err)
		}
		note := fmt.Sprintf("whole trees unavailable (%v): the type-checked Go analysis saw only the changed packages' directories, read through the contents API", why)
		if len(left) > 0 {
			note += fmt.Sprintf("; left out: %s", limitList(left, 5))
		}
		c.TreesNotes = append(c.TreesNotes, note)
		return baseDir, headDir, keep(cleanup), nil
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		for _, cleanup := range cleanups {
			cleanup()
		}
		cleanups = nil
	}
}

// whole fetches the commits into the cache (the size limit and the token checked only when a
// commit must be fetched) and writes their trees within t.Limits.
func (t *Trees) whole(ctx context.Context, gh treeGitHub, job *Job, c *change.Change, base, head string) (*review.WrittenTrees, error) {
	pr := job.PR
	remote := repocache.Remote{URL: repocache.URL(t.WebURL, pr.Owner, pr.Repo), Token: func(ctx context.Context) (string, error) {
		if err := t.checkSize(ctx, gh, pr); err != nil {
			return "", err
		}
		return t.Token(ctx, job.Installation, pr)
	}}
	return t.Cache.Trees(ctx, remote, base, head, review.ChangedPaths(c), t.Limits)
}

// checkSize refuses a repository over the limit (GitHub's size, in KB), or whose size cannot be
// read: the limit guards the cache's disk and the fetch's time.
func (t *Trees) checkSize(ctx context.Context, gh treeGitHub, pr review.PullRequest) error {
	if t.MaxRepoMB == 0 {
		return &tooLargeError{}
	}
	repo, err := gh.Repository(ctx, pr)
	if err != nil {
		return fmt.Errorf("the size of %s could not be read: %w", pr.Repository(), err)
	}
	if kb := repo.GetSize(); kb > t.MaxRepoMB*1024 {
		return &tooLargeError{repo: pr.Repository(), kb: kb, maxMB: t.MaxRepoMB}
	}
	return nil
}

// limitList joins the first n items, saying how many more there are.
func limitList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:n], "; "), len(items)-n)
}
