package pull

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"
)

// ConfigErrorMarker marks the one comment that explains a broken .github/debatebot.yml.
const ConfigErrorMarker = "<!-- debatebot:config-error -->"

// Permission returns a user's role on the repository: GitHub's role_name (so that triage and
// maintain are seen as such; the legacy permission field says read and write for them), the
// legacy permission for a custom role, and "none" for someone who is not a collaborator.
func Permission(ctx context.Context, gh *github.Client, pr review.PullRequest, user string) (string, error) {
	req, err := gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", url.PathEscape(pr.Owner), url.PathEscape(pr.Repo), url.PathEscape(user)), nil)
	if err != nil {
		return "", fmt.Errorf("failed to ask the permission of %s on %s: %w", user, pr.Repository(), err)
	}
	var level struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	if _, err := gh.Do(ctx, req, &level); err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return "none", nil
		}
		return "", fmt.Errorf("failed to get the permission of %s on %s: %w", user, pr.Repository(), err)
	}
	if config.PermissionAtLeast(level.RoleName, "read") {
		return level.RoleName, nil
	}
	if level.Permission == "" {
		return "none", nil
	}
	return level.Permission, nil
}

// CannotDebateMarker marks the one comment that says why a pull request cannot be debated.
const CannotDebateMarker = "<!-- debatebot:cannot-debate -->"

// LoadRepoConfig reads .github/debatebot.yml from the base branch, so that a pull request cannot
// change the rules that judge it. A missing file means the defaults.
func LoadRepoConfig(ctx context.Context, gh *github.Client, pr review.PullRequest, ref string) (*config.Repo, error) {
	return LoadRepoConfigAt(ctx, gh, pr, ref, config.RepoPath)
}

// LoadRepoConfigAt reads the configuration at path (the Action's config input) from ref; a
// missing file means the defaults.
func LoadRepoConfigAt(ctx context.Context, gh *github.Client, pr review.PullRequest, ref, path string) (*config.Repo, error) {
	var opts *github.RepositoryContentGetOptions
	if ref != "" {
		opts = &github.RepositoryContentGetOptions{Ref: ref}
	}
	fc, _, _, err := gh.Repositories.GetContents(ctx, pr.Owner, pr.Repo, path, opts)
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return config.Default(), nil
		}
		return nil, fmt.Errorf("failed to read %s of %s: %w", path, pr.Repository(), err)
	}
	content, err := fc.GetContent()
	if err != nil {
		return nil, fmt.Errorf("failed to decode %s of %s: %w", path, pr.Repository(), err)
	}
	return config.Parse([]byte(content), path)
}

// MergeBase is the merge base of the pull request's base and head (the commit its diff is taken
// from), by the compare API; the base branch's commit when GitHub cannot say.
func MergeBase(ctx context.Context, gh *github.Client, pr review.PullRequest, base, head string) string {
	cmp, _, err := gh.Repositories.CompareCommits(ctx, pr.Owner, pr.Repo, base, head, &github.ListOptions{PerPage: 1})
	if err != nil || cmp.GetMergeBaseCommit().GetSHA() == "" {
		zerolog.Ctx(ctx).Debug().Err(err).Msg("No merge base from GitHub; the base tree is the base branch's commit.")
		return base
	}
	return cmp.GetMergeBaseCommit().GetSHA()
}
