package pull

import (
	"context"
	"errors"
	"fmt"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/rs/zerolog"
)

// ConfigErrorMarker marks the one comment that explains a broken .github/debatebot.yml.
const ConfigErrorMarker = "<!-- debatebot:config-error -->"

// Permissions asks GitHub a collaborator's permission on a repository.
type Permissions interface {
	// CollaboratorPermission is user's role (GitHub's role_name) and legacy permission; GitHub's
	// 404 for someone who is not a collaborator.
	CollaboratorPermission(ctx context.Context, pr review.PullRequest, user string) (role, permission string, err error)
}

// Permission returns a user's role on the repository: GitHub's role_name (so that triage and
// maintain are seen as such; the legacy permission field says read and write for them), the
// legacy permission for a custom role, and "none" for someone who is not a collaborator.
func Permission(ctx context.Context, gh Permissions, pr review.PullRequest, user string) (string, error) {
	role, permission, err := gh.CollaboratorPermission(ctx, pr, user)
	if review.NotFound(err) {
		return "none", nil
	}
	if err != nil {
		return "", fmt.Errorf("failed to get the permission of %s on %s: %w", user, pr.Repository(), err)
	}
	if config.PermissionAtLeast(role, "read") {
		return role, nil
	}
	if permission == "" {
		return "none", nil
	}
	return permission, nil
}

// CannotDebateMarker marks the one comment that says why a pull request cannot be debated.
const CannotDebateMarker = "<!-- debatebot:cannot-debate -->"

// ConfigReader reads the repository configuration file at a commit.
type ConfigReader interface {
	// File is the content of path at ref (the default branch when ref is empty); a
	// *review.DecodeError when GitHub sent it in a form that could not be decoded.
	File(ctx context.Context, pr review.PullRequest, path, ref string) ([]byte, error)
}

// LoadRepoConfig reads .github/debatebot.yml from the base branch, so that a pull request cannot
// change the rules that judge it. A missing file means the defaults.
func LoadRepoConfig(ctx context.Context, gh ConfigReader, pr review.PullRequest, ref string) (*config.Repo, error) {
	return LoadRepoConfigAt(ctx, gh, pr, ref, config.RepoPath)
}

// LoadRepoConfigAt reads the configuration at path (the Action's config input) from ref; a
// missing file means the defaults.
func LoadRepoConfigAt(ctx context.Context, gh ConfigReader, pr review.PullRequest, ref, path string) (*config.Repo, error) {
	content, err := gh.File(ctx, pr, path, ref)
	var undecodable *review.DecodeError
	switch {
	case review.NotFound(err):
		return config.Default(), nil
	case errors.As(err, &undecodable):
		return nil, fmt.Errorf("failed to decode %s of %s: %w", path, pr.Repository(), err)
	case err != nil:
		return nil, fmt.Errorf("failed to read %s of %s: %w", path, pr.Repository(), err)
	}
	return config.Parse(content, path)
}

// MergeBaser finds the merge base of two commits.
type MergeBaser interface {
	// MergeBase is the merge base of base and head; "" when GitHub names none.
	MergeBase(ctx context.Context, pr review.PullRequest, base, head string) (string, error)
}

// MergeBase is the merge base of the pull request's base and head (the commit its diff is taken
// from), by the compare API; the base branch's commit when GitHub cannot say.
func MergeBase(ctx context.Context, gh MergeBaser, pr review.PullRequest, base, head string) string {
	sha, err := gh.MergeBase(ctx, pr, base, head)
	if err != nil || sha == "" {
		zerolog.Ctx(ctx).Debug().Err(err).Msg("No merge base from GitHub; the base tree is the base branch's commit.")
		return base
	}
	return sha
}
